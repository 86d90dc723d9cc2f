package cli

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// trackChange is a command changing the tracked set: it reads the
// shipments, adds them (or with remove, removes them) as a job of its own
// (jobs.Track: recorded in etl_runs, published whole) and reports how
// many changed (and how many of those given did not) with summary.
func trackChange(name, usage, argsUsage string, remove bool, summary string) *cli.Command {
	return &cli.Command{
		Name:         name,
		Usage:        usage,
		ArgsUsage:    argsUsage,
		Flags:        append(writerFlags(), &cli.StringFlag{Category: catSelection, Name: "shipments", Usage: "a CSV FILE with shipment_number,shipment_type,sealine"}, strictFlag()),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			return changeTracked(c, name, remove, summary)
		},
	}
}

// changeTracked adds the shipments given to the tracked set, or with
// remove removes them (jobs.Track), and says how many changed.
func changeTracked(c *cli.Context, name string, remove bool, summary string) error {
	refs, bad, err := trackRefs(c)
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	skipped, err := skipBadRows(c, log, bad)
	if err != nil {
		return err
	}
	if len(refs) == 0 { // every shipment given is bad: refused input, as a backfill's
		return usageErr{fmt.Errorf("track %s: every shipment given is bad, nothing to change:\n  %s", name, strings.Join(skipped, "\n  "))}
	}
	checkDigitWarnings(log, refs)
	res, err := onWarehouse(c, func(wh *load.Warehouse) (jobs.TrackResult, error) {
		return jobs.Track(c.Context, wh, refs, jobs.TrackOptions{Remove: remove, Skipped: skipped, ExitCodes: exitCodes, Version: version, Log: log})
	})
	if err == nil || res.Changed > 0 { // the change is made, whatever the publish did
		sayTracked(c, name, summary, res, len(refs), skipped, jobExit(res.Verdict, err))
	}
	if err == nil && res.Verdict != jobs.VerdictOK {
		return ended{res.Verdict, fmt.Sprintf("track %s ended %s: %s", name, res.Run.Status, res.Run.StopReason)}
	}
	return err
}

// sayTracked says how many of the given shipments a track add or rm
// changed, the rows it skipped and the dead letters of responses it
// derived first.
func sayTracked(c *cli.Context, name, summary string, res jobs.TrackResult, given int, skipped []string, exit int) {
	if jsonLog(c) {
		level := slog.LevelInfo
		if exit != exitOK {
			level = slog.LevelWarn
		}
		events(c).LogAttrs(c.Context, level, "summary", slog.String("job", "track "+name), slog.String("run", res.Run.ID),
			slog.String("status", res.Run.Status), slog.Int("exit_code", exit), slog.Int("changed", res.Changed),
			slog.Int("unchanged", given-res.Changed), slog.Any("skipped", emptyList(skipped)), slog.Int("dead_letters", res.DeadLetters))
		return
	}
	fmt.Fprintf(c.App.Writer, summary, res.Changed, given-res.Changed)
	for _, b := range skipped {
		fmt.Fprintf(c.App.Writer, "  skipped %s\n", b)
	}
	if res.DeadLetters > 0 {
		fmt.Fprintf(c.App.Writer, "  dead    %s: kept in raw_responses, the reasons in dead_letters\n", jobs.DeadLetters(res.DeadLetters, res.Quarantined))
	}
}

// trackRefs reads shipments from arguments and --shipments. Bad ones are
// returned apart (each reported, see skipBadRows): the good ones go ahead.
func trackRefs(c *cli.Context) ([]wire.ShipmentRef, badRows, error) {
	if err := flagsFirst(c); err != nil {
		return nil, nil, err
	}
	var refs []wire.ShipmentRef
	var bad badRows
	for i, a := range c.Args().Slice() {
		parts := strings.SplitN(a, ":", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		ref, err := extract.ParseShipmentRef(parts[0], parts[1], parts[2])
		if err != nil {
			bad = append(bad, badRow{fmt.Sprintf("argument %d (%s)", i+1, a), err.Error()})
			continue
		}
		refs = append(refs, ref)
	}
	more, badMore, err := shipmentsFile(c.String("shipments"))
	if err != nil {
		return nil, nil, err
	}
	refs, bad = append(refs, more...), append(bad, badMore...)
	if len(refs) == 0 && len(bad) == 0 {
		return nil, nil, configError("no shipment given: want NUMBER[:TYPE[:SEALINE]] arguments or --shipments FILE.csv")
	}
	return refs, bad, nil
}
