package main

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
)

var runs = flag.Int("fleet.runs", 3, "runs of TestACoordinatedFleetKeepsTheRealWindow")

// TestMain lets the test binary be a worker of the fleet, as the command
// is its own.
func TestMain(m *testing.M) {
	if os.Getenv(envWorker) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// Three processes of one key, on a loaded machine, coordinated through a
// private Postgres, at the service's real window: the simulator refuses
// none of their requests (no 429), and none arrives inside the window of
// the tenth before it.
//
// "Requests per key: 10 requests per 10 seconds (sliding window)"
// (service.md §5).
func TestACoordinatedFleetKeepsTheRealWindow(t *testing.T) {
	slowtest.Require(t, "runs of 20 s at the real 10 s window")
	pg := pgtest.Start(t)
	cfg := config{DB: pg.URL, Runs: *runs, Procs: 3, Requests: 7, Workers: 4, Burn: 2}
	rs, err := bench(context.Background(), cfg, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	report(os.Stdout, cfg, rs)
	for i, r := range rs {
		if r.RateLimited > 0 || r.Headroom < 0 || r.Requests < int64(cfg.Procs*cfg.Requests) {
			t.Errorf("run %d: %d × 429 and a headroom of %v over %d requests; want no 429, a headroom of 0 or more, %d requests",
				i+1, r.RateLimited, r.Headroom, r.Requests, cfg.Procs*cfg.Requests)
		}
	}
}
