package jobs

import (
	"fmt"

	"github.com/etalake/etalake/internal/setting"
)

// Guard keeps the ETA a horizon's cut takes fresh. The report takes, at
// each horizon h, the latest ETA seen at or before the cut arrival − h,
// and drops one seen more than 48 hours before it
// (etalake_max_staleness_hours); the cut follows the arrival, not the
// ETA held: 14 days out, the simulator's carriers' ETAs were 42 h early
// on average, 4 days at the 90th percentile. So while the ETA held is
// more than h − Below and at most h + Above days away, for any horizon
// h, a shipment is asked at least every Every nights, whatever its tier.
//
// The default, below=3,above=1,every=2, is the cheap guard: in the
// benchmark's worlds (bench/pacing, BENCHMARKS.md "Refresh policies")
// it kept 176 and 160 of nightly's 185 and 163 usable ETAs at 14 days
// (the crossing night alone 164 and 133) for 43 % of nightly's credits,
// the ETAs at 7 and 14 days 0.36 and 0.49 day older than nightly's on
// average. below=4,above=3,every=1 asks every night while any horizon's
// cut may be near: the ETAs at every horizon were nightly's own, every
// carrier's error with them, for 58 % of nightly's credits.
type Guard struct {
	Below int // days below a horizon (the ETA nearer than it)
	Above int // days above a horizon (the ETA further out)
	Every int // nights between asks, at most, within the band
}

// DefaultGuard is the guard of DefaultRefresh.
func DefaultGuard() Guard { return Guard{Below: 3, Above: 1, Every: 2} }

// Names of a guard's parts, as the command line's --refresh-guard takes
// them (below=3,above=1,every=2).
const (
	GuardBelow = "below"
	GuardAbove = "above"
	GuardEvery = "every"
)

// String is the guard as --refresh-guard takes it.
func (g Guard) String() string {
	return fmt.Sprintf("%s=%d,%s=%d,%s=%d", GuardBelow, g.Below, GuardAbove, g.Above, GuardEvery, g.Every)
}

// Set sets the named part (GuardBelow, GuardAbove, GuardEvery) to n.
func (g *Guard) Set(name string, n int) error {
	switch name {
	case GuardBelow:
		g.Below = n
	case GuardAbove:
		g.Above = n
	case GuardEvery:
		g.Every = n
	default:
		return fmt.Errorf("no part %q: want %s, %s or %s", name, GuardBelow, GuardAbove, GuardEvery)
	}
	return nil
}

// validate refuses a band of more days either side than the longest
// horizon may have, or an interval out of the tiers' range. A band of 0
// days either side is no guard: the crossing night alone.
func (g Guard) validate() error {
	bad := setting.Wrong
	switch {
	case g.Below < 0 || g.Below > maxHorizon:
		return bad(fieldGuard, "%s=%d: want 0 to %d days", GuardBelow, g.Below, maxHorizon)
	case g.Above < 0 || g.Above > maxHorizon:
		return bad(fieldGuard, "%s=%d: want 0 to %d days", GuardAbove, g.Above, maxHorizon)
	case g.Every < 1 || g.Every > maxEveryNight:
		return bad(fieldGuard, "%s=%d: want 1 to %d nights", GuardEvery, g.Every, maxEveryNight)
	}
	return nil
}

// guarded is the interval every of a shipment whose ETA is days away,
// at most the guard's Every while a horizon's cut may be near.
func (r Refresh) guarded(days float64, every int) int {
	for _, h := range r.Horizons {
		if days > float64(h-r.Guard.Below) && days <= float64(h+r.Guard.Above) {
			return min(every, r.Guard.Every)
		}
	}
	return every
}
