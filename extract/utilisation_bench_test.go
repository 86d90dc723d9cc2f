package extract_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// BenchmarkRateUtilisation measures, in real time, how much of the
// service's rate limit the client uses: the real client and limiter against
// the simulator at 10 requests per 10 s with a 2 s median (6 s p99)
// latency, b.N free requests from a pool of workers sized for that latency.
//
// utilisation = requests / (N × (span + W) / W), span being the time from
// the first to the last arrival at the server: the share of the limit used
// over the run, never an overstatement (the last window counts whole). 429s
// is the number of requests the server refused. Goals: ≥ 0.97 and 0.
//
//	go test -tags duckdb_arrow -run '^$' -bench RateUtilisation -benchtime 100x ./extract/
func BenchmarkRateUtilisation(b *testing.B) {
	rate := extract.DefaultRate // the client's reading of the limit; the simulator enforces its own
	env := simtest.Start(b, simtest.Options{
		Rate:   sim.DefaultRate,
		Keys:   []sim.KeySpec{{Key: "bench", Schedule: simtest.Credits(1)}},
		Faults: sim.Faults{LatencyMedian: 2 * time.Second, LatencyP99: 6 * time.Second, Seed: 1},
	})
	cfg := env.Config(b, "bench")
	client, err := extract.NewClient(cfg)
	if err != nil {
		b.Fatal(err)
	}
	// Enough workers that each slot finds one waiting even at the p99.
	workers := rate.N
	b.ResetTimer()
	p := pool.New().WithErrors().WithMaxGoroutines(workers)
	for i := 0; i < b.N; i++ {
		p.Go(func() error {
			_, err := simtest.Drain(client.CurrentPeriod(context.Background(), wire.ProductSchedule))
			return err
		})
	}
	if err := p.Wait(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	var arrivals []time.Time
	for _, e := range env.Service.Ledger() {
		arrivals = append(arrivals, e.At)
	}
	sort.Slice(arrivals, func(i, j int) bool { return arrivals[i].Before(arrivals[j]) })
	span := arrivals[len(arrivals)-1].Sub(arrivals[0])
	windows := float64(span+rate.Window) / float64(rate.Window)
	b.ReportMetric(float64(len(arrivals))/(float64(rate.N)*windows), "utilisation")
	b.ReportMetric(float64(env.Service.Stats().RateLimited), "429s")
	b.ReportMetric(0, "ns/op")
}
