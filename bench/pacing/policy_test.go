package main

import (
	"io"
	"strings"
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
// up to the share of nightly's spend over the same nights (half by
// default), rounded up.
func TestPacedCreditsAllowTheShareOfNightlysSpend(t *testing.T) {
	pace := jobs.DefaultRefresh().Pace
	for _, tc := range []struct {
		name   string
		nights []time.Time
		spent  int64
		share  float64
		want   int64 // credits over the nights, at least
	}{
		{"60 nights from Jan 5", nightsFrom(time.Date(2026, 1, 5, 2, 0, 0, 0, time.UTC), 60), 9644, 0.5, 4822},
		{"a whole February", nightsFrom(time.Date(2026, 2, 1, 2, 0, 0, 0, time.UTC), 28), 4000, 0.5, 2000},
		{"12 nights in March", nightsFrom(time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC), 12), 1501, 0.5, 751},
		{"60 nights from Jan 5, a third", nightsFrom(time.Date(2026, 1, 5, 2, 0, 0, 0, time.UTC), 60), 9644, 1.0 / 3, 3215},
		{"a whole February, all of it", nightsFrom(time.Date(2026, 2, 1, 2, 0, 0, 0, time.UTC), 28), 4000, 1, 4000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pacedCredits(tc.nights, tc.spent, tc.share, pace)
			if got := allowances(tc.nights, c, pace); got < tc.want {
				t.Errorf("%d credits a month allow %d over the nights, want at least %d", c, got, tc.want)
			}
			if got := allowances(tc.nights, c-1, pace); got >= tc.want {
				t.Errorf("%d credits a month already allow %d of the %d wanted: %d is not the least", c-1, got, tc.want, c)
			}
		})
	}
}

// A share of nightly's spend the pace cannot be given is refused, naming
// the flag and what it takes.
func TestPaceShareOutOfRangeIsRefused(t *testing.T) {
	for _, v := range []string{"0", "-0.5", "1.5", "NaN", "half"} {
		_, err := parse([]string{"-pace-share", v}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-pace-share") {
			t.Errorf("-pace-share %s: got %v, want an error naming -pace-share", v, err)
		}
	}
	c, err := parse([]string{"-pace-share", "0.3", "-policies", "paced"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.policies {
		if p.Share != 0.3 {
			t.Errorf("%s: share %g, want 0.3", p.Name, p.Share)
		}
	}
}
