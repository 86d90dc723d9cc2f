package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/load"
)

func lakePullCommand() *cli.Command {
	return &cli.Command{
		Name:  "pull",
		Usage: "build at --warehouse DIR one warehouse of the whole lake: every writer's rows merged, with the analytic views",
		Description: "Reads the current snapshot of every lake table (etl_runs first: every run the pull holds has its rows\n" +
			"in it) and builds at DIR the warehouse that one worker would hold had it landed every writer's\n" +
			"responses: each table merged by its kind, as a warehouse merges what it loads —\n" +
			"  append tables (eta_observations, event_observations, port_calls, consumption_periods, dead_letters):\n" +
			"    one row per key, whichever writers saw it;\n" +
			"  latest tables (shipments, containers, container_events): the newest observation's values, the\n" +
			"    first observation of any writer;\n" +
			"  dimensions (locations, facilities, vessels): each attribute from the latest observation that gave it;\n" +
			"  etl_runs: every writer's runs; tracked_shipments: one row per shipment, the union of the writers'\n" +
			"    tracked sets (of two workers tracking one shipment, the row of the one that tracks it now and\n" +
			"    added it first; removed only when every worker removed it: the row of the last removal).\n" +
			"Then it builds the analytic tables and views, the Parquet mirror, and publishes the database as a\n" +
			"job does: etalake sql, report and notebooks on DIR see the previous pull or this one whole, never\n" +
			"one half built. The table lake_pull says what it read: per table, the snapshot id and commit time,\n" +
			"the writers, rows read and rows kept (cite the snapshot ids for the moment the numbers are of).\n\n" +
			"raw_responses is not in the lake: the pull has none. The view over it is then partial there:\n" +
			"data_freshness has no hours_behind_newest (NULL), its is_stale is NULL for an active shipment once\n" +
			"observed, and it lists no resource given up outside the tracked set. Every other view reads the\n" +
			"contract tables and equals the view of one warehouse holding everything.\n\n" +
			"DIR is the pull's own: a worker's warehouse is refused (exit 2), never written over, and run,\n" +
			"backfill, replay, import, track and demo refuse a pull's (exit 2). A second pull to DIR reads only\n" +
			"what changed since the first: per table, the data files added and removed since the snapshot the\n" +
			"last pull read and the rows the new position delete files delete (the read column says changes);\n" +
			"a table whose snapshot is no longer in the lake's history (expired by lake maintain), or another\n" +
			"lake, is read whole. --full reads every table whole. Run it after the fleet's night, when the\n" +
			"workers have committed (a CronJob after theirs).",
		Flags: append(append(append(warehouseFlags(), lockTimeoutFlag(), threadsFlag()), lakeFlags()...),
			&cli.BoolFlag{Category: catWarehouse, Name: "full", Usage: "read every lake table whole, not what changed since the last pull (the first pull to DIR always does)"}),
		OnUsageError: usageError,
		Action:       runLakePull,
	}
}

// runLakePull builds the pull, publishes it, and says what it read.
func runLakePull(c *cli.Context) error {
	if c.NArg() > 0 {
		return configError("lake pull takes no argument (got %q); the pull's directory is --warehouse DIR", c.Args().First())
	}
	opt, err := writerOptions(c)
	if err != nil {
		return err
	}
	lk, err := needLake(c)
	if err != nil {
		return err
	}
	defer lk.Close()
	opt.Pull = true
	start := time.Now()
	wh, err := load.Open(c.Context, c.String(flagWarehouse), opt)
	if errors.Is(err, load.ErrNotPull) {
		return usageErr{err}
	}
	if err != nil {
		return err
	}
	defer wh.Close()
	pulled, err := lk.Pull(c.Context, wh, time.Now, c.Bool("full"))
	if err != nil {
		return err
	}
	st, err := wh.Publish(c.Context)
	if err != nil {
		return err
	}
	if err := wh.Close(); err != nil {
		return err
	}
	sayPull(c, wh.Dir(), lk.Config().Warehouse, pulled, st, time.Since(start))
	return nil
}

// sayPull prints what the pull read and built.
func sayPull(c *cli.Context, dir, lakeFiles string, pulled []load.Pulled, st load.PublishStats, took time.Duration) {
	out := c.App.Writer
	writers := map[int64]bool{}
	for _, p := range pulled {
		for wr := range p.Read {
			writers[wr] = true
		}
	}
	fmt.Fprintf(out, "lake pull: %s from the lake %s: %d tables, %d writers, in %s\n", dir, lakeFiles, len(pulled), len(writers), took.Round(time.Millisecond))
	w := tabwriter.NewWriter(out, 0, 2, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "table\tsnapshot\tcommitted\tread\twriters\trows read\trows\t")
	for _, p := range pulled {
		snap, at := "-", "no commit yet"
		if p.Snapshot != 0 {
			snap, at = fmt.Sprint(p.Snapshot), p.At.Format(time.RFC3339)
		}
		var read int64
		for _, n := range p.Read {
			read += n
		}
		how := "changes"
		if p.Whole {
			how = "whole"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t\n", p.Table, snap, at, how, len(p.Read), read, p.Rows)
	}
	_ = w.Flush()
	var ids []string
	for wr := range writers {
		ids = append(ids, fmt.Sprint(wr))
	}
	slices.Sort(ids)
	if len(ids) > 0 {
		fmt.Fprintf(out, "writers (etalake_writer): %s\n", strings.Join(ids, ", "))
	}
	fmt.Fprintf(out, "published: %s/etalake.duckdb (version %d) and its Parquet mirror; the snapshots read are in its table lake_pull.\n", dir, st.Version)
	fmt.Fprintf(out, "took: reading the lake %s, the analytic tables %s, the mirror %s (%d partitions, %d rows written), the version %s.\n",
		(took - st.Took).Round(time.Millisecond), st.RefreshTook.Round(time.Millisecond), st.MirrorTook.Round(time.Millisecond),
		st.Mirror.Written+st.Mirror.Removed, st.Mirror.Rows, st.SwapTook.Round(time.Millisecond))
	fmt.Fprintln(out, "raw_responses is not in the lake: the pull has none, so data_freshness is partial there (etalake lake pull --help).")
}
