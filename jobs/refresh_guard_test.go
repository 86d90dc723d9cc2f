package jobs_test

import (
	"testing"
	"time"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// The report takes, at each horizon h, the latest ETA seen at or before
// the cut arrival − h, and the cut follows the arrival, not the ETA held.
// A shipment whose carrier holds one ETA all along, and that arrives from
// 2 days before it to 4 days after: with the guard below=4,above=3,every=1
// the answer the report takes at every horizon is from the last night
// before the cut, as nightly's would be, whenever in that range it
// arrives; the default guard lets some of those be older, for fewer asks.
func TestTheGuardDecidesHowOldTheETAAtAHorizonsCutIs(t *testing.T) {
	exact := jobs.DefaultRefresh()
	exact.Guard = jobs.Guard{Below: 4, Above: 3, Every: 1}
	eta := night0.AddDate(0, 0, 30).Add(7 * time.Hour)
	oldest := func(r jobs.Refresh, late time.Duration) (time.Duration, int) {
		asked := askAll(r, eta, 34)
		var worst time.Duration
		for _, h := range r.Horizons {
			cut := eta.Add(late).AddDate(0, 0, -h)
			var used time.Time
			for _, a := range asked {
				if !a.After(cut) {
					used = a
				}
			}
			worst = max(worst, cut.Sub(used))
		}
		return worst, len(asked)
	}
	var exactAsks, defaultAsks int
	var defaultWorst time.Duration
	for late := -48 * time.Hour; late <= 96*time.Hour; late += 6 * time.Hour {
		age, n := oldest(exact, late)
		if age > 24*time.Hour {
			t.Errorf("below=4,above=3,every=1, arriving %s after the ETA: an ETA at a horizon's cut %s old; want a night at most", late, age)
		}
		exactAsks = n
		age, n = oldest(jobs.DefaultRefresh(), late)
		defaultWorst, defaultAsks = max(defaultWorst, age), n
	}
	if defaultWorst <= 24*time.Hour {
		t.Errorf("the default guard: the oldest ETA at a cut is %s; want over a night (its asks are fewer)", defaultWorst)
	}
	if exactAsks <= defaultAsks {
		t.Errorf("below=4,above=3,every=1 asked %d times, the default %d; want more", exactAsks, defaultAsks)
	}
	t.Logf("asks over 34 nights: below=4,above=3,every=1 %d, the default %d (its oldest ETA at a cut %s)", exactAsks, defaultAsks, defaultWorst)
}

// askAll asks a shipment whose ETA held stays eta as r says, one night
// after another from night0 for nights, and returns when each answer
// was seen (02:00 of its night).
func askAll(r jobs.Refresh, eta time.Time, nights int) []time.Time {
	s := jobs.Tracked{Ref: wire.ShipmentRef{Number: "MSCU1234566", Type: wire.ShipmentContainer}, State: jobs.TrackActive, ETA: &eta}
	var asked []time.Time
	for k := range nights {
		night := night0.AddDate(0, 0, k)
		if !night.Before(eta) {
			// Past its ETA, not arrived: overdue, asked nightly.
			seen := night.Add(2 * time.Hour)
			asked = append(asked, seen)
			continue
		}
		if r.Decide(s, night).Due {
			seen := night.Add(2 * time.Hour)
			s.LastObserved = &seen
			asked = append(asked, seen)
		}
	}
	return asked
}
