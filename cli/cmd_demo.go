package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/report"
	"github.com/etalake/etalake/wire"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "build a warehouse from a simulated service, one nightly run per virtual day; nothing to configure",
		Description: "Starts the service simulator in-process on loopback, tracks the shipments it books, and runs\n" +
			"the nightly job for each virtual day, with the schedules of a few busy ports, lanes and vessels.\n" +
			"The warehouse it builds is a real one: query it with `etalake sql --warehouse DIR`.\n" +
			"A previous demo's warehouse in DIR is rebuilt: its readers see it until the new demo publishes.\n" +
			"Any other warehouse is refused.\n" +
			"It ends with the report of the warehouse (see `etalake report --help`), also written as a web\n" +
			"page next to it: DIR-report.html.",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Category: catWorld, Name: "days", Value: 30, Usage: "virtual days to run"},
			&cli.StringFlag{Category: catWarehouse, Name: flagWarehouse, Value: "./etalake-demo", Usage: "the warehouse directory to build"},
			memoryLimitFlag(),
			lockTimeoutFlag(),
			threadsFlag(),
			&cli.Int64Flag{Category: catWorld, Name: "seed", Value: 1, Usage: "seed of the simulated world"},
			&cli.IntFlag{Category: catWorld, Name: "shipments", Value: 400, Usage: "shipments in the simulated world"},
			&cli.StringFlag{Category: catService, Name: flagScheduleAPI, Value: string(wire.ScheduleAPIService), Usage: "the contract the simulated schedule product speaks: service, or dcsa-cs-1.0 (DCSA Commercial Schedules 1.0, in pages)"},
			&cli.IntFlag{Category: catService, Name: flagPageSize, Value: 0, Usage: "with dcsa-cs-1.0: the simulator's most items per page (0: the standard's default limit, 100)"},
			&cli.StringFlag{Category: catRefresh, Name: flagRefresh, Value: string(jobs.RefreshAdaptive), Usage: "the nightly run's refresh policy: adaptive (the default: see etalake run --help) or nightly (every tracked shipment every night, as etalake did before); the demo says each night's tracking calls"},
			demoLakeFlag(),
		}, append(etaErrorFlags(), append(adaptiveFlags(false), logFlags()...)...)...),
		OnUsageError: usageError,
		Action:       demo,
	}
}

// demo validates the demo's settings, runs its nights (jobs.Demo), saying
// each, and ends with the report of the warehouse it built.
func demo(c *cli.Context) error {
	opt, err := demoOptions(c)
	if err != nil {
		return err
	}
	lakeCfg, err := demoLake(c, opt.Dir, &opt.Warehouse)
	if err != nil {
		return err
	}
	res, err := jobs.Demo(c.Context, opt)
	if errors.Is(err, jobs.ErrNotADemo) || errors.Is(err, load.ErrPull) {
		return usageErr{err}
	}
	if err != nil {
		return err
	}
	ro := readOptions(opt.Log, false)
	if jsonLog(c) {
		return demoSummary(c, res, opt.Warehouse, ro)
	}
	fmt.Fprintf(c.App.Writer, "demo: %d nights to %s in %s: %d requests, %d schedule credits, %d tracking calls\n",
		res.Days, res.Simulated.Format(time.DateOnly), res.Elapsed.Round(time.Millisecond), res.Requests, res.Schedule, res.Tracking)
	fmt.Fprintf(c.App.Writer, "demo: rows loaded: %s\n\n", rowsSummary(res.Rows))
	err = writeReport(c.Context, res.Dir, opt.Warehouse, ro, c.App.Writer, demoReportPath(res.Dir), time.Now())
	if errors.Is(err, report.ErrNothingToReport) {
		fmt.Fprintf(c.App.Writer, "demo: no report: %v; run more --days\n", err)
	} else if err != nil {
		return err
	}
	fmt.Fprintln(c.App.Writer)
	fmt.Fprintf(c.App.Writer, "demo: warehouse %s — try:\n  etalake sql --warehouse %s \"SELECT carrier, count(*) FROM port_calls GROUP BY ALL ORDER BY 2 DESC\"\n",
		res.Dir, res.Dir)
	sayDemoLake(c.App.Writer, lakeCfg)
	return nil
}

// demoOptions reads the demo's flags into its options and validates them
// (jobs.DemoOptions.Validate, load.Options.Validate) before anything is
// started or written.
func demoOptions(c *cli.Context) (jobs.DemoOptions, error) {
	api, err := wire.ParseScheduleAPI(c.String(flagScheduleAPI))
	if err != nil {
		return jobs.DemoOptions{}, configError("--schedule-api: %v", err)
	}
	refresh, err := readRefresh(c)
	if err != nil {
		return jobs.DemoOptions{}, err
	}
	opt := jobs.DemoOptions{
		Days: c.Int("days"), Dir: c.String(flagWarehouse), Seed: c.Int64("seed"), Shipments: c.Int("shipments"),
		ScheduleAPI: api, PageSize: c.Int(flagPageSize), Refresh: &refresh, Version: version, ETAErrors: etaErrors(c),
		ExitCodes: exitCodes,
	}
	if err := opt.Validate(); err != nil {
		return opt, settingError(c, err)
	}
	if opt.Warehouse, err = warehouseOptions(c); err != nil {
		return opt, err
	}
	// The demo's own lines say what each night did: only warnings go to
	// the log.
	if opt.Log, err = newLoggerAt(c, slog.LevelWarn); err != nil {
		return opt, err
	}
	opt.Warehouse.Waiting = sayWaiting(opt.Log, opt.Warehouse.LockTimeout)
	opt.Began = func(d jobs.DemoSetup) { sayDemoBegan(c, d, policySaid(c, refresh.Mode)) }
	opt.Night = func(n jobs.DemoNight) { sayDemoNight(c, n) }
	return opt, nil
}

// sayDemoBegan says what the demo runs against and asks each night.
func sayDemoBegan(c *cli.Context, d jobs.DemoSetup, policy string) {
	if jsonLog(c) {
		events(c).LogAttrs(c.Context, slog.LevelInfo, "demo: began", slog.String("url", d.URL), slog.Int("shipments", d.Shipments),
			slog.Int("carriers", d.Carriers), slog.Int("days", d.Days), slog.String("from", d.Start.Format(time.DateOnly)),
			slog.Int("ports", d.Ports), slog.Int("lanes", d.Lanes), slog.Int("vessels", d.Vessels))
		return
	}
	days := fmt.Sprintf("%d days", d.Days)
	if d.Days == 1 {
		days = "1 day"
	}
	fmt.Fprintf(c.App.Writer, "demo: simulated service on %s, %d shipments, %d carriers; %s from %s\n",
		d.URL, d.Shipments, d.Carriers, days, d.Start.Format(time.DateOnly))
	fmt.Fprintf(c.App.Writer, "demo: each night: schedules of %d ports, %d lanes, %d vessels, and the tracked shipments due (%s)\n",
		d.Ports, d.Lanes, d.Vessels, policy)
}

// policySaid is the refresh policy as the command line set it: the mode,
// and each adaptive setting given, so that two demos' lines say how
// their policies differ.
func policySaid(c *cli.Context, mode jobs.RefreshMode) string {
	said := "--refresh " + string(mode)
	for _, f := range adaptiveFlags(false) {
		if name := f.Names()[0]; c.IsSet(name) {
			said += " --" + name + " " + c.String(name)
		}
	}
	return said
}

// sayDemoNight says what one night's run did.
func sayDemoNight(c *cli.Context, n jobs.DemoNight) {
	if jsonLog(c) {
		events(c).LogAttrs(c.Context, endLevel(n.Status), "demo: night", slog.String("date", n.Date.Format(time.DateOnly)), slog.String("status", n.Status),
			slog.Int64("requests", n.Requests), slog.Int64("schedule_credits", n.Schedule), slog.Int64("tracking_calls", n.Tracking),
			slog.Int64("rows", n.Rows), slog.Float64("took_seconds", n.Took.Round(time.Millisecond).Seconds()))
		return
	}
	fmt.Fprintf(c.App.Writer, "  %s  %-7s %4d requests  %3d schedule credits  %3d tracking calls  %6d rows  %5s\n",
		n.Date.Format(time.DateOnly), n.Status, n.Requests, n.Schedule, n.Tracking, n.Rows, n.Took.Round(time.Millisecond))
}

// demoReportPath is where the demo writes its report page: next to the
// warehouse, ./etalake-demo-report.html for ./etalake-demo.
func demoReportPath(dir string) string {
	clean := filepath.Clean(dir)
	if base := filepath.Base(clean); base == "." || base == ".." || base == string(filepath.Separator) {
		if abs, err := filepath.Abs(clean); err == nil {
			clean = abs
		}
	}
	p := clean + "-report.html"
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, ".") {
		p = "." + string(filepath.Separator) + p
	}
	return p
}

// demoSummary writes the report page and says what the demo did as a
// "summary" event (--log-format json): the report's text is for people.
func demoSummary(c *cli.Context, res jobs.DemoResult, opt load.Options, ro load.ReadOptions) error {
	page := demoReportPath(res.Dir)
	err := writeReport(c.Context, res.Dir, opt, ro, io.Discard, page, time.Now())
	if errors.Is(err, report.ErrNothingToReport) {
		page = ""
	} else if err != nil {
		return err
	}
	events(c).LogAttrs(c.Context, slog.LevelInfo, "summary", slog.String("job", "demo"), slog.Int("exit_code", exitOK),
		slog.Int("nights", res.Days), slog.String("to", res.Simulated.Format(time.DateOnly)), slog.Float64("took_seconds", res.Elapsed.Round(time.Millisecond).Seconds()),
		slog.Int64("requests", res.Requests), slog.Int64("schedule_credits", res.Schedule), slog.Int64("tracking_calls", res.Tracking),
		slog.Any("rows", orEmpty(res.Rows)), slog.String("warehouse", res.Dir), slog.String("report", page))
	return nil
}
