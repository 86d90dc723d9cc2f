package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/sim"
)

// config is the command line.
type config struct {
	seeds     []int64
	nights    int
	shipments int
	jumps     []bool
	policies  []policy
	boot      int
	paceShare float64
	keep      string
	verbose   bool
	args      []string
}

const usageHead = `Usage: go run -tags duckdb_arrow ./bench/pacing [flags]

The refresh policy's benchmark: for each seed, the simulator's world over
-nights nights, one warehouse per policy — nightly (+grace), adaptive,
adaptive paced at half of nightly's spend (-pace-share), adaptive with webhooks — each
night's run (jobs.RunJob) in-process against the simulator; then the
credits spent and what the warehouse knew, judged against the world's
truth, and the issue's acceptance. It prints a Markdown report for
BENCHMARKS.md. See bench/pacing/doc.go for the metrics.

Examples:
    go run -tags duckdb_arrow ./bench/pacing -seeds 7,8 -nights 60
    go run -tags duckdb_arrow ./bench/pacing -seeds 7 -nights 20 -policies adaptive

Flags:
`

func parse(args []string, stderr io.Writer) (config, error) {
	c := config{args: args}
	fs := flag.NewFlagSet("pacing", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usageHead)
		fs.PrintDefaults()
	}
	seeds := fs.String("seeds", "7,8", "seeds of the simulated worlds, comma-separated")
	jumps := fs.String("jumps", "on", "the worlds' jumps (rolled boxes, omitted calls, swapped vessels): on, off or both")
	pols := fs.String("policies", "all", "policies to run, comma-separated, of nightly, adaptive, paced, webhooks (nightly always runs: the others are judged against it)")
	fs.IntVar(&c.nights, "nights", 60, "nights to run, one nightly job each")
	fs.IntVar(&c.shipments, "shipments", 400, "shipments in each world; each is tracked from the night it is booked")
	fs.Float64Var(&c.paceShare, "pace-share", 0.5, "the paced policy's allowance over the run, a share of nightly's spend on the same world: more than 0, at most 1")
	fs.IntVar(&c.boot, "boot", 2000, "bootstrap draws per carrier and horizon (0: none)")
	fs.StringVar(&c.keep, "keep", "", "write the warehouses under this `directory` and keep them (default: a temporary directory, removed)")
	fs.BoolVar(&c.verbose, "v", false, "log the runs' warnings and errors to standard error")
	guard := jobs.DefaultGuard()
	fs.IntVar(&guard.Below, "guard-below", guard.Below, "the adaptive policies' horizon guard (etalake's --refresh-guard below=): days below a horizon")
	fs.IntVar(&guard.Above, "guard-above", guard.Above, "the guard's days above a horizon (--refresh-guard above=)")
	fs.IntVar(&guard.Every, "guard-every", guard.Every, "the guard's nights between asks at most (--refresh-guard every=)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q (see -h)", fs.Args())
	}
	for _, s := range strings.Split(*seeds, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return c, fmt.Errorf("-seeds: %q is not an integer: want a list such as 7,8", s)
		}
		c.seeds = append(c.seeds, n)
	}
	switch *jumps {
	case "on":
		c.jumps = []bool{true}
	case "off":
		c.jumps = []bool{false}
	case "both":
		c.jumps = []bool{true, false}
	default:
		return c, fmt.Errorf("-jumps: %q: want on, off or both", *jumps)
	}
	var err error
	if c.policies, err = choosePolicies(*pols); err != nil {
		return c, err
	}
	switch {
	case c.nights < 2 || c.nights > 300:
		return c, fmt.Errorf("-nights %d: want 2 to 300", c.nights)
	case c.shipments < 1 || c.shipments > 20_000:
		return c, fmt.Errorf("-shipments %d: want 1 to 20000", c.shipments)
	case c.boot < 0:
		return c, fmt.Errorf("-boot %d: want 0 or more draws", c.boot)
	case !(c.paceShare > 0 && c.paceShare <= 1):
		return c, fmt.Errorf("-pace-share %g: want a share of nightly's spend, more than 0 and at most 1 (0.5: half)", c.paceShare)
	}
	for i := range c.policies {
		c.policies[i].Share = c.paceShare
		c.policies[i].Refresh.Guard = guard
		if err := c.policies[i].Refresh.Validate(); err != nil {
			return c, fmt.Errorf("-guard-below, -guard-above, -guard-every: %v", err)
		}
	}
	return c, nil
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
		fmt.Fprintln(os.Stderr, "pacing:", err)
		os.Exit(1)
	}
}

// world is one seed and jumps setting, and every policy's outcome on it.
type world struct {
	Seed     int64
	Jumps    bool
	Outcomes []*outcome // nightly first
}

func run(ctx context.Context, c config, out, progress io.Writer) error {
	work := c.keep
	if work == "" {
		tmp, err := os.MkdirTemp("", "etalake-pacing-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	}
	began := time.Now()
	worlds, err := trials(ctx, c, work, progress)
	if err != nil {
		return err
	}
	return report(out, c, worlds, time.Since(began))
}

// trials runs every policy on every world, a warehouse each under work,
// saying each one's credits on progress as it ends.
func trials(ctx context.Context, c config, work string, progress io.Writer) ([]world, error) {
	level := slog.LevelError + 1 // nothing
	if c.verbose {
		level = slog.LevelWarn
	}
	log := slog.New(slog.NewTextHandler(progress, &slog.HandlerOptions{Level: level}))
	var worlds []world
	for _, jumps := range c.jumps {
		for _, seed := range c.seeds {
			w := sim.NewWorld(sim.WorldConfig{Seed: seed, Days: c.nights + 7, Shipments: c.shipments, NoJumps: !jumps})
			wd := world{Seed: seed, Jumps: jumps}
			for _, p := range c.policies {
				t := trial{Policy: p, World: w, Seed: seed, Jumps: jumps, Nights: c.nights, Credits: plentyCredits, Log: log,
					Dir: filepath.Join(work, fmt.Sprintf("seed%d-jumps-%s-%s", seed, onOff(jumps), p.Name))}
				if p.Paced {
					ref := wd.Outcomes[0]
					t.Credits = pacedCredits(ref.Nights, ref.Charged, p.Share, p.Refresh.Pace)
				}
				o, err := simulate(ctx, t)
				if err != nil {
					return nil, fmt.Errorf("seed %d, jumps %s, %s: %w", seed, onOff(jumps), p.Name, err)
				}
				fmt.Fprintf(progress, "seed %d, jumps %s, %-8s %6d credits, %d pushes, %d deferred, %d nights not ok, %s\n",
					seed, onOff(jumps), p.Name, o.Charged, o.Pushes, o.Deferred, o.Partial, o.Took.Round(time.Second))
				wd.Outcomes = append(wd.Outcomes, o)
			}
			worlds = append(worlds, wd)
		}
	}
	return worlds, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func itoa(n int) string { return strconv.Itoa(n) }
