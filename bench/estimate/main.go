package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
)

// variant is one world's ETA errors: the defaults with one setting moved.
type variant struct {
	name   string
	errors func(*sim.ETAErrors)
}

var variants = []variant{
	{"default", func(*sim.ETAErrors) {}},
	{"drift-off", func(e *sim.ETAErrors) { e.DriftH = 0 }},
	{"drift-high", func(e *sim.ETAErrors) { e.DriftH = 18 }},
	{"tails-off", func(e *sim.ETAErrors) { e.TailsDF = 0 }},
	{"tails-heavy", func(e *sim.ETAErrors) { e.TailsDF = 2.5 }},
	{"lane-off", func(e *sim.ETAErrors) { e.LaneBiasH = 0 }},
	{"lane-high", func(e *sim.ETAErrors) { e.LaneBiasH = 24 }},
}

type config struct {
	seeds           []int64
	days, shipments int
	variants        []variant
	keep            string
	// again judges the warehouses kept under keep without building them:
	// each opened, its estimate and analytics recomputed whole by the code
	// as it is now (a change of the model tried on the same nights).
	again bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err == nil {
		err = run(ctx, c, os.Stdout, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "estimate:", err)
		os.Exit(1)
	}
}

func parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("estimate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: go run -tags duckdb_arrow ./bench/estimate [flags]\n\nThe arrival estimate's benchmark (issue 43); see bench/estimate/doc.go.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	seeds := fs.String("seeds", "11,12,13", "seeds of the simulated worlds, comma-separated")
	names := fs.String("variants", "all", "worlds to run, comma-separated, of "+variantNames()+" (all: every one)")
	fs.IntVar(&c.days, "days", 90, "nights of each world, one nightly job each (60 to 90 for the issue's acceptance)")
	fs.IntVar(&c.shipments, "shipments", 800, "shipments in each world")
	fs.StringVar(&c.keep, "keep", "", "build the warehouses under this `directory` and keep them (default: a temporary directory, removed)")
	fs.BoolVar(&c.again, "again", false, "judge the warehouses an earlier run kept under -keep again, their estimates recomputed whole by the code as it is now, without running their nights (minutes instead of half an hour: a change of the model tried on the same worlds)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.again && c.keep == "" {
		return c, errors.New("-again judges the warehouses of an earlier -keep: give -keep DIR")
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q (see -h)", fs.Args())
	}
	for _, s := range strings.Split(*seeds, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return c, fmt.Errorf("-seeds: %q is not an integer: want a list such as 11,12,13", s)
		}
		c.seeds = append(c.seeds, n)
	}
	if *names == "all" {
		c.variants = variants
		return c, nil
	}
	for _, n := range strings.Split(*names, ",") {
		v, ok := variantNamed(strings.TrimSpace(n))
		if !ok {
			return c, fmt.Errorf("-variants: %q: want some of %s", n, variantNames())
		}
		c.variants = append(c.variants, v)
	}
	return c, nil
}

func variantNamed(n string) (variant, bool) {
	for _, v := range variants {
		if v.name == n {
			return v, true
		}
	}
	return variant{}, false
}

func variantNames() string {
	var out []string
	for _, v := range variants {
		out = append(out, v.name)
	}
	return strings.Join(out, ", ")
}

func run(ctx context.Context, c config, out, progress io.Writer) error {
	work := c.keep
	if work == "" {
		tmp, err := os.MkdirTemp("", "etalake-estimate-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	fmt.Fprintf(out, "# bench/estimate: %d nights, %d shipments, seeds %v\n\n", c.days, c.shipments, c.seeds)
	for _, v := range c.variants {
		var rows []row
		errs := sim.DefaultETAErrors()
		v.errors(&errs)
		for _, seed := range c.seeds {
			dir := filepath.Join(work, fmt.Sprintf("%s-%d", v.name, seed))
			if err := build(ctx, c, dir, seed, errs, progress); err != nil {
				return fmt.Errorf("%s seed %d: %w", v.name, seed, err)
			}
			rs, err := read(ctx, filepath.Join(dir, ".work", "etalake.duckdb"), seed)
			if err != nil {
				return fmt.Errorf("%s seed %d: %w", v.name, seed, err)
			}
			rows = append(rows, rs...)
		}
		report(out, v.name, errs, rows)
	}
	return nil
}

// build runs the nights of the world of seed and errs into dir, or with
// c.again recomputes the estimate and analytics of the warehouse an
// earlier run left there, and publishes them (etalake sql reads them).
func build(ctx context.Context, c config, dir string, seed int64, errs sim.ETAErrors, progress io.Writer) error {
	if c.again {
		fmt.Fprintf(progress, "%s: the estimate recomputed whole…\n", dir)
		w, err := load.Open(ctx, dir, load.DefaultOptions())
		if err != nil {
			return err
		}
		err = w.RefreshAnalytics(ctx)
		if err == nil {
			_, err = w.Publish(ctx)
		}
		return errors.Join(err, w.Close())
	}
	fmt.Fprintf(progress, "%s: %d nights…\n", dir, c.days)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	_, err := jobs.Demo(ctx, jobs.DemoOptions{Days: c.days, Dir: dir, Seed: seed, Shipments: c.shipments, ETAErrors: &errs})
	return err
}

// read reads a warehouse's rows of eta_accuracy where etalake's estimate
// and the carrier's ETA are both usable, with the predictive ETA's error
// where it is usable and not selective, the estimate's intervals and what
// it learned from.
func read(ctx context.Context, path string, seed int64) ([]row, error) {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rs, err := db.QueryContext(ctx, `
SELECT m.carrier, m.horizon_days, m.vessel_call, m.error_hours, c.error_hours, p.error_hours,
       e.lo_80 IS NOT NULL,
       coalesce(m.actual_at BETWEEN e.lo_80 AND e.hi_80, false), coalesce(m.actual_at BETWEEN e.lo_95 AND e.hi_95, false),
       coalesce(TRY_CAST(regexp_extract(e.basis, 'carrier ([0-9]+)', 1) AS INTEGER), 0)
FROM eta_accuracy AS m
JOIN eta_accuracy AS c
  ON c.shipment_number = m.shipment_number AND c.shipment_type = m.shipment_type AND c.target = m.target
 AND c.horizon_days = m.horizon_days AND c.source = 'CARRIER'
LEFT JOIN eta_accuracy AS p
  ON p.shipment_number = m.shipment_number AND p.shipment_type = m.shipment_type AND p.target = m.target
 AND p.horizon_days = m.horizon_days AND p.source = 'PREDICTIVE' AND NOT p.selective
LEFT JOIN arrival_estimates AS e
  ON e.shipment_number = m.shipment_number AND e.shipment_type = m.shipment_type AND e.target = m.target
 AND e.observed_at = m.observed_at
WHERE m.source = 'ETALAKE' AND m.error_hours IS NOT NULL AND c.error_hours IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		var call string
		var pe sql.NullFloat64
		if err := rs.Scan(&r.carrier, &r.horizon, &call, &r.mine, &r.carrierErr, &pe, &r.hasInterval, &r.in80, &r.in95, &r.learned); err != nil {
			return nil, err
		}
		r.call = fmt.Sprintf("%d %s", seed, call)
		r.predictive, r.hasPredictive = pe.Float64, pe.Valid
		out = append(out, r)
	}
	return out, rs.Err()
}
