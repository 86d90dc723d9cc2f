package jobs

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// Sixty nights of 300 shipments under a pace far too small for what is
// due (8 credits a night): every shipment whose wait reaches twice its
// interval is asked that night whatever the allowance, so none ever
// waits longer; what the allowance does not cover is deferred and
// counted, never dropped: asked and deferred are what was due.
func TestNoShipmentIsStarved(t *testing.T) {
	r := DefaultRefresh()
	rng := rand.New(rand.NewPCG(7, 31))
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	ships := make([]Tracked, 300)
	for i := range ships {
		eta := start.Add(time.Duration(rng.Float64()*50*24) * time.Hour)
		ships[i] = Tracked{Ref: wire.ShipmentRef{Number: fmt.Sprintf("S%03d", i), Type: wire.ShipmentContainer},
			State: TrackActive, Carrier: []string{"MAEU", "MSCU", "CMDU"}[i%3], ETA: &eta}
	}
	model := newETAModel(r, nil)
	deferredTotal, beyondTotal := 0, 0
	for k := range 60 {
		night := start.AddDate(0, 0, k)
		var cands []candidate
		for i, s := range ships {
			if s.ETA != nil && s.ETA.Before(night) && s.LastObserved != nil && s.LastObserved.After(*s.ETA) {
				ships[i].State = TrackFinished // seen after its ETA: arrived
				continue
			}
			d := r.Decide(s, night)
			if d.Due {
				c := candidate{t: s, due: d, cost: 1}
				c.value = model.value(c)
				cands = append(cands, c)
			}
		}
		split := choose(cands, 8)
		if len(split.asked)+len(split.deferred) != len(cands) {
			t.Fatalf("night %d: %d asked + %d deferred of %d due: some lost", k, len(split.asked), len(split.deferred), len(cands))
		}
		for _, c := range split.deferred {
			if c.due.Starving {
				t.Fatalf("night %d: %s deferred after %d nights, its interval %d (%s)", k, c.t.Ref.Number, c.due.Nights, c.due.Every, c.due.Reason)
			}
		}
		for _, c := range split.asked {
			for i := range ships {
				if ships[i].Ref == c.t.Ref {
					seen := night.Add(2 * time.Hour)
					ships[i].LastObserved = &seen
				}
			}
		}
		deferredTotal += len(split.deferred)
		beyondTotal += split.beyond
	}
	// The allowance was too small: the rule, not luck, kept them fed.
	if deferredTotal == 0 || beyondTotal == 0 {
		t.Fatalf("%d deferred, %d asked past the allowance: the test did not press the pace", deferredTotal, beyondTotal)
	}
	for _, s := range ships {
		if s.State == TrackActive && s.LastObserved == nil {
			t.Errorf("%s never asked in 60 nights", s.Ref.Number)
		}
	}
}

// Within the allowance the pace asks what is overdue (its ETA passed)
// first, then horizon crossings, then the largest expected change of the
// ETA per day left until it; the expected change is learned per carrier
// and tier, with every carrier's rate for one with little history.
func TestThePaceAsksTheMostValuableFirst(t *testing.T) {
	r := DefaultRefresh()
	// MAEU's ETAs 10 to 20 days out moved 20 h a day, MSCU's not, everyone's 10 h; 5
	// to 10 days out 4 h a day.
	model := newETAModel(r, []load.ETAChange{
		{Carrier: "MAEU", Days: 15, Pairs: 40, AbsHours: 800, Elapsed: 40},
		{Carrier: "MSCU", Days: 15, Pairs: 40, AbsHours: 0, Elapsed: 40},
		{Carrier: "MSCU", Days: 7, Pairs: 30, AbsHours: 120, Elapsed: 30},
		{Carrier: "ZIMU", Days: 15, Pairs: 3, AbsHours: 30, Elapsed: 3},
	})
	if got := model.perDay("ZIMU", 15); got != 10 {
		t.Errorf("ZIMU with 3 pairs: %g h a day; want every carrier's 10", got)
	}
	mk := func(name, carrier, reason string, days float64, nights int) candidate {
		c := candidate{t: Tracked{Ref: wire.ShipmentRef{Number: name, Type: wire.ShipmentContainer}, Carrier: carrier},
			due: Decision{Due: true, Reason: reason, DaysToETA: days, Nights: nights, Every: 3}, cost: 1}
		c.value = model.value(c)
		return c
	}
	cands := []candidate{
		mk("far-still", "MSCU", "far", 16, 3),  // 0 h a day: worth nothing
		mk("far-moving", "MAEU", "far", 16, 3), // 20 h a day × 3 nights / 16 days
		mk("mid", "MSCU", "mid", 8, 2),         // 4 h a day × 2 / 8
		mk("crossing", "MSCU", "horizon-7", 7.5, 2),
		mk("late", "MSCU", DueOverdue, -0.5, 1),
	}
	split := choose(cands, 4)
	var order []string
	for _, c := range split.asked {
		order = append(order, c.t.Ref.Number)
	}
	want := []string{"late", "crossing", "far-moving", "mid"}
	if fmt.Sprint(order) != fmt.Sprint(want) || len(split.deferred) != 1 || split.deferred[0].t.Ref.Number != "far-still" {
		t.Errorf("asked %v, deferred %d; want %v, then far-still deferred", order, len(split.deferred), want)
	}
}
