package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/report"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "print the ETA accuracy and schedule reliability report of the warehouse (--html: also as a web page)",
		Description: "Reads the analytic views of <warehouse>/etalake.duckdb, read-only, and prints five tables,\n" +
			"each number with its 95 % interval (clustered by vessel call, or by vessel for schedules):\n" +
			"   1. Carrier ranking: carriers by the mean absolute error (MAE) of the ETA they gave 3 days before\n" +
			"      the box arrived at its port of discharge, with the bias (mean of actual − ETA: positive means\n" +
			"      later than promised), the 90th percentile of the absolute error and the share within ±1 day.\n" +
			"      A carrier ranks above another only when its MAE is lower by more than the margin of the\n" +
			"      difference; carriers nothing separates share a rank (=2). Carriers with fewer than 5 distinct\n" +
			"      vessel calls are listed, unranked.\n" +
			"   2. Error by horizon: the MAE of each carrier's ETA given 1, 3, 7 and 14 days before arrival, and\n" +
			"      how long before arrival the ETAs used were really seen (stale ones are not used).\n" +
			"   3. Predictive vs carrier: the service's predictive ETA against the carrier's on the same\n" +
			"      shipments, only where both exist by design (1 day: further out the predictive ETA exists only\n" +
			"      for the shipments it expects early), with a verdict only when the difference is clear.\n" +
			"   4. Schedule reliability: port calls on time (arrived within ±24 h of the first planned arrival\n" +
			"      seen), late (calls already 24 h late counted, arrived or not), early, and pending, per carrier.\n" +
			"   5. The same by month, a month not over yet flagged incomplete.\n" +
			"Then what the runs spent. --html FILE also writes the report as one self-contained page (no\n" +
			"network, no script) with charts of the error by horizon, its distribution and the on-time share.\n" +
			"A section whose data does not exist yet (no arrival, no port call) says what is missing; with\n" +
			"neither, the report fails (exit 1) saying so.",
		Flags: append(warehouseFlags(),
			&cli.StringFlag{Category: catOutput, Name: "html", Usage: "also write the report as an HTML page to `FILE` (replaced atomically)"},
		),
		OnUsageError: usageError,
		Action:       reportOnWarehouse,
	}
}

// reportOnWarehouse writes the accuracy report of the published warehouse,
// and its web page when --html asks.
func reportOnWarehouse(c *cli.Context) error {
	if c.NArg() > 0 {
		return configError("report takes no argument (got %q); the warehouse is --warehouse DIR", c.Args().First())
	}
	html := c.String("html")
	if html != "" {
		if fi, err := os.Stat(filepath.Dir(html)); err != nil || !fi.IsDir() {
			return configError("--html %s: no directory %s to write it in", html, filepath.Dir(html))
		}
	}
	opt, err := warehouseOptions(c)
	if err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	return writeReport(c.Context, c.String(flagWarehouse), opt, readOptions(log, false), c.App.Writer, html, time.Now())
}

// writeReport prints the report of the warehouse in dir, read with ro, to
// out and, when html is not "", writes its page there, saying it was made
// at made by this etalake, and says so. A
// warehouse that is missing, busy or without views is a usage error (exit
// 2).
func writeReport(ctx context.Context, dir string, opt load.Options, ro load.ReadOptions, out io.Writer, html string, made time.Time) error {
	db, err := openReaderWith(ctx, dir, opt, ro)
	if err != nil {
		return err
	}
	r, err := report.Build(ctx, db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, report.ErrNoViews) {
		return usageErr{err}
	}
	if err != nil {
		return err
	}
	r.Warehouse, r.Made, r.Version = dir, made, releaseVersion()
	if err := r.WriteText(out); err != nil {
		return err
	}
	if html == "" {
		return nil
	}
	if err := writeFileAtomic(html, r.WriteHTML); err != nil {
		return fmt.Errorf("report: writing %s: %w", html, err)
	}
	fmt.Fprintf(out, "\nreport: wrote %s\n", html)
	return nil
}

// writeFileAtomic writes path through a temp file in its directory and a
// rename, so that a reader sees the old file or the new one, never half.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
