package coord_test

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/coord"
	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/wire"
)

// What the coordinator adds to each request, against a private Postgres on
// loopback (docs/scale.md): a grant of the window (Admit, a window never
// full, so nothing waits) moved to the send time (Sent), and, for a paid
// request, a credit reserved and settled. The processes of one key are each a Coordinator of its own;
// with more of them the grants queue on the key's advisory lock.
func BenchmarkCoordinator(b *testing.B) {
	pg := pgtest.Start(b)
	for _, procs := range []int{1, 4, 16} {
		cs := make([]*coord.Coordinator, procs)
		for i := range cs {
			cs[i] = open(b, pg.URL)
		}
		b.Run("grant/processes="+strconv.Itoa(procs), func(b *testing.B) {
			each(b, cs, func(c *coord.Coordinator) func() error {
				w, _ := c.Window("bench")
				return func() error {
					_, id, err := w.Admit(b.Context(), 1<<30, 100*time.Millisecond)
					if err != nil {
						return err
					}
					return w.Sent(b.Context(), id, time.Millisecond)
				}
			})
		})
		b.Run("credit/processes="+strconv.Itoa(procs), func(b *testing.B) {
			each(b, cs, func(c *coord.Coordinator) func() error {
				l, _ := c.Ledger("bench", wire.ProductTracking)
				return func() error {
					id, err := l.Reserve(b.Context(), "", extract.Unlimited)
					if err != nil {
						return err
					}
					return l.Settle(b.Context(), id, extract.SettleCommit)
				}
			})
		})
	}
}

// each runs b.N operations spread over the coordinators, one goroutine a
// coordinator, and reports the time of one operation as each process sees
// it (ns/op is the key's throughput).
func each(b *testing.B, cs []*coord.Coordinator, op func(*coord.Coordinator) func() error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var busy time.Duration
	n := b.N
	b.ResetTimer()
	for i, c := range cs {
		do := op(c)
		share := n / len(cs)
		if i < n%len(cs) {
			share++
		}
		wg.Go(func() {
			start := time.Now()
			for range share {
				if err := do(); err != nil {
					b.Error(err)
					return
				}
			}
			mu.Lock()
			busy += time.Since(start)
			mu.Unlock()
		})
	}
	wg.Wait()
	b.ReportMetric(float64(busy.Microseconds())/float64(n), "µs/op-seen")
}
