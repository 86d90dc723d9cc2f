package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/etalake/etalake/coord"
	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// The environment of a worker process.
const (
	envWorker   = "ETALAKE_FLEET_WORKER"
	envDB       = "ETALAKE_FLEET_DB"
	envSim      = "ETALAKE_FLEET_SIM"
	envKey      = "ETALAKE_FLEET_KEY"
	envRequests = "ETALAKE_FLEET_REQUESTS"
	envWorkers  = "ETALAKE_FLEET_WORKERS"
)

// worker is one process of the fleet: the client a job builds with
// --coordination (the key's window and ledger in the coordinator, the
// default margin), its goroutines sending the requests between them.
func worker(ctx context.Context) error {
	requests, err := strconv.Atoi(os.Getenv(envRequests))
	if err != nil {
		return fmt.Errorf("%s: %w", envRequests, err)
	}
	workers, err := strconv.Atoi(os.Getenv(envWorkers))
	if err != nil {
		return fmt.Errorf("%s: %w", envWorkers, err)
	}
	co, err := coord.Open(ctx, coord.Config{URL: os.Getenv(envDB)})
	if err != nil {
		return err
	}
	defer co.Close()
	key, err := extract.NewKey(os.Getenv(envKey))
	if err != nil {
		return err
	}
	win, err := co.Window(key.Fingerprint())
	if err != nil {
		return err
	}
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.Rate{N: sim.DefaultRate.N, Window: sim.DefaultRate.Window}, Shared: win})
	if err != nil {
		return err
	}
	defer lim.Close()
	cfg := extract.DefaultConfig()
	cfg.ScheduleURL, cfg.Key, cfg.Limiter = os.Getenv(envSim), key, lim
	client, err := extract.NewClient(cfg)
	if err != nil {
		return err
	}
	var left atomic.Int64
	left.Store(int64(requests))
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i := range workers {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				for _, err := range client.CurrentPeriod(ctx, wire.ProductSchedule) {
					if err != nil {
						errs[i] = err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
