package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/etalake/etalake/internal/setting"
)

// Faults makes the simulated service misbehave the way real ones do. Every
// decision is drawn from one generator seeded with Seed, in the order the
// requests arrive: the same seed and the same request sequence give the same
// faults.
type Faults struct {
	// LatencyMedian and LatencyP99 shape a log-normal response time, spent
	// after the request has been counted by the rate limit. Zero: no latency.
	LatencyMedian, LatencyP99 time.Duration
	// ErrorRate is the share of requests answered 500 or 503 (free).
	ErrorRate float64
	// TruncateRate is the share of successful paid answers whose JSON body is
	// cut short (they are still charged, as a broken server would).
	TruncateRate float64
	// BurstRate is the chance, per request, that a burst of 429 answers
	// starts for that key whatever its real rate; BurstLength requests are
	// refused (default 3).
	BurstRate   float64
	BurstLength int
	// RetryAfter sends a Retry-After header (whole seconds) with every 429.
	RetryAfter bool
	Seed       int64
}

// Validate checks that the rates are shares and the latencies ordered,
// as a *setting.Error naming the field.
func (f Faults) Validate() error {
	share := func(field string, v float64) error {
		if v < 0 || v > 1 || math.IsNaN(v) {
			return setting.Refuse(field, v, "a share from 0 to 1")
		}
		return nil
	}
	return setting.First(
		share("ErrorRate", f.ErrorRate),
		share("TruncateRate", f.TruncateRate),
		share("BurstRate", f.BurstRate),
		setting.Duration("LatencyMedian", f.LatencyMedian, 0, math.MaxInt64, "0 or more"),
		setting.Duration("LatencyP99", f.LatencyP99, 0, math.MaxInt64, "0 or more"),
		latencyOrder(f),
		setting.Int("BurstLength", f.BurstLength, 0, math.MaxInt),
	)
}

func latencyOrder(f Faults) error {
	if f.LatencyP99 != 0 && f.LatencyP99 < f.LatencyMedian {
		return setting.Refuse("LatencyP99", f.LatencyP99, fmt.Sprintf("0, or at least {LatencyMedian}, %s", f.LatencyMedian))
	}
	return nil
}

// faultDice draws the fault decisions; the caller holds the service lock.
type faultDice struct {
	f   Faults
	rng *rand.Rand
}

func newFaultDice(f Faults) *faultDice {
	if f.BurstLength == 0 {
		f.BurstLength = 3
	}
	return &faultDice{f: f, rng: rand.New(rand.NewPCG(uint64(f.Seed), 0x5eed))}
}

func (d *faultDice) chance(p float64) bool {
	return p > 0 && d.rng.Float64() < p
}

// latency draws a response time: log-normal through the median and p99.
func (d *faultDice) latency() time.Duration {
	m := d.f.LatencyMedian
	if m <= 0 {
		return 0
	}
	sigma := 0.0
	if p := d.f.LatencyP99; p > m {
		sigma = math.Log(float64(p)/float64(m)) / 2.326347874 // z of the 99th percentile
	}
	return time.Duration(float64(m) * math.Exp(sigma*d.rng.NormFloat64()))
}

// sleep spends a simulated latency on a real timer, or returns early with
// ctx's error when the client goes away.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
