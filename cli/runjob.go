package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/termline"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// The job behind run and backfill (cmd_run.go, cmd_backfill.go): its
// flags, the description both commands share, and runJob in the steps it
// takes — the settings read and validated before anything is asked or
// opened, the client built, the selection's products checked, the
// warehouse opened, the job run, its end said.

// runFlags are the flags of run and backfill.
func runFlags() []cli.Flag {
	return append(append(append(sourceFlags(), writerFlags()...), selectionFlags()...), progressIntervalFlag(), metricsFileFlag(), shardFlag())
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
JSON that does not parse) is no answer: it is asked at most twice more (each ask counted as
possibly charged), and if it stays broken it is kept, dead-lettered, and asked again by the next
job of the same date. After --max-reasks jobs without it the resource is given up for the date:
a job of the date asks it once more only when the service has answered its product well since —
a later job's answers of that product all came whole, or this job's, which then asks it at the
end. Until then the summary, etl_runs.given_up and data_freshness name it with the command that
asks it now, e.g. etalake backfill --warehouse DIR --date 2026-01-05 --reask port:NLRTM.

The run is ok (exit 0) only when everything asked was answered and loaded; otherwise it is
partial (exit 3) and etl_runs.shortfalls counts why, by reason: dead_letters,
responses_not_derived, failed_after_retries, refused, broken_answers, paging_stopped,
not_asked_again, stopped_unasked, skipped_input_rows. The summary and the log's "run: ended"
line say the same.

Settings out of range are refused before anything is asked (exit 2), naming the variable and
the flag: --max-reasks 1 to 100, --max-pages 1 to 10000, --page-size 0 to 10000, --schedule-days
1 to 366, --timeout 1s to 1h, --grace 0 to 366 days, --lock-timeout 0 to 24h, --max-credits and
--max-tracking-calls 0 or more (unset: no cap), --rate N/DURATION with N 1 to 10000.`

// runJob runs the nightly job or a backfill and maps its end to an exit
// code (main's exitCode, from the verdict sayRunEnd returns).
// With --metrics-file, the job's figures are written as it returns,
// however it ended (jobFigures).
func runJob(c *cli.Context, job string, track bool, confirm func(jobs.Plan) bool) (err error) {
	status, log, err := runLogger(c)
	if err != nil {
		return err
	}
	figures, err := readMetricsFile(c, job)
	if err != nil {
		return err
	}
	defer func() { err = figures.write(c, log, err) }()
	opt, err := runOptions(c, job, track, log)
	if err != nil {
		return err
	}
	opt.Progress = progressOf(status)
	figures.setShard(opt.Shard)
	// The key's id before the client: a client that cannot be built (a
	// coordinator out of reach) still writes figures that name the key.
	if k, kerr := readKey(c); kerr == nil {
		figures.setKey(k.Fingerprint())
	}
	client, err := runClient(c, log, opt)
	if err != nil {
		return err
	}
	figures.setKey(client.KeyID())
	if confirm != nil && !opt.DryRun { // a dry run spends nothing: nothing to ask
		if opt.Confirm, err = askFirst(c, client, opt, confirm); err != nil {
			return err
		}
	}
	wh, err := openForRun(c, opt)
	if err != nil {
		return err
	}
	res, err := runOn(c, client, wh, opt)
	figures.setResult(res)
	return sayRunEnd(c, job, res, err)
}

// askFirst shows a backfill's plan and asks before the warehouse is
// opened for writing: the plan is made as a dry run makes it, on the
// warehouse read-only, so that a backfill declined creates no warehouse
// and records no run (jobs.ErrDeclined, exit 1). It returns the real
// run's Confirm: the plan the run makes again is taken without asking
// when it costs no more than the one accepted (the run then spends at
// most that), and asked again when it costs more (another job changed
// the warehouse meanwhile).
func askFirst(c *cli.Context, client *extract.Client, opt jobs.RunOptions, confirm func(jobs.Plan) bool) (func(jobs.Plan) bool, error) {
	dry := opt
	dry.DryRun, dry.Confirm, dry.Progress = true, nil, nil
	dry.Log = slog.New(slog.DiscardHandler) // the run logs the same again
	wh, err := openPlanning(c)
	if err != nil {
		return nil, err
	}
	res, err := jobs.RunJob(c.Context, client, wh, dry)
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, misconfigHint(c, urlError(c, authHint(err, client.Auth())))
	}
	if res.Plan.Total() > 0 && !confirm(res.Plan) {
		return nil, fmt.Errorf("backfill %w; no warehouse was created or run recorded", jobs.ErrDeclined)
	}
	_, schedule := res.Plan.ScheduleCredits()
	_, tracking := res.Plan.Spend()
	return func(p jobs.Plan) bool {
		_, s := p.ScheduleCredits()
		_, t := p.Spend()
		return (s <= schedule && t <= tracking) || confirm(p)
	}, nil
}

// runLogger is the log of a run and, on a terminal, its status line: the
// progress line and the log share stderr through one writer, which keeps
// them apart.
func runLogger(c *cli.Context) (*termline.Line, *slog.Logger, error) {
	var status *termline.Line
	errw := c.App.ErrWriter
	if f, ok := errw.(*os.File); ok && isTerminal(f) && !jsonLog(c) {
		status = termline.New(f, termline.Width(f))
		errw = status
	}
	log, err := newLoggerTo(c, errw, slog.LevelInfo)
	return status, log, err
}

// isTerminal says whether f is a terminal: the status line and
// backfill's question are for a person, never for a scheduler's log.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runOptions reads what a run asks and how (the selection, --reask, the
// bad input rows, the logical date, the caps, the limits, the refresh
// policy) into its options, and validates them (jobs.RunOptions.Validate):
// a setting out of range is refused before anything is asked or opened.
func runOptions(c *cli.Context, job string, track bool, log *slog.Logger) (jobs.RunOptions, error) {
	opt := jobs.RunOptions{Job: job, Track: track, DryRun: c.Bool("dry-run"), MaxReasks: c.Int(flagMaxReasks),
		ProgressEvery: c.Duration(flagProgressInterval), ReaskCommand: reaskCommand(c), Version: version, Log: log,
		ExitCodes: exitCodes}
	if err := readRunSelection(c, log, &opt); err != nil {
		return opt, err
	}
	if err := readRunLimits(c, &opt); err != nil {
		return opt, err
	}
	shard, err := readShard(c)
	if err != nil {
		return opt, err
	}
	opt.Shard = shard
	refresh, err := readRefresh(c)
	if err != nil {
		return opt, err
	}
	opt.Refresh = &refresh
	return opt, settingError(c, opt.Validate())
}

// readRunSelection reads what a run asks: the selection, --reask, and the
// bad rows of its input (--strict refuses them, else they are skipped and
// the job ends partial). A backfill with nothing to ask is refused.
func readRunSelection(c *cli.Context, log *slog.Logger, opt *jobs.RunOptions) error {
	sel, bad, err := selection(c)
	if err != nil {
		return err
	}
	if opt.Reask, err = reaskFlag(c); err != nil {
		return err
	}
	if opt.Skipped, err = skipBadRows(c, log, bad); err != nil {
		return err
	}
	if !opt.Track && sel.Empty() && opt.Reask.Empty() {
		if len(bad) > 0 {
			return usageErr{fmt.Errorf("backfill: every row of the selection is bad, nothing to ask:\n  %s", strings.Join(opt.Skipped, "\n  "))}
		}
		return configError("backfill wants a selection: --ports, --lanes, --vessels, --shipments or --reask")
	}
	opt.Selection, opt.Warnings = sel, checkDigitWarnings(log, sel.Shipments)
	return nil
}

// readRunLimits reads the run's date and bounds: the logical date, the
// caps, --max-body and --grace.
func readRunLimits(c *cli.Context, opt *jobs.RunOptions) error {
	var err error
	if opt.LogicalDate, err = logicalDate(c); err != nil {
		return err
	}
	if opt.CapSchedule, opt.CapTracking, err = caps(c); err != nil {
		return err
	}
	if opt.MaxBody, err = maxBody(c); err != nil {
		return err
	}
	opt.Grace = c.Duration(flagGrace)
	if opt.Grace == 0 && c.IsSet(flagGrace) {
		opt.Grace = jobs.NoGrace // an explicit 0, not the mode's default
	}
	return nil
}

// runClient builds the run's client, bounded by its caps and --max-body,
// and refuses, before the warehouse is opened, a selection that asks a
// product whose URL is not set.
func runClient(c *cli.Context, log *slog.Logger, opt jobs.RunOptions) (*extract.Client, error) {
	client, err := newClient(c, log, opt.CapSchedule, opt.CapTracking, opt.MaxBody)
	if err != nil {
		return nil, err
	}
	if err := selectionURLs(c, client, opt.Selection.With(opt.Reask)); err != nil {
		return nil, err
	}
	return client, nil
}

// selectionURLs refuses, before the warehouse is opened, a selection
// that asks a product whose URL is not set (the job would stop on it
// too, after adding --shipments to the tracked set).
func selectionURLs(c *cli.Context, client *extract.Client, sel jobs.Selection) error {
	schedules := len(sel.Ports) + len(sel.Lanes) + len(sel.Vessels)
	if schedules > 0 && !client.HasURL(wire.ProductSchedule) {
		return noURL(c, wire.ProductSchedule, howMany(schedules, "schedule")+" selected (--ports, --lanes, --vessels)")
	}
	if n := len(sel.Shipments); n > 0 && !client.HasURL(wire.ProductTracking) {
		return noURL(c, wire.ProductTracking, howMany(n, "shipment")+" given with --shipments")
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

// openForRun opens the warehouse of a run: for a dry run as it was last
// published, writing nothing; else for writing. A nightly run given no
// selection when no shipment is tracked either is refused.
func openForRun(c *cli.Context, opt jobs.RunOptions) (*load.Warehouse, error) {
	var wh *load.Warehouse
	var err error
	if opt.DryRun {
		wh, err = openPlanning(c)
	} else {
		wh, err = openWarehouse(c)
	}
	if err != nil {
		return nil, err
	}
	if opt.Track && opt.Selection.Empty() && opt.Reask.Empty() && len(opt.Skipped) == 0 {
		if err := somethingTracked(c, wh); err != nil {
			wh.Close()
			return nil, err
		}
	}
	return wh, nil
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

// runOn runs the job on the warehouse it opened, then closes it; an
// error is worded with what to check: the key's header on a 401, the
// setting of a product's URL missing or wrong.
func runOn(c *cli.Context, client *extract.Client, wh *load.Warehouse, opt jobs.RunOptions) (jobs.RunResult, error) {
	res, err := jobs.RunJob(c.Context, client, wh, opt)
	err = urlError(c, authHint(err, client.Auth()))
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	return res, misconfigHint(c, err)
}

// sayRunEnd says how a run ended — a dry run its plan, a run its summary
// — and maps the end to an exit code.
func sayRunEnd(c *cli.Context, job string, res jobs.RunResult, err error) error {
	if c.Bool("dry-run") {
		switch {
		case err != nil:
		case jsonLog(c):
			events(c).LogAttrs(c.Context, slog.LevelInfo, "plan", planAttrs(res.Plan)...)
		default:
			writePlan(c.App.Writer, res.Plan)
		}
		return err
	}
	if jsonLog(c) {
		events(c).LogAttrs(context.WithoutCancel(c.Context), endLevel(res.Run.Status), "summary", summaryAttrs(res)...)
	} else {
		writeSummary(c.App.Writer, res)
	}
	if err == nil && res.Verdict != jobs.VerdictOK {
		return ended{res.Verdict, fmt.Sprintf("%s ended %s: %s", job, res.Run.Status, res.Run.StopReason)}
	}
	return err
}

// progressOf is the run's status line: none without a terminal.
func progressOf(l *termline.Line) jobs.Status {
	if l == nil {
		return nil
	}
	return l
}
