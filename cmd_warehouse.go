package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

const flagWarehouse = "warehouse"

func warehouseFlag() cli.Flag {
	return &cli.StringFlag{Name: flagWarehouse, EnvVars: []string{"ETALAKE_WAREHOUSE"}, Value: "./warehouse",
		Usage: "the warehouse directory: etalake.duckdb and the Parquet mirror under parquet/"}
}

// openWarehouse opens the warehouse for writing; a second writer is a
// usage error (exit 2) that names the one holding it.
func openWarehouse(c *cli.Context) (*load.Warehouse, error) {
	wh, err := load.Open(c.Context, c.String(flagWarehouse), load.DefaultOptions())
	if errors.Is(err, load.ErrBusy) {
		return nil, usageErr{err}
	}
	return wh, err
}

func sqlCommand() *cli.Command {
	return &cli.Command{
		Name:      "sql",
		Usage:     "run a read-only SQL query on the warehouse",
		ArgsUsage: `"QUERY"`,
		Description: "Runs one query on <warehouse>/etalake.duckdb opened read-only and prints the result.\n" +
			"Examples:\n" +
			"   etalake sql \"SELECT * FROM shipments LIMIT 5\"\n" +
			"   etalake sql --format csv \"SELECT * FROM eta_observations\" > eta.csv\n" +
			"   etalake sql \"SELECT table_name, comment FROM duckdb_tables()\"   (the contract, documented)\n" +
			"While a job is writing, DuckDB allows no reader: query the Parquet mirror instead, e.g.\n" +
			"   duckdb -c \"SELECT count(*) FROM read_parquet('warehouse/parquet/eta_observations/**/*.parquet', hive_partitioning=true)\"",
		Flags: []cli.Flag{
			warehouseFlag(),
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table, csv or json"},
		},
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if err := flagsFirst(c); err != nil {
				return err
			}
			if c.NArg() != 1 || strings.TrimSpace(c.Args().First()) == "" {
				return configError("sql wants exactly one argument, the query (quote it): etalake sql \"SELECT …\"")
			}
			format := c.String("format")
			if !slices.Contains(jobs.QueryFormats, format) {
				return configError("--format %q: want table, csv or json", format)
			}
			db, err := load.OpenReadOnly(c.Context, c.String(flagWarehouse))
			if errors.Is(err, load.ErrBusy) || errors.Is(err, load.ErrNoWarehouse) {
				return usageErr{err}
			}
			if err != nil {
				return err
			}
			defer db.Close()
			err = jobs.Query(c.Context, db, c.Args().First(), format, c.App.Writer)
			if errors.Is(err, jobs.ErrQuery) {
				return usageErr{err}
			}
			return err
		},
	}
}

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "rebuild the derived tables and the Parquet mirror from the raw landing, without a request",
		Description: "Without --from/--to, every derived table is emptied and rebuilt from every landed response:\n" +
			"the result equals the original loads. With a range, the responses observed in it are derived\n" +
			"again (their history rows rebuilt, latest states refreshed). Replaying twice changes nothing.\n" +
			"More landed JSON than --part-size is replayed in parts, consecutive hours of observed time,\n" +
			"one process after another, so that memory does not grow with the warehouse; a last process\n" +
			"writes the Parquet mirror for all. A replay that stops is repaired by replaying again.",
		Flags: []cli.Flag{
			warehouseFlag(),
			&cli.StringFlag{Name: "from", Usage: "first observed date to replay (YYYY-MM-DD or RFC 3339)"},
			&cli.StringFlag{Name: "to", Usage: "end of the range, exclusive (YYYY-MM-DD or RFC 3339)"},
			&cli.StringFlag{Name: flagPartSize, Value: fmt.Sprintf("%dMiB", jobs.DefaultReplayPartBytes>>20), Usage: "landed JSON per process: a larger replay runs in parts of about this size (whole hours), each by a process of its own; 0: all in this one"},
			// --part: this process replays one part of a larger replay,
			// read from standard input (jobs.ReplayPartProcess starts it).
			&cli.BoolFlag{Name: flagPart, Hidden: true},
			logFormatFlag(),
		},
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return configError("replay takes no argument (got %q); the range is --from DATE --to DATE", c.Args().First())
			}
			log, err := newLogger(c)
			if err != nil {
				return err
			}
			opt := jobs.ReplayOptions{Version: version, Log: log}
			open := func() (*load.Warehouse, error) { return openWarehouse(c) }
			if c.Bool(flagPart) {
				return jobs.ReplayPartFrom(c.Context, open, os.Stdin, c.App.Writer, opt)
			}
			if s := c.String("from"); s != "" {
				if opt.From, err = parseTime("from", s); err != nil {
					return err
				}
			}
			if s := c.String("to"); s != "" {
				if opt.To, err = parseTime("to", s); err != nil {
					return err
				}
			}
			if !opt.From.IsZero() && !opt.To.IsZero() && !opt.To.After(opt.From) {
				return configError("--to %s must be after --from %s", c.String("to"), c.String("from"))
			}
			partBytes, err := parseSize(flagPartSize, c.String(flagPartSize))
			if err != nil {
				return err
			}
			parts, err := planReplay(c, opt, partBytes)
			if err != nil {
				return err
			}
			args := []string{"replay", "--" + flagWarehouse, c.String(flagWarehouse), "--" + flagLogFormat, c.String(flagLogFormat), "--" + flagPart}
			run, err := jobs.ReplayPartRunnerFor(parts, open, args, c.App.ErrWriter)
			if err != nil {
				return err
			}
			st, err := jobs.ReplayParts(c.Context, parts, opt, run)
			fmt.Fprintf(c.App.Writer, "replayed %d responses (%s): %s; %d dead letters\n", st.Responses, runsSummary(st.Runs), rowsSummary(st.Rows), st.DeadLetters)
			return err
		},
	}
}

// planReplay plans a replay on the warehouse, closed again before the
// parts open it.
func planReplay(c *cli.Context, opt jobs.ReplayOptions, partBytes int64) ([]jobs.ReplayPart, error) {
	wh, err := openWarehouse(c)
	if err != nil {
		return nil, err
	}
	defer wh.Close()
	parts, err := jobs.PlanReplay(c.Context, wh, opt, partBytes)
	if err != nil {
		return nil, err
	}
	return parts, wh.Close()
}

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "load archived API responses (files or directories of JSON) like fetched ones",
		ArgsUsage: "FILE|DIR…",
		Description: "Each .json file holds one response; each line of an .ndjson or .jsonl file holds one.\n" +
			"Which request a body answers is inferred from its shape: a shipment from its metadata or first\n" +
			"container, a port schedule from its location, port-to-port from its places, a vessel schedule\n" +
			"from its vessel, consumption periods from their fields. --endpoint and --request name it instead.\n" +
			"Imported bodies land in the raw landing like fetched ones; importing twice changes nothing.\n" +
			"An input larger than --part-size is imported in parts, one process after another, so that\n" +
			"memory does not grow with the work one process has done; a last process writes the Parquet\n" +
			"mirror for all. An interrupted or failed import keeps every load it committed.",
		Flags: []cli.Flag{
			warehouseFlag(),
			&cli.StringFlag{Name: "observed-at", Usage: "when the responses were true (RFC 3339 or date); default: each file's modification time"},
			&cli.StringFlag{Name: "endpoint", Usage: "what every body answers: schedule_port, schedule_p2p, schedule_vessel, shipment, consumption_current_period, consumption_periods"},
			&cli.StringFlag{Name: "request", Usage: "with --endpoint: the request path and query, e.g. " + wire.ScheduleBasePath + "/schedule/NLRTM"},
			&cli.StringFlag{Name: flagPartSize, Value: fmt.Sprintf("%dGiB", jobs.DefaultImportPartBytes>>30), Usage: "JSON per process: a larger input is imported in parts of this size (whole lines), each by a process of its own; 0: all in this one"},
			// --part: this process imports one part of a larger import,
			// read from standard input (jobs.PartProcess starts it).
			&cli.BoolFlag{Name: flagPart, Hidden: true},
			logFormatFlag(),
		},
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if err := flagsFirst(c); err != nil {
				return err
			}
			log, err := newLogger(c)
			if err != nil {
				return err
			}
			opt := jobs.ImportOptions{Endpoint: wire.Endpoint(c.String("endpoint")), Request: c.String("request"), Version: version, Log: log}
			if c.Bool(flagPart) {
				return importPart(c, opt)
			}
			if c.NArg() == 0 {
				return configError("import wants files or directories of JSON responses")
			}
			for _, p := range c.Args().Slice() {
				if _, err := os.Stat(p); err != nil {
					return configError("%v", err)
				}
			}
			if s := c.String("observed-at"); s != "" {
				t, err := parseTime("observed-at", s)
				if err != nil {
					return err
				}
				opt.ObservedAt = t
			}
			partBytes, err := parseSize(flagPartSize, c.String(flagPartSize))
			if err != nil {
				return err
			}
			parts, err := jobs.PlanImport(c.Args().Slice(), partBytes)
			if err != nil {
				return configError("%v", err)
			}
			open := func() (*load.Warehouse, error) { return openWarehouse(c) }
			args := []string{"import", "--" + flagWarehouse, c.String(flagWarehouse), "--" + flagLogFormat, c.String(flagLogFormat), "--" + flagPart}
			run, err := jobs.PartRunnerFor(parts, open, args, c.App.ErrWriter)
			if err != nil {
				return err
			}
			st, err := jobs.ImportParts(c.Context, parts, opt, run)
			fmt.Fprintf(c.App.Writer, "imported %d bodies from %d files (%d new, %s): %s; %d dead letters\n",
				st.Bodies, st.Files, st.Landed, runsSummary(st.Runs), rowsSummary(st.Rows), st.DeadLetters)
			for _, r := range st.Refused {
				fmt.Fprintln(c.App.ErrWriter, "refused:", r)
			}
			if errors.Is(err, jobs.ErrSomeRefused) {
				return cli.Exit(err.Error(), exitPartial)
			}
			return err
		},
	}
}

const (
	flagPartSize = "part-size"
	flagPart     = "part"
)

// importPart is `etalake import --part`: one part of a larger import, read
// from standard input, its report written to standard output.
func importPart(c *cli.Context, opt jobs.ImportOptions) error {
	if c.NArg() > 0 {
		return configError("import --part reads its part from standard input, not from arguments")
	}
	open := func() (*load.Warehouse, error) { return openWarehouse(c) }
	return jobs.ImportPartFrom(c.Context, open, os.Stdin, c.App.Writer, opt)
}

// runsSummary names the runs an import recorded.
func runsSummary(runs []string) string {
	switch len(runs) {
	case 0:
		return "no run"
	case 1:
		return "run " + runs[0]
	}
	return fmt.Sprintf("%d runs, %s … %s, a process each", len(runs), runs[0], runs[len(runs)-1])
}

// flagsFirst refuses a flag among the arguments: the command line stops
// reading flags at the first argument, so a flag after it would be taken
// for an argument.
func flagsFirst(c *cli.Context) error {
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "--") {
			return configError("%s after an argument: flags go first, as in etalake %s %s … ARGS", a, c.Command.FullName(), a)
		}
	}
	return nil
}

// rowsSummary renders rows per table, largest first.
func rowsSummary(rows map[string]int64) string {
	if len(rows) == 0 {
		return "no rows changed"
	}
	var parts []string
	for _, t := range sortedByValue(rows) {
		parts = append(parts, fmt.Sprintf("%s %d", t, rows[t]))
	}
	return strings.Join(parts, ", ")
}

// sortedByValue lists the keys of m, largest value first, then by name.
func sortedByValue(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
