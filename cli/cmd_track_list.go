package cli

import (
	"fmt"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// trackListCommand lists the tracked set.
func trackListCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the tracked set with each shipment's state (active, finished, removed)",
		Flags: append(warehouseFlags(),
			&cli.BoolFlag{Category: catSelection, Name: "all", Usage: "include removed shipments"},
			graceFlag("as for run: how long after arrival a shipment is still active"),
		),
		OnUsageError: usageError,
		Action:       listTracked,
	}
}

// listTracked lists the tracked set as the published warehouse holds it,
// each shipment's state as of now with the grace given.
func listTracked(c *cli.Context) error {
	grace := c.Duration(flagGrace)
	if err := jobs.ValidateGrace(grace); err != nil {
		return settingError(c, err)
	}
	db, err := openReader(c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := load.ReadTracked(c.Context, db)
	if err != nil {
		return err
	}
	list := jobs.TrackedAsOf(rows, time.Now().UTC(), grace)
	if jsonLog(c) {
		return trackedEvents(c, list)
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SHIPMENT\tTYPE\tSEALINE\tSTATE\tADDED\tARRIVED\tLAST OBSERVED")
	n := 0
	for _, t := range list {
		if t.State == jobs.TrackRemoved && !c.Bool("all") {
			continue
		}
		n++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Ref.Number, t.Ref.Type, dash(t.Ref.Sealine), t.State,
			t.AddedAt.Format(time.DateOnly), timeOrDash(t.Arrived), timeOrDash(t.LastObserved))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "(%d shipments)\n", n)
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// trackedEvents writes the tracked set as JSON, a "shipment" event each,
// then a "summary" with the count (--log-format json).
func trackedEvents(c *cli.Context, list []jobs.Tracked) error {
	ev := events(c)
	n := 0
	for _, t := range list {
		if t.State == jobs.TrackRemoved && !c.Bool("all") {
			continue
		}
		n++
		ev.LogAttrs(c.Context, slog.LevelInfo, "shipment", slog.String("shipment_number", t.Ref.Number), slog.String("shipment_type", string(t.Ref.Type)),
			slog.String("sealine", t.Ref.Sealine), slog.String("state", t.State), slog.Time("added_at", t.AddedAt.UTC()),
			slog.Any("arrived", utcOrNil(t.Arrived)), slog.Any("last_observed", utcOrNil(t.LastObserved)))
	}
	ev.LogAttrs(c.Context, slog.LevelInfo, "summary", slog.String("job", "track list"), slog.Int("shipments", n))
	return nil
}

func utcOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC()
}
