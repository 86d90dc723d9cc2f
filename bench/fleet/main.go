package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/etalake/etalake/sim"
)

// config is one benchmark: runs of three workers each.
type config struct {
	DB       string // the coordinator's Postgres URL
	Runs     int
	Procs    int // worker processes per run
	Requests int // per worker process
	Workers  int // goroutines per worker process
	Burn     int // goroutines spinning on the CPU during the runs
}

// runResult is one run, as the simulator saw it.
type runResult struct {
	Requests, RateLimited int64
	Peak                  int
	Headroom              time.Duration // the smallest; negative: over the limit
	Wall                  time.Duration
}

func main() {
	if os.Getenv(envWorker) == "1" {
		if err := worker(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "fleet worker:", err)
			os.Exit(1)
		}
		return
	}
	cfg := config{}
	flag.StringVar(&cfg.DB, "db", os.Getenv("ETALAKE_COORDINATION"), "the coordinator: postgres://user@host:port/db (default $ETALAKE_COORDINATION)")
	flag.IntVar(&cfg.Runs, "runs", 10, "runs")
	flag.IntVar(&cfg.Procs, "procs", 3, "worker processes per run")
	flag.IntVar(&cfg.Requests, "requests", 7, "requests per worker process")
	flag.IntVar(&cfg.Workers, "workers", 4, "goroutines per worker process")
	flag.IntVar(&cfg.Burn, "burn", runtime.NumCPU(), "goroutines spinning on the CPU during the runs: a loaded machine")
	flag.Parse()
	if cfg.DB == "" {
		fmt.Fprintln(os.Stderr, "fleet: -db or ETALAKE_COORDINATION: the coordinator's Postgres URL")
		os.Exit(2)
	}
	results, err := bench(context.Background(), cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
	report(os.Stdout, cfg, results)
}

// bench runs cfg.Runs runs, one line each on w as it goes.
func bench(ctx context.Context, cfg config, w io.Writer) ([]runResult, error) {
	stop := burn(cfg.Burn)
	defer stop()
	var out []runResult
	for i := range cfg.Runs {
		r, err := oneRun(ctx, cfg, fmt.Sprintf("fleet-%d-%d-%d", os.Getpid(), time.Now().Unix(), i))
		if err != nil {
			return out, fmt.Errorf("run %d: %w", i+1, err)
		}
		fmt.Fprintf(w, "run %2d: %3d requests, %d × 429, peak %d in a window, headroom %4d ms, %5.1f s\n",
			i+1, r.Requests, r.RateLimited, r.Peak, r.Headroom.Milliseconds(), r.Wall.Seconds())
		out = append(out, r)
	}
	return out, nil
}

// oneRun runs the workers of one key against a simulator of their own.
func oneRun(ctx context.Context, cfg config, key string) (runResult, error) {
	svc, err := sim.New(sim.Config{Keys: []sim.KeySpec{{Key: key, Schedule: credits(1 << 20), Tracking: credits(1 << 20)}}})
	if err != nil {
		return runResult{}, err
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, cfg.Procs)
	for p := range cfg.Procs {
		cmd := exec.CommandContext(ctx, os.Args[0])
		cmd.Env = append(os.Environ(), envWorker+"=1", envDB+"="+cfg.DB, envSim+"="+srv.URL+svc.ScheduleBasePath(), envKey+"="+key,
			envRequests+"="+strconv.Itoa(cfg.Requests), envWorkers+"="+strconv.Itoa(cfg.Workers))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[p] = fmt.Errorf("worker %d: %v: %s", p+1, err, out)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return runResult{}, err
		}
	}
	st := svc.Stats()
	r := runResult{Requests: st.Requests, RateLimited: st.RateLimited, Peak: st.PeakInWindow[sim.KeyID(key)], Wall: time.Since(start)}
	r.Headroom = headroom(svc.Ledger(), sim.DefaultRate)
	return r, nil
}

// headroom is the smallest margin by which a request arrived after the
// window of the rate.N-th request before it had ended; the largest
// duration when fewer than N+1 arrived.
func headroom(ledger []sim.LedgerEntry, rate sim.Rate) time.Duration {
	at := make([]time.Time, len(ledger))
	for i, e := range ledger {
		at[i] = e.At
	}
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	least := time.Duration(1<<63 - 1)
	for i := rate.N; i < len(at); i++ {
		least = min(least, at[i].Sub(at[i-rate.N])-rate.Window)
	}
	return least
}

// burn spins n goroutines until stop.
func burn(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			x := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				for j := range 1 << 16 {
					x += j
				}
			}
		})
	}
	return func() { close(done); wg.Wait() }
}

func credits(n int64) *int64 { return &n }

// report sums the runs up.
func report(w io.Writer, cfg config, rs []runResult) {
	var limited, requests int64
	least := time.Duration(1<<63 - 1)
	var wall time.Duration
	for _, r := range rs {
		limited += r.RateLimited
		requests += r.Requests
		least = min(least, r.Headroom)
		wall += r.Wall
	}
	fmt.Fprintf(w, "\n%d runs of %d processes × %d goroutines, %d requests each, %d goroutines burning the CPU (%d cores), the window 10 per 10 s:\n",
		len(rs), cfg.Procs, cfg.Workers, cfg.Requests, cfg.Burn, runtime.NumCPU())
	fmt.Fprintf(w, "  %d requests, %d × 429, smallest headroom %d ms, %.0f s in all\n", requests, limited, least.Milliseconds(), wall.Seconds())
}
