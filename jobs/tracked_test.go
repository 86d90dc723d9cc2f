package jobs_test

import (
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// The adaptive policy (the default) stops refreshing a shipment the night
// after it is known to have arrived at its final place; the nightly
// policy keeps it 3 days more, as it always did, unless --grace 0
// (NoGrace) says none: a zero is not taken for the mode's default.
func TestNoGraceFinishesAShipmentOnceArrived(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 1000)
	w := b.env.Service.World()
	start := b.env.Service.Clock().Now()
	arrived := func(ref wire.ShipmentRef, at time.Time) bool {
		s, err := w.Shipment(ref, at)
		if err != nil || s.Route == nil {
			return false
		}
		final := s.Route.Postpod
		if final == nil && s.Route.Pod != nil {
			final = &s.Route.Pod.RoutePoint
		}
		return final != nil && final.Actual != nil && *final.Actual
	}
	var ship wire.ShipmentRef
	var day int
	for _, ref := range visible(t, w, 40) {
		for d := 1; d <= 20 && ship.Number == ""; d++ {
			if arrived(ref, start.AddDate(0, 0, d)) {
				ship, day = ref, d
			}
		}
	}
	if ship.Number == "" {
		t.Fatal("no shipment arrives within 20 days")
	}
	b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: []wire.ShipmentRef{ship}}})
	b.env.Service.Clock().Set(start.AddDate(0, 0, day))
	b.run(t, jobs.RunOptions{}) // sees it arrived
	b.env.Service.Clock().Set(start.AddDate(0, 0, day+1))
	if p := b.run(t, jobs.RunOptions{DryRun: true}).Plan; p.Finished != 1 || p.Shipments != 0 {
		t.Fatalf("adaptive, default grace: %d finished, %d asked; want it finished", p.Finished, p.Shipments)
	}
	nightly := jobs.NightlyRefresh()
	if p := b.run(t, jobs.RunOptions{DryRun: true, Refresh: &nightly}).Plan; p.Finished != 0 || p.Shipments != 1 || p.Refresh.Due[jobs.DueNightly] != 1 {
		t.Fatalf("nightly, default grace: %d finished, %d asked (%v); want it still asked", p.Finished, p.Shipments, p.Refresh.Due)
	}
	if p := b.run(t, jobs.RunOptions{DryRun: true, Refresh: &nightly, Grace: jobs.NoGrace}).Plan; p.Finished != 1 || p.Shipments != 0 {
		t.Fatalf("nightly, no grace: %d finished, %d asked; want it finished", p.Finished, p.Shipments)
	}
	if p := b.run(t, jobs.RunOptions{DryRun: true, Grace: 72 * time.Hour}).Plan; p.Finished != 0 || p.Shipments != 1 || p.Refresh.Due[jobs.DueGrace] != 1 {
		t.Fatalf("adaptive, --grace 72h: %d finished, %d asked (%v); want it asked for its grace", p.Finished, p.Shipments, p.Refresh.Due)
	}
}
