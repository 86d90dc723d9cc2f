package sim

import (
	"fmt"
	"time"
)

// Rate is the service's request limit per key: at most N requests in any
// Window (service.md §8). The simulator's own type, not the client's
// limiter setting (extract.Rate): the server enforces the limit, the client
// paces itself under it, and each says what it means by it.
type Rate struct {
	N      int
	Window time.Duration
}

// DefaultRate is the limit of service.md §8: "maximum 10 requests per 10
// seconds", per API key.
var DefaultRate = Rate{N: 10, Window: 10 * time.Second}

// String writes the rate as "N per WINDOW", e.g. "10 per 10s".
func (r Rate) String() string { return fmt.Sprintf("%d per %s", r.N, r.Window) }

// window is the server side of the rate limit: the arrival times of one
// key's recent requests, in real time (a request is counted when it
// arrives, before any processing or latency).
type window struct {
	rate     Rate
	arrivals []time.Time
	// peak is the most requests ever seen inside one window.
	peak int
}

// admit records an arrival at now and reports whether it is within the
// limit; a refused request is not counted (it is answered 429 at once). It
// also returns how long until a slot frees.
func (w *window) admit(now time.Time) (ok bool, retryIn time.Duration) {
	cutoff := now.Add(-w.rate.Window)
	i := 0
	for i < len(w.arrivals) && !w.arrivals[i].After(cutoff) {
		i++
	}
	w.arrivals = w.arrivals[i:]
	if len(w.arrivals) >= w.rate.N {
		return false, w.arrivals[0].Add(w.rate.Window).Sub(now)
	}
	w.arrivals = append(w.arrivals, now)
	w.peak = max(w.peak, len(w.arrivals))
	return true, 0
}
