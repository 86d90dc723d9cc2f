package coord_test

import (
	"testing"
	"time"

	"github.com/etalake/etalake/coord"
	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// testRate is the key's limit in these tests: short, as the database's
// clock is real.
var testRate = extract.Rate{N: 10, Window: time.Second}

// testMargin is the limiter's margin in these tests: on two cores shared
// with other tests under -race, a process can be held 100 ms between its
// grant and its request's arrival, longer than the default's 50 ms for a
// 1 s window (the service's 10 s window has 100 ms; the extract tests of
// the shared state directory take 100 ms on 500 ms for the same reason).
const testMargin = 150 * time.Millisecond

const testKey = "coord-key-5d1e"

func open(t testing.TB, url string) *coord.Coordinator {
	t.Helper()
	c, err := coord.Open(t.Context(), coord.Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// sharedClient is the client of one process of the key: its limiter on
// c's window, its schedule budget (capped at capSchedule) on c's ledger.
func sharedClient(t testing.TB, c *coord.Coordinator, simURL string, capSchedule int64) *extract.Client {
	t.Helper()
	k, err := extract.NewKey(testKey)
	if err != nil {
		t.Fatal(err)
	}
	win, err := c.Window(k.Fingerprint())
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := c.Ledger(k.Fingerprint(), wire.ProductSchedule)
	if err != nil {
		t.Fatal(err)
	}
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: testRate, Margin: testMargin, Shared: win})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lim.Close() })
	client, err := extract.NewClient(extract.Config{
		ScheduleURL: simURL + sim.SchedulePrefix, TrackingURL: simURL + sim.TrackingPrefix, Key: k, Limiter: lim,
		ScheduleBudget: extract.NewSharedBudget(wire.ProductSchedule, capSchedule, ledger),
	})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// peakInWindow is the most entries of the ledger inside any window w, by
// the simulator's stamp of arrival.
func peakInWindow(ledger []sim.LedgerEntry, w time.Duration) int {
	peak, lo := 0, 0
	for hi := range ledger {
		for ledger[hi].At.Sub(ledger[lo].At) >= w {
			lo++
		}
		peak = max(peak, hi-lo+1)
	}
	return peak
}
