package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/termline"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// selectionFlags choose what a run asks for.
func selectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "ports", EnvVars: []string{"ETALAKE_PORTS"}, Usage: "by-port schedules: LOCODEs, comma-separated, or @FILE (one per line or a CSV with the code first)"},
		&cli.StringFlag{Name: "lanes", EnvVars: []string{"ETALAKE_LANES"}, Usage: "port-to-port schedules: POL-POD pairs (CNSHA-NLRTM), comma-separated, or @FILE"},
		&cli.StringFlag{Name: "vessels", EnvVars: []string{"ETALAKE_VESSELS"}, Usage: "by-vessel schedules: IMO numbers, comma-separated, or @FILE"},
		&cli.StringFlag{Name: "shipments", EnvVars: []string{"ETALAKE_SHIPMENTS"}, Usage: "shipments to track: a CSV FILE with shipment_number,shipment_type,sealine"},
		&cli.StringFlag{Name: "date", EnvVars: []string{"ETALAKE_DATE"}, Usage: "logical date of the run (YYYY-MM-DD); default: today, UTC"},
		&cli.Int64Flag{Name: "max-credits", EnvVars: []string{"ETALAKE_MAX_CREDITS"}, Value: extract.Unlimited, Usage: "spend at most N schedule credits (default: no cap but the balance)"},
		&cli.Int64Flag{Name: "max-tracking-calls", EnvVars: []string{"ETALAKE_MAX_TRACKING_CALLS"}, Value: extract.Unlimited, Usage: "make at most N paid tracking calls"},
		&cli.BoolFlag{Name: "dry-run", Usage: "print the plan — requests, credits per product, time at the rate limit, balance after — without a paid call, and without writing anything: a missing warehouse is not created, an existing one is read as last published"},
		maxBodyFlag(),
		strictFlag(),
		&cli.IntFlag{Name: "max-reasks", EnvVars: []string{"ETALAKE_MAX_REASKS"}, Value: jobs.DefaultMaxReasks,
			Usage: "a 2xx answer that does not arrive whole (cut short, broken, not JSON) is retried, then kept and dead-lettered, and asked again by the next job of the date: by at most N jobs, after which it is left (the plan lists it)"},
	}
}

// runFlags are the flags of run and backfill.
func runFlags() []cli.Flag {
	return append(append(sourceFlags(), writerFlags()...), selectionFlags()...)
}

// strictFlag makes any bad input row an error before anything is asked.
func strictFlag() cli.Flag {
	return &cli.BoolFlag{Name: "strict", EnvVars: []string{"ETALAKE_STRICT"},
		Usage: "refuse the whole input, before any request (exit 2), when any row of --ports, --lanes, --vessels, --shipments or the arguments is bad; without it, every bad row is reported (file:line: reason), skipped, and the job ends partial (exit 3)"}
}

// selection reads the selection flags. A bad row of a list or of the
// shipments file is skipped and returned in bad; an error is input that
// cannot be read at all.
func selection(c *cli.Context) (jobs.Selection, badRows, error) {
	var sel jobs.Selection
	var bad, more badRows
	var err error
	if sel.Ports, more, err = parsePorts(c.String("ports")); err != nil {
		return sel, nil, configError("%v", err)
	}
	bad = append(bad, more...)
	if sel.Lanes, more, err = parseLanes(c.String("lanes")); err != nil {
		return sel, nil, configError("%v", err)
	}
	bad = append(bad, more...)
	if sel.Vessels, more, err = parseVessels(c.String("vessels")); err != nil {
		return sel, nil, configError("%v", err)
	}
	bad = append(bad, more...)
	sel.Shipments, more, err = shipmentsFile(c.String("shipments"))
	return sel, append(bad, more...), err
}

// shipmentsFile reads the shipments CSV of --shipments; none when the path
// is empty.
func shipmentsFile(path string) ([]extract.ShipmentRef, badRows, error) {
	if path == "" {
		return nil, nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, configError("--shipments: %v", err)
	}
	defer f.Close()
	refs, bad, err := readShipments(f, path)
	if err != nil {
		return nil, nil, usageErr{err}
	}
	return refs, bad, nil
}

// skipBadRows applies --strict to the bad rows of a command's input: an
// error listing them all with it, else each one logged and the list
// returned, for the job to end partial.
func skipBadRows(c *cli.Context, log *slog.Logger, bad badRows) ([]string, error) {
	if len(bad) == 0 {
		return nil, nil
	}
	if c.Bool("strict") {
		return nil, bad.strictError()
	}
	for _, b := range bad {
		log.Warn("input: bad row skipped", "where", b.where, "reason", b.reason)
	}
	return bad.Strings(), nil
}

func logicalDate(c *cli.Context) (time.Time, error) {
	s := c.String("date")
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, configError("--date %q: want a date YYYY-MM-DD", s)
	}
	return t, nil
}

func caps(c *cli.Context) (int64, int64, error) {
	s, t := c.Int64("max-credits"), c.Int64("max-tracking-calls")
	if s < extract.Unlimited || t < extract.Unlimited {
		return 0, 0, configError("--max-credits and --max-tracking-calls: want a count ≥ 0")
	}
	return s, t, nil
}

const runDescription = `Reads the balance of each product first (free), plans, then spends: only what was not
answered yet for the logical date is asked, so a second run of the same date spends nothing,
and a run killed at any point loses nothing it landed. Every response is landed before it is
parsed; rows are loaded into DuckDB and the Parquet mirror at the end.

A cap (--max-credits, --max-tracking-calls) or a 403 quota stops that product, keeps what was
landed, records why in etl_runs and exits 3. Unknown shipments, ports or vessels (404) are
recorded, not fatal. A response that cannot be derived (a body larger than --max-body, one that
does not decode, rows the warehouse refuses) is kept in raw_responses and dead-lettered: the run
goes on, ends partial, and no later job stumbles on it (replay derives it again after a fix).
A 2xx answer that does not arrive whole (shorter than its Content-Length, a broken connection,
JSON that does not parse) is no answer: it is retried, and if it stays broken it is kept,
dead-lettered, and asked again by the next job of the same date (by --max-reasks jobs at most).

The run is ok (exit 0) only when everything asked was answered and loaded; otherwise it is
partial (exit 3) and etl_runs.shortfalls counts why, by reason: dead_letters,
responses_not_derived, failed_after_retries, broken_answers, not_asked_again, stopped_unasked,
skipped_input_rows. The summary and the log's "run: ended" line say the same.`

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "the nightly job: refresh the tracked shipments and the selected schedules for a logical date",
		Description: runDescription + `

Shipments given with --shipments join the tracked set; every tracked shipment is refreshed
until it is finished (POSTPOD actual, or POD actual without a POSTPOD, plus --grace).

Schedule it once a day:
   15 2 * * *  ETALAKE_API_KEY_FILE=/etc/etalake/key etalake run --warehouse /srv/etalake --ports @/etc/etalake/ports.txt`,
		Flags: append(runFlags(),
			&cli.DurationFlag{Name: "grace", EnvVars: []string{"ETALAKE_GRACE"}, Value: jobs.DefaultGrace, Usage: "keep refreshing a shipment this long after it arrived at its final place"},
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			if c.Duration("grace") < 0 {
				return configError("--grace (ETALAKE_GRACE) %s: want a duration ≥ 0", c.Duration("grace"))
			}
			return runJob(c, "run", true, nil)
		},
	}
}

func backfillCommand() *cli.Command {
	return &cli.Command{
		Name:  "backfill",
		Usage: "an ad hoc run of the selection, without touching the tracked set",
		Description: runDescription + `

On a terminal it shows the cost and asks before spending, unless --yes or --max-credits is
given.`,
		Flags: append(runFlags(),
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask before spending"},
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			var confirm func(jobs.Plan) bool
			if !c.Bool("yes") && !c.IsSet("max-credits") && isTerminal(os.Stdin) && isTerminal(os.Stderr) {
				confirm = func(p jobs.Plan) bool { return askToSpend(c.App.ErrWriter, os.Stdin, p) }
			}
			return runJob(c, "backfill", false, confirm)
		},
	}
}

// askToSpend shows the plan and reads yes or no. The job then spends at
// most what it asked (jobs.RunOptions.Confirm).
func askToSpend(w io.Writer, in io.Reader, p jobs.Plan) bool {
	writePlan(w, p)
	low, high := p.ScheduleCredits()
	_, t := p.Spend()
	most := ""
	if low != high {
		most = fmt.Sprintf(" (no more than %d)", high)
	}
	fmt.Fprintf(w, "Spend %s schedule credits%s and %d tracking calls? [y/N] ", creditRange(low, high), most, t)
	line, _ := bufio.NewReader(in).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runJob runs the nightly job or a backfill and maps its end to an exit
// code.
func runJob(c *cli.Context, job string, track bool, confirm func(jobs.Plan) bool) error {
	sel, bad, err := selection(c)
	if err != nil {
		return err
	}
	// On a terminal, the progress line and the log share stderr through
	// one writer, which keeps them apart.
	var status *termline.Line
	errw := c.App.ErrWriter
	if f, ok := errw.(*os.File); ok && isTerminal(f) && c.String(flagLogFormat) != "json" {
		status = termline.New(f, termline.Width(f))
		errw = status
	}
	log, err := newLoggerTo(c, errw, slog.LevelInfo)
	if err != nil {
		return err
	}
	skipped, err := skipBadRows(c, log, bad)
	if err != nil {
		return err
	}
	if !track && sel.Empty() {
		if len(bad) > 0 {
			return usageErr{fmt.Errorf("backfill: every row of the selection is bad, nothing to ask:\n  %s", strings.Join(skipped, "\n  "))}
		}
		return configError("backfill wants a selection: --ports, --lanes, --vessels or --shipments")
	}
	warnings := checkDigitWarnings(log, sel.Shipments)
	logical, err := logicalDate(c)
	if err != nil {
		return err
	}
	capS, capT, err := caps(c)
	if err != nil {
		return err
	}
	limit, err := maxBody(c)
	if err != nil {
		return err
	}
	client, err := newClient(c, log, capS, capT, limit)
	if err != nil {
		return err
	}
	if err := selectionURLs(client, sel); err != nil {
		return err
	}
	var wh *load.Warehouse
	if c.Bool("dry-run") {
		wh, err = openPlanning(c)
	} else {
		wh, err = openWarehouse(c)
	}
	if err != nil {
		return err
	}
	defer wh.Close()
	if track && sel.Empty() && len(bad) == 0 {
		if err := somethingTracked(c, wh); err != nil {
			return err
		}
	}
	res, err := jobs.RunJob(c.Context, client, wh, jobs.RunOptions{
		Job: job, LogicalDate: logical, Selection: sel, Track: track,
		CapSchedule: capS, CapTracking: capT, DryRun: c.Bool("dry-run"), Grace: c.Duration("grace"),
		MaxBody: limit, MaxReasks: c.Int("max-reasks"), Skipped: skipped, Warnings: warnings, Confirm: confirm, ExitCode: statusExit, Version: version, Log: log,
		Progress: progressOf(status),
	})
	err = urlError(authHint(err, client.Auth()))
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	err = misconfigHint(err)
	if c.Bool("dry-run") {
		if err == nil {
			writePlan(c.App.Writer, res.Plan)
		}
		return err
	}
	writeSummary(c.App.Writer, res)
	switch {
	case errors.Is(err, jobs.ErrDeclined):
		return cli.Exit(err.Error(), exitFailure)
	case err != nil:
		return err
	case res.Run.Status == load.StatusPartial:
		return cli.Exit(fmt.Sprintf("%s ended partial: %s", job, res.Run.StopReason), exitPartial)
	}
	return nil
}

// selectionURLs refuses, before the warehouse is opened, a selection
// that asks a product whose URL is not set (the job would stop on it
// too, after adding --shipments to the tracked set).
func selectionURLs(client *extract.Client, sel jobs.Selection) error {
	schedules := len(sel.Ports) + len(sel.Lanes) + len(sel.Vessels)
	if schedules > 0 && !client.HasURL(wire.ProductSchedule) {
		return noURL(wire.ProductSchedule, howMany(schedules, "schedule")+" selected (--ports, --lanes, --vessels)")
	}
	if n := len(sel.Shipments); n > 0 && !client.HasURL(wire.ProductTracking) {
		return noURL(wire.ProductTracking, howMany(n, "shipment")+" given with --shipments")
	}
	return nil
}

// howMany is "1 schedule is", "3 schedules are".
func howMany(n int, what string) string {
	if n == 1 {
		return "1 " + what + " is"
	}
	return fmt.Sprintf("%d %ss are", n, what)
}

// somethingTracked refuses a nightly run given no selection when no
// shipment is tracked either: it would do nothing and say ok, and a
// scheduled job with a wrong ExecStart would look fine.
func somethingTracked(c *cli.Context, wh *load.Warehouse) error {
	ts, err := wh.Tracked(c.Context)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if t.RemovedAt == nil {
			return nil
		}
	}
	return configError("run: nothing to do: no --ports, --lanes, --vessels or --shipments given, and no shipment is tracked in %s; "+
		"select schedules (etalake run --ports NLRTM,DEHAM) or track shipments (etalake track add MSCU1234566, or --shipments FILE.csv)", c.String(flagWarehouse))
}

// openPlanning opens the warehouse for a dry run, which writes nothing:
// not even a missing warehouse is created (see load.OpenPlanning).
func openPlanning(c *cli.Context) (*load.Warehouse, error) {
	opt, err := warehouseOptions(c)
	if err != nil {
		return nil, err
	}
	return load.OpenPlanning(c.Context, c.String(flagWarehouse), opt)
}

// progressOf is the run's status line: none without a terminal.
func progressOf(l *termline.Line) jobs.Status {
	if l == nil {
		return nil
	}
	return l
}
