package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
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

// runFlags are the flags of run and backfill.
func runFlags() []cli.Flag {
	return append(append(append(sourceFlags(), writerFlags()...), selectionFlags()...), progressIntervalFlag())
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

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "the nightly job: refresh the tracked shipments and the selected schedules for a logical date",
		Description: runDescription + `

Shipments given with --shipments join the tracked set. Each night the refresh policy asks those
due (--refresh adaptive, the default): one never observed at once; one whose ETA is at most 5
days away or past every night, 5 to 10 days every 2 nights, 10 to 20 every 3, further weekly
(--refresh-tiers, --refresh-every); once on the last night before its ETA comes within 14, 7, 3
and 1 days (--refresh-horizons); one discharged with its final destination to come every 3
nights; one arrived at its final place (POSTPOD actual, or POD actual without a POSTPOD) no more,
unless --grace. --refresh nightly asks every shipment not finished every night, with 72h of grace,
as etalake did before. With the balance reported, the tracking credits are paced over the period
(--pace): what the night's allowance does not cover is deferred, listed, and asked within twice
its interval. The dry run says how many shipments are due and why; data_freshness shows each
one's next due night and reason. A refresh policy that makes no sense is refused (exit 2):
--refresh-tiers 1 to 366 days, each tier further out than the one before, --refresh-every 1 to
60 nights, never more often further out, --refresh-horizons 1 to 60 days, --pace-reserve 0 to
90% or a count.

Schedule it once a day:
   15 2 * * *  ETALAKE_API_KEY_FILE=/etc/etalake/key etalake run --warehouse /srv/etalake --ports @/etc/etalake/ports.txt`,
		Flags: append(append(runFlags(), graceFlag("keep refreshing a shipment this long after it arrived at its final place")),
			refreshFlags()...),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
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
			billingFlag(),
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			var confirm func(jobs.Plan) bool
			if !c.Bool("yes") && !c.IsSet(flagMaxCredits) && isTerminal(os.Stdin) && isTerminal(os.Stderr) {
				confirm = func(p jobs.Plan) bool { return askToSpend(c.App.ErrWriter, jsonLog(c), os.Stdin, p) }
			}
			return runJob(c, "backfill", false, confirm)
		},
	}
}

// askToSpend shows the plan and reads yes or no. The job then spends at
// most what it asked (jobs.RunOptions.Confirm). With asJSON, the plan and
// the question are events, each a line of JSON.
func askToSpend(w io.Writer, asJSON bool, in io.Reader, p jobs.Plan) bool {
	low, high := p.ScheduleCredits()
	_, t := p.Spend()
	most := ""
	if low != high {
		most = fmt.Sprintf(" (no more than %d)", high)
	}
	question := fmt.Sprintf("Spend %s schedule credits%s and %d tracking calls? [y/N] ", creditRange(low, high), most, t)
	if asJSON {
		ev := slog.New(slog.NewJSONHandler(w, nil))
		ev.LogAttrs(context.Background(), slog.LevelInfo, "plan", planAttrs(p)...)
		ev.Info("confirm", "question", question)
	} else {
		writePlan(w, p)
		fmt.Fprint(w, question)
	}
	line, _ := bufio.NewReader(in).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runJob runs the nightly job or a backfill and maps its end to an exit
// code: its settings read and validated before anything is asked or
// opened, the client built, the warehouse opened, the job run, its end
// said.
func runJob(c *cli.Context, job string, track bool, confirm func(jobs.Plan) bool) error {
	status, log, err := runLogger(c)
	if err != nil {
		return err
	}
	opt, err := runOptions(c, job, track, log)
	if err != nil {
		return err
	}
	opt.Confirm, opt.Progress = confirm, progressOf(status)
	client, err := newClient(c, log, opt.CapSchedule, opt.CapTracking, opt.MaxBody)
	if err != nil {
		return err
	}
	if err := selectionURLs(c, client, opt.Selection.With(opt.Reask)); err != nil {
		return err
	}
	wh, err := openForRun(c, opt)
	if err != nil {
		return err
	}
	defer wh.Close()
	res, err := jobs.RunJob(c.Context, client, wh, opt)
	err = urlError(c, authHint(err, client.Auth()))
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	return sayRunEnd(c, job, res, misconfigHint(c, err))
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

// runOptions reads what a run asks and how (the selection, --reask, the
// bad input rows, the logical date, the caps, the limits, the refresh
// policy) into its options, and validates them (jobs.RunOptions.Validate):
// a setting out of range is refused before anything is asked or opened.
func runOptions(c *cli.Context, job string, track bool, log *slog.Logger) (jobs.RunOptions, error) {
	opt := jobs.RunOptions{Job: job, Track: track, DryRun: c.Bool("dry-run"), MaxReasks: c.Int(flagMaxReasks),
		ProgressEvery: c.Duration(flagProgressInterval), ReaskCommand: reaskCommand(c), Version: version, Log: log}
	sel, bad, err := selection(c)
	if err != nil {
		return opt, err
	}
	if opt.Reask, err = reaskFlag(c); err != nil {
		return opt, err
	}
	if opt.Skipped, err = skipBadRows(c, log, bad); err != nil {
		return opt, err
	}
	if !track && sel.Empty() && opt.Reask.Empty() {
		if len(bad) > 0 {
			return opt, usageErr{fmt.Errorf("backfill: every row of the selection is bad, nothing to ask:\n  %s", strings.Join(opt.Skipped, "\n  "))}
		}
		return opt, configError("backfill wants a selection: --ports, --lanes, --vessels, --shipments or --reask")
	}
	opt.Selection, opt.Warnings = sel, checkDigitWarnings(log, sel.Shipments)
	if opt.LogicalDate, err = logicalDate(c); err != nil {
		return opt, err
	}
	if opt.CapSchedule, opt.CapTracking, err = caps(c); err != nil {
		return opt, err
	}
	if opt.MaxBody, err = maxBody(c); err != nil {
		return opt, err
	}
	opt.Grace = c.Duration(flagGrace)
	if opt.Grace == 0 && c.IsSet(flagGrace) {
		opt.Grace = jobs.NoGrace // an explicit 0, not the mode's default
	}
	refresh, err := readRefresh(c)
	if err != nil {
		return opt, err
	}
	opt.Refresh, opt.ExitCodes = &refresh, exitCodes
	return opt, settingError(c, opt.Validate())
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

// progressOf is the run's status line: none without a terminal.
func progressOf(l *termline.Line) jobs.Status {
	if l == nil {
		return nil
	}
	return l
}
