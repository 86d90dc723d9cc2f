package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// openWarehouse opens the warehouse for writing. While another job writes
// it, it says whom it waits for and waits up to --lock-timeout; past that,
// the error matches load.ErrBusy (exit 75).
func openWarehouse(c *cli.Context) (*load.Warehouse, error) {
	opt, err := warehouseOptions(c)
	if err != nil {
		return nil, err
	}
	log, err := newLogger(c)
	if err != nil {
		return nil, err
	}
	opt.Waiting = sayWaiting(log, opt.LockTimeout)
	if err := withLake(c, &opt); err != nil {
		return nil, err
	}
	return load.Open(c.Context, c.String(flagWarehouse), opt)
}

// sayWaiting says, once, that a job waits for the warehouse, for whom and
// how long at most.
func sayWaiting(log *slog.Logger, timeout time.Duration) func(*load.BusyError) {
	return func(b *load.BusyError) {
		log.Warn("waiting for the warehouse", "for", timeout.String(), "busy", b.Error())
	}
}

// openReader opens the published warehouse read-only (it never waits for
// a job); a missing warehouse is a usage error (exit 2). Unless
// allowFiles, its queries read no file but the database and the Parquet
// mirror, and write none (load.OpenReader).
func openReader(c *cli.Context, allowFiles bool) (*sql.DB, error) {
	opt, err := warehouseOptions(c)
	if err != nil {
		return nil, err
	}
	log, err := newLogger(c)
	if err != nil {
		return nil, err
	}
	return openReaderWith(c.Context, c.String(flagWarehouse), opt, readOptions(log, allowFiles))
}

// readOptions are a reader's options: whether its queries may use files,
// and the log that says when a notebook holds the warehouse read-write.
func readOptions(log *slog.Logger, allowFiles bool) load.ReadOptions {
	return load.ReadOptions{AllowFiles: allowFiles, Snapshot: saySnapshot(log)}
}

// saySnapshot says that the published warehouse was held read-write by
// another process and a private copy of it is read instead: who holds
// it, what the copy cost, and how to spare it.
func saySnapshot(log *slog.Logger) func(load.Snapshot) {
	return func(s load.Snapshot) {
		log.Warn("reading a private copy of the warehouse: "+s.Holder.String()+" holds etalake.duckdb open read-write, which keeps every other process out of it "+
			"(a notebook's duckdb.connect(path) without read_only=True, DBeaver without a read-only connection); the copy is the warehouse as that process last checkpointed it, "+
			"removed when this command ends; open the warehouse read-only to spare it (README: From a notebook)",
			"holder_pid", s.Holder.PID, "holder", s.Holder.Command, "bytes", s.Bytes, "took", s.Took.Round(time.Millisecond).String(), "copy", s.Dir)
	}
}

// openReaderWith is openReader of the warehouse in dir with opt and ro.
// A reader is an analyst's query: it takes every core, where a writer
// keeps to two.
func openReaderWith(ctx context.Context, dir string, opt load.Options, ro load.ReadOptions) (*sql.DB, error) {
	opt.Threads = runtime.NumCPU()
	db, err := load.OpenReader(ctx, dir, opt, ro)
	if errors.Is(err, load.ErrNoWarehouse) {
		return nil, usageErr{err}
	}
	return db, err
}

// flagAllowFiles lets etalake sql read and write files.
const flagAllowFiles = "allow-files"

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
			"   etalake sql \"SELECT count(*) FROM read_parquet('warehouse/parquet/shipments/**/*.parquet')\"\n" +
			"It reads what the last job published: while a job runs, the state before it (never half a job).\n\n" +
			"The query reads the database and the Parquet mirror under the warehouse directory, and writes no\n" +
			"file: one statement, a SELECT (DESCRIBE, SHOW, SUMMARIZE), PRAGMA, CALL or EXPLAIN SELECT; COPY … TO,\n" +
			"EXPORT DATABASE, ATTACH, INSTALL and any SET are refused (exit 2), as is reading any other file.\n" +
			"--allow-files lifts that for the one command: the query may then read and write any file you may.\n\n" +
			"A notebook holding the warehouse open read-write (duckdb.connect(path) without read_only=True)\n" +
			"keeps every other process out of the file: etalake then reads a private copy of it, and says so.",
		Flags: append(warehouseFlags(),
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table, csv or json"},
			&cli.BoolFlag{Name: flagAllowFiles, Usage: "let the query read and write any file you may (COPY … TO, EXPORT DATABASE, read_csv of any path, ATTACH); without it, it reads the warehouse and its Parquet mirror and writes nothing. Deliberately no ETALAKE_* variable: it is asked for one command at a time"},
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if err := flagsFirst(c); err != nil {
				return err
			}
			if c.NArg() != 1 || strings.TrimSpace(c.Args().First()) == "" {
				return configError("sql wants exactly one argument, the query (quote it): etalake sql \"SELECT …\"")
			}
			format := c.String("format")
			if !slices.Contains(queryFormats, format) {
				return configError("--format %q: want table, csv or json", format)
			}
			db, err := openReader(c, c.Bool(flagAllowFiles))
			if err != nil {
				return err
			}
			defer db.Close()
			if !c.Bool(flagAllowFiles) {
				err := load.CheckQuery(c.Context, db, c.Args().First())
				if errors.Is(err, load.ErrQueryRefused) {
					return usageErr{fmt.Errorf("%w (etalake sql reads the warehouse and its Parquet mirror, and writes no file; --%s lets one query read and write any file)", err, flagAllowFiles)}
				}
				if err != nil {
					return usageErr{fmt.Errorf("%w: %w", errQuery, err)}
				}
			}
			err = query(c.Context, db, c.Args().First(), format, c.App.Writer)
			if errors.Is(err, errQuery) {
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
			"Responses a job quarantined (dead-lettered whole: larger than --max-body, or refused by the\n" +
			"warehouse) are derived again: after a fix, or with a larger --max-body, they load.\n" +
			"Readers of etalake.duckdb and of the Parquet mirror keep the tables as they were until the replay\n" +
			"ends and publishes them rebuilt. A replay that stops publishes nothing: the next job (any writer,\n" +
			"or replaying again) derives what it had not and publishes.\n\n" +
			"Exit codes: 0 ok, 1 failure, 2 usage, 3 partial (responses were dead-lettered), 75 busy.",
		Flags: append(writerFlags(),
			&cli.StringFlag{Name: "from", Usage: "first observed date to replay (YYYY-MM-DD or RFC 3339)"},
			&cli.StringFlag{Name: "to", Usage: "end of the range, exclusive (YYYY-MM-DD or RFC 3339)"},
			maxBodyFlag(),
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return configError("replay takes no argument (got %q); the range is --from DATE --to DATE", c.Args().First())
			}
			log, err := newLogger(c)
			if err != nil {
				return err
			}
			opt := jobs.ReplayOptions{Version: version, Log: log, ExitCode: statusExit}
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
			if opt.MaxBody, err = maxBody(c); err != nil {
				return err
			}
			wh, err := openWarehouse(c)
			if err != nil {
				return err
			}
			defer wh.Close()
			st, err := jobs.Replay(c.Context, wh, opt)
			if cerr := wh.Close(); err == nil {
				err = cerr
			}
			if jsonLog(c) {
				events(c).LogAttrs(context.WithoutCancel(c.Context), endLevel(st.Status), "summary",
					append(outcomeAttrs("replay", st.Outcome, statusExit(st.Status, err)), slog.Int("responses", st.Responses))...)
			} else {
				fmt.Fprintf(c.App.Writer, "replayed %d responses (run %s, %s): %s; %s\n", st.Responses, st.Run, st.Status, rowsSummary(st.Rows), jobs.DeadLetters(st.DeadLetters, st.Quarantined))
			}
			if err == nil && st.Status == load.StatusPartial {
				return cli.Exit("replay ended partial: responses were dead-lettered (see dead_letters)", exitPartial)
			}
			return err
		},
	}
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
			"A body larger than --max-body is landed and dead-lettered, not decoded. An interrupted or failed\n" +
			"import keeps every load it committed; importing again lands only what is new.\n\n" +
			"Every body read is landed: one that no shape identifies is kept as endpoint \"unidentified\" under\n" +
			"its file and line, and dead-lettered with the reason; one whose identifiers look odd (a container\n" +
			"number whose check digit fails) is derived like any other.\n\n" +
			"Exit codes: 0 ok, 1 failure, 2 usage, 3 partial (bodies or records dead-lettered), 75 busy.",
		Flags: append(writerFlags(),
			&cli.StringFlag{Name: "observed-at", Usage: "when the responses were true (RFC 3339 or date); default: each file's modification time"},
			&cli.StringFlag{Name: "endpoint", Usage: "what every body answers: schedule_port, schedule_p2p, schedule_vessel, shipment, consumption_current_period, consumption_periods"},
			&cli.StringFlag{Name: "request", Usage: "with --endpoint: the request path and query, e.g. " + wire.ScheduleBasePath + "/schedule/NLRTM"},
			maxBodyFlag(),
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if err := flagsFirst(c); err != nil {
				return err
			}
			log, err := newLogger(c)
			if err != nil {
				return err
			}
			opt := jobs.ImportOptions{Endpoint: wire.Endpoint(c.String("endpoint")), Request: c.String("request"),
				Version: version, Log: log, ExitCode: statusExit}
			if c.NArg() == 0 {
				return configError("import wants files or directories of JSON responses")
			}
			if err := jobs.CheckImportIdentity(opt.Endpoint, opt.Request); err != nil {
				return configError("%v", err)
			}
			// Before the warehouse is opened (or created): a path that
			// names nothing to import is the user's to fix.
			if err := jobs.CheckImportPaths(c.Args().Slice()); err != nil {
				return configError("import: %v", err)
			}
			if s := c.String("observed-at"); s != "" {
				if opt.ObservedAt, err = parseTime("observed-at", s); err != nil {
					return err
				}
			}
			if opt.MaxBody, err = maxBody(c); err != nil {
				return err
			}
			wh, err := openWarehouse(c)
			if err != nil {
				return err
			}
			defer wh.Close()
			st, err := jobs.Import(c.Context, wh, c.Args().Slice(), opt)
			if cerr := wh.Close(); err == nil {
				err = cerr
			}
			if errors.Is(err, jobs.ErrNothingToImport) { // the files went away meanwhile
				err = usageErr{err}
			}
			switch {
			case st.Run == "":
			case jsonLog(c):
				events(c).LogAttrs(context.WithoutCancel(c.Context), endLevel(st.Status), "summary", append(outcomeAttrs("import", st.Outcome, statusExit(st.Status, err)),
					slog.Int("files", st.Files), slog.Int("bodies", st.Bodies), slog.Int("landed", st.Landed),
					slog.Int("already_there", st.AlreadyThere), slog.Int("unidentified", st.Unidentified))...)
			default:
				writeImportSummary(c.App.Writer, st)
			}
			if err == nil && st.Status == load.StatusPartial {
				return cli.Exit("import ended partial: bodies or records in them were dead-lettered (see dead_letters)", exitPartial)
			}
			return err
		},
	}
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

// writeImportSummary says what an import did, in counts that add up:
// bodies read = landed new + already there; of them, some dead-lettered.
func writeImportSummary(w io.Writer, st jobs.ImportStats) {
	fmt.Fprintf(w, "import %s: %s\n", st.Run, st.Status)
	fmt.Fprintf(w, "  bodies     %d read from %d files: %d landed new, %d already there\n", st.Bodies, st.Files, st.Landed, st.AlreadyThere)
	fmt.Fprintf(w, "  rows       %s\n", rowsSummary(st.Rows))
	if st.DeadLetters > 0 {
		fmt.Fprintf(w, "  dead       %s", jobs.DeadLetters(st.DeadLetters, st.Quarantined))
		if st.Unidentified > 0 {
			fmt.Fprintf(w, ", %d of them identified as no known answer", st.Unidentified)
		}
		fmt.Fprintln(w, ": kept in raw_responses, the reasons in dead_letters")
	}
}
