package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
		&cli.Int64Flag{Name: flagMaxCredits, EnvVars: []string{"ETALAKE_MAX_CREDITS"}, DefaultText: "no cap but the balance", Usage: "spend at most N schedule credits, N 0 or more"},
		&cli.Int64Flag{Name: flagMaxTrackingCalls, EnvVars: []string{"ETALAKE_MAX_TRACKING_CALLS"}, DefaultText: "no cap but the balance", Usage: "make at most N paid tracking calls, N 0 or more"},
		&cli.BoolFlag{Name: "dry-run", Usage: "print the plan — requests, credits per product, time at the rate limit, balance after — without a paid call, and without writing anything: a missing warehouse is not created, an existing one is read as last published"},
		maxBodyFlag(),
		strictFlag(),
		&cli.IntFlag{Name: flagMaxReasks, EnvVars: []string{"ETALAKE_MAX_REASKS"}, Value: jobs.DefaultMaxReasks,
			Usage: "a 2xx answer that does not arrive whole (cut short, broken, not JSON) is asked at most twice more in the job, then kept and dead-lettered, and asked again by the next job of the date; " +
				"after N jobs (1 to 100) without it, or without its last page, the resource is given up for the date: the next jobs of the date ask it once more only when the service has answered its product well since " +
				"(a later job's answers of that product all whole, or this job's, asking it at the end); the summary, etl_runs.given_up and data_freshness name it with the command that asks it now (--reask)"},
		&cli.StringFlag{Name: flagReask, Usage: "ask these resources for the date once more, even if given up: as the summary, etl_runs.given_up and data_freshness name them — " +
			"port:NLRTM, p2p:CNSHA-NLRTM, vessel:9321483, shipment:CT:MSCU1234566[:SEALINE] — comma-separated; they join the selection, not the tracked set. " +
			"No ETALAKE_* variable: it is for one job, and set for good it would ask them in every job"},
	}
}

// reaskFlag reads --reask: every name must read, else nothing is asked
// (exit 2) — it is a command pasted from the summary, not an input list.
func reaskFlag(c *cli.Context) (jobs.Selection, error) {
	var sel jobs.Selection
	items, err := listItems(flagReask, c.String(flagReask))
	if err != nil {
		return sel, configError("%v", err)
	}
	for _, it := range items {
		one, err := jobs.ParseResource(it.text)
		if err != nil {
			return sel, configError("--%s: %v", flagReask, err)
		}
		sel = sel.With(one)
	}
	return sel, nil
}

// reaskCommand renders the command that asks resources again for a date,
// as the summary, etl_runs.given_up and data_freshness show it: a
// backfill of this warehouse that asks only them. The other settings
// (URLs, key) are the environment's, as for any job.
func reaskCommand(c *cli.Context) func(time.Time, []string) string {
	dir := c.String(flagWarehouse)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return func(day time.Time, names []string) string {
		return fmt.Sprintf("etalake backfill --warehouse %s --date %s --reask %s", shellQuote(dir), day.Format(time.DateOnly), strings.Join(names, ","))
	}
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and the path characters every shell leaves alone.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runFlags are the flags of run and backfill.
func runFlags() []cli.Flag {
	return append(append(append(sourceFlags(), writerFlags()...), selectionFlags()...), progressIntervalFlag())
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
	api, err := wire.ParseScheduleAPI(c.String(flagScheduleAPI))
	if err != nil {
		return sel, nil, configError("ETALAKE_SCHEDULE_API (--schedule-api): %v", err)
	}
	if sel.Vessels, more, err = parseVessels(c.String("vessels"), api); err != nil {
		return sel, nil, configError("%v", err)
	}
	bad = append(bad, more...)
	sel.Shipments, more, err = shipmentsFile(c.String("shipments"))
	return sel, append(bad, more...), err
}

// shipmentsFile reads the shipments CSV of --shipments; none when the path
// is empty.
func shipmentsFile(path string) ([]wire.ShipmentRef, badRows, error) {
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

// caps reads --max-credits and --max-tracking-calls.
func caps(c *cli.Context) (int64, int64, error) {
	s, err := readCap(c, flagMaxCredits)
	if err != nil {
		return 0, 0, err
	}
	t, err := readCap(c, flagMaxTrackingCalls)
	return s, t, err
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
	if err := selectionURLs(client, opt.Selection.With(opt.Reask)); err != nil {
		return err
	}
	wh, err := openForRun(c, opt)
	if err != nil {
		return err
	}
	defer wh.Close()
	res, err := jobs.RunJob(c.Context, client, wh, opt)
	err = urlError(authHint(err, client.Auth()))
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	return sayRunEnd(c, job, res, misconfigHint(err))
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

// graceFlag is --grace, with what it does for the command.
func graceFlag(usage string) cli.Flag {
	return &cli.DurationFlag{Name: flagGrace, EnvVars: []string{"ETALAKE_GRACE"}, Value: jobs.DefaultGrace,
		DefaultText: "none; 72h with --refresh nightly", Usage: usage + ", 0 to 366 days"}
}
