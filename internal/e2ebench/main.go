package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/etalake/etalake/jobs"

	// As the etalake binary does (its children measure the command).
	_ "github.com/etalake/etalake/internal/onearena"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "e2ebench:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	events     int64
	days       int
	runs       int
	verifyDays int
	nightly    int
	keep       string
	cache      string
	child      childOptions
	// The child's flags.
	mode, input, warehouse string
}

func parse(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("e2ebench", flag.ContinueOnError)
	fs.Int64Var(&c.events, "events", 1_000_000, "container events to generate (approximate)")
	fs.IntVar(&c.days, "days", 30, "days of the simulated world: one NDJSON file each")
	fs.IntVar(&c.runs, "runs", 3, "runs of each path")
	fs.IntVar(&c.verifyDays, "verify-days", 3, "days of the small input both paths must load identically first")
	fs.IntVar(&c.nightly, "nightly", 0, "instead of comparing the paths, import the input's days as this many consecutive parts into one warehouse, a child each, and report each one's peak RSS")
	fs.StringVar(&c.keep, "keep", "", "write the warehouses to this directory and keep them")
	fs.StringVar(&c.cache, "cache", filepath.Join(os.TempDir(), "etalake-e2ebench"), "directory of the generated inputs, kept between runs")
	fs.StringVar(&c.child.read, "duckdb-read", "columns", "how read_json learns the shape of a line: columns, sample or full")
	fs.Int64Var(&c.child.partBytes, "part-size", jobs.DefaultImportPartBytes, "bytes of JSON per process of the ours path, as etalake import --part-size (0: one process)")
	fs.IntVar(&c.child.cpu, "cpu", 0, "GOMAXPROCS of the children (0: Go's default)")
	fs.StringVar(&c.child.cpuProfile, "cpuprofile", "", "CPU profile of each child, to PREFIX.<path>.<run>")
	fs.StringVar(&c.child.memProfile, "memprofile", "", "allocation profile of each child, to PREFIX.<path>.<run>")
	fs.StringVar(&c.mode, "mode", "", "run one path in this process: ours or duckdb (how the benchmark runs its children)")
	fs.StringVar(&c.input, "input", "", "the child's input directory")
	fs.StringVar(&c.warehouse, "warehouse", "", "the child's warehouse directory")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if _, ok := readModes[c.child.read]; !ok {
		return c, fmt.Errorf("-duckdb-read %q: want columns, sample or full", c.child.read)
	}
	if c.mode == "" && (c.events < 1 || c.days < 1 || c.runs < 1 || c.verifyDays < 1) {
		return c, errors.New("-events, -days, -runs and -verify-days must be at least 1")
	}
	if c.nightly < 0 {
		return c, fmt.Errorf("-nightly %d: want a number of parts, or 0 to compare the paths", c.nightly)
	}
	return c, nil
}

func run(ctx context.Context, args []string, out io.Writer) error {
	c, err := parse(args)
	if err != nil {
		return err
	}
	if c.mode == pathOursPart {
		return runOursPart(ctx, c.warehouse)
	}
	if c.mode != "" {
		return child(ctx, c.mode, c.input, c.warehouse, c.child)
	}
	work := c.keep
	if work == "" {
		if work, err = os.MkdirTemp("", "e2ebench-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(out, "load average at start: %s\n", loadAverage())
	if c.nightly > 0 {
		return runNightly(ctx, out, c, work)
	}

	// The check: both paths, a small input, the same tables.
	vin, vm, err := prepareInput(c.cache, calibrationShipments, c.verifyDays, true)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\nverify: %d responses, %d events (%d shipments × %d days)\n", vm.Responses, vm.Events, vm.Shipments, vm.Days)
	verify := childOptions{read: c.child.read, cpu: c.child.cpu}
	var whs [2]string
	for i, p := range []string{pathOurs, pathDuckDB} {
		whs[i] = filepath.Join(work, "verify-"+p)
		if err := os.RemoveAll(whs[i]); err != nil {
			return err
		}
		if _, err := spawn(ctx, p, vin, whs[i], verify, "verify"); err != nil {
			return err
		}
	}
	if err := compare(ctx, out, whs[0], whs[1], vm.Events); err != nil {
		return fmt.Errorf("no numbers: %w", err)
	}
	fmt.Fprintln(out, "verify: identical")

	// The measurement.
	in, m, err := measuredInput(out, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "duckdb read_json: %s\n\n", c.child.read)
	byPath := map[string][]measurement{}
	fmt.Fprintf(out, "%-4s %-7s %8s %12s %13s\n", "run", "path", "wall s", "events/s", "peak RSS MiB")
	for r := 1; r <= c.runs; r++ {
		order := []string{pathOurs, pathDuckDB}
		if r%2 == 0 {
			slices.Reverse(order)
		}
		for _, p := range order {
			wh := filepath.Join(work, fmt.Sprintf("%s-%d", p, r))
			if err := os.RemoveAll(wh); err != nil {
				return err
			}
			ms, err := spawn(ctx, p, in, wh, c.child, fmt.Sprint(r))
			if err != nil {
				return err
			}
			if p == pathOurs && ms.stats.Bodies != m.Responses || p == pathDuckDB && ms.stats.Events != m.Events {
				return fmt.Errorf("%s path: %d bodies, %d events; the input has %d and %d", p, ms.stats.Bodies, ms.stats.Events, m.Responses, m.Events)
			}
			if c.keep == "" {
				if err := os.RemoveAll(wh); err != nil {
					return err
				}
			}
			byPath[p] = append(byPath[p], ms)
			fmt.Fprintf(out, "%-4d %-7s %8.2f %12.0f %13.0f%s\n", r, p, ms.wall.Seconds(), rate(m.Events, ms.wall), mib(ms.rssKiB), processes(ms.stats.Parts))
		}
		o, d := byPath[pathOurs][r-1], byPath[pathDuckDB][r-1]
		fmt.Fprintf(out, "%-4d %-7s %8s %11.2f×\n", r, "ratio", "", rate(m.Events, o.wall)/rate(m.Events, d.wall))
	}
	fmt.Fprintln(out)
	med := map[string]measurement{}
	for _, p := range []string{pathOurs, pathDuckDB} {
		med[p] = median(byPath[p])
		fmt.Fprintf(out, "%-12s %-7s %8.2f %12.0f %13.0f\n", "median", p, med[p].wall.Seconds(), rate(m.Events, med[p].wall), mib(med[p].rssKiB))
	}
	fmt.Fprintf(out, "ours/duckdb events/s (medians): %.2f×\n", med[pathDuckDB].wall.Seconds()/med[pathOurs].wall.Seconds())
	fmt.Fprintf(out, "load average at end: %s\n", loadAverage())
	return nil
}

// processes notes an import in parts: the peak RSS is the largest of
// its processes'.
func processes(parts int) string {
	if parts < 2 {
		return ""
	}
	return fmt.Sprintf("  (%d processes)", parts)
}

// measuredInput prepares the input of -events and -days, says what it is,
// and reads it once so that the first child does not pay for the disk.
func measuredInput(out io.Writer, c config) (string, manifest, error) {
	shipments, err := shipmentsFor(c.events, c.days)
	if err != nil {
		return "", manifest{}, err
	}
	in, m, err := prepareInput(c.cache, shipments, c.days, false)
	if err != nil {
		return "", manifest{}, err
	}
	fmt.Fprintf(out, "\ninput: %d events in %d responses, %d files, %.0f MB of NDJSON (seed 1, %d shipments × %d days)\n",
		m.Events, m.Responses, m.Files, float64(m.Bytes)/1e6, m.Shipments, m.Days)
	return in, m, warm(in)
}

// median is the measurement of median wall time, with the median peak RSS.
func median(ms []measurement) measurement {
	byWall := slices.Clone(ms)
	slices.SortFunc(byWall, func(a, b measurement) int { return int(a.wall - b.wall) })
	rss := make([]int64, len(ms))
	for i, m := range ms {
		rss[i] = m.rssKiB
	}
	slices.Sort(rss)
	out := byWall[len(byWall)/2]
	out.rssKiB = rss[len(rss)/2]
	return out
}

func rate(events int64, d time.Duration) float64 { return float64(events) / d.Seconds() }

func mib(kib int64) float64 { return float64(kib) / 1024 }

// loadAverage is the machine's 1, 5 and 15 minute load, where Linux says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
