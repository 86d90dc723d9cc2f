package main

import (
	"testing"
	"time"

	"github.com/etalake/etalake/jobs"
)

func nightsFrom(first time.Time, n int) []time.Time {
	var out []time.Time
	for d := range n {
		out = append(out, first.AddDate(0, 0, d))
	}
	return out
}

// A run spending its whole allowance every night spends, over a month's
// nights from any night on, the month's credits less the reserve (the
// last night may spend all but the reserve); over part of a month, about
// that share of them.
func TestAllowancesOfAMonthAreItsCreditsLessTheReserve(t *testing.T) {
	pace := jobs.DefaultRefresh().Pace // 5 % in reserve
	jan5 := time.Date(2026, 1, 5, 2, 0, 0, 0, time.UTC)
	if got := allowances(nightsFrom(jan5, 27), 2000, pace); got != 1900 {
		t.Errorf("Jan 5 to 31 with 2 000 credits: allowed %d, want 1 900", got)
	}
	// March: 1 900 over 31 nights is 61 a night (rounded down), which
	// spent leaves 61 a night for the nights after.
	if got := allowances(nightsFrom(jan5, 60), 2000, pace); got != 2*1900+5*61 {
		t.Errorf("Jan 5 to Mar 5 with 2 000 credits a month: allowed %d, want 2 × 1 900 + 5 × 61", got)
	}
}

// The paced policy's credits a month are the least whose allowances add
// up to half of nightly's spend over the same nights.
func TestPacedCreditsAllowHalfOfNightlysSpend(t *testing.T) {
	pace := jobs.DefaultRefresh().Pace
	for _, tc := range []struct {
		name   string
		nights []time.Time
		spent  int64
	}{
		{"60 nights from Jan 5", nightsFrom(time.Date(2026, 1, 5, 2, 0, 0, 0, time.UTC), 60), 9644},
		{"a whole February", nightsFrom(time.Date(2026, 2, 1, 2, 0, 0, 0, time.UTC), 28), 4000},
		{"12 nights in March", nightsFrom(time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC), 12), 1501},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pacedCredits(tc.nights, tc.spent, pace)
			half := (tc.spent + 1) / 2
			if got := allowances(tc.nights, c, pace); got < half {
				t.Errorf("%d credits a month allow %d over the nights, want at least %d", c, got, half)
			}
			if got := allowances(tc.nights, c-1, pace); got >= half {
				t.Errorf("%d credits a month already allow %d, half of %d: %d is not the least", c-1, got, tc.spent, c)
			}
		})
	}
}
