package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

func TestPointToPointDirectAndTranshipped(t *testing.T) {
	w, tr := defaultWorld(t)
	// A window far enough out that every leg end is PLN.
	q := sim.P2PQuery{DepartureStart: start.AddDate(0, 0, 20), DepartureEnd: start.AddDate(0, 0, 41), MaxTranshipment: -1}
	cases := []struct {
		pol, pod         string
		minDays, maxDays int
	}{
		{"CNSHA", "NLRTM", 30, 35},
		{"CNSHA", "USLAX", 14, 18},
	}
	for _, c := range cases {
		p2p, err := w.PointToPoint(c.pol, c.pod, q, start)
		if err != nil {
			t.Fatalf("%s→%s: %v", c.pol, c.pod, err)
		}
		if p2p.PlaceOfReceipt.Locode != c.pol || p2p.PlaceOfDelivery.Locode != c.pod {
			t.Errorf("places %s→%s", p2p.PlaceOfReceipt.Locode, p2p.PlaceOfDelivery.Locode)
		}
		carriers := map[string]bool{}
		for _, r := range p2p.Routes {
			carriers[r.CarrierCode] = true
			checkRoute(t, r, q, start)
			if len(r.Legs) == 1 && (*r.TransitTime < c.minDays || *r.TransitTime > c.maxDays) {
				t.Errorf("%s→%s by %s: %d days, want %d–%d", c.pol, c.pod, r.CarrierCode, *r.TransitTime, c.minDays, c.maxDays)
			}
		}
		if len(carriers) < 4 {
			t.Errorf("%s→%s: only %d carriers", c.pol, c.pod, len(carriers))
		}
	}

	p2p, err := w.PointToPoint("VNSGN", "NLRTM", sim.P2PQuery{MaxTranshipment: -1}, start)
	if err != nil {
		t.Fatalf("VNSGN→NLRTM: %v", err)
	}
	for _, r := range p2p.Routes {
		if len(r.Legs) != 2 {
			t.Errorf("VNSGN→NLRTM: a %d-leg route, no carrier sails it direct", len(r.Legs))
			continue
		}
		checkRoute(t, r, sim.P2PQuery{DepartureStart: start, DepartureEnd: start.AddDate(0, 0, 28)}, start)
	}
	if _, err := w.PointToPoint("VNSGN", "NLRTM", sim.P2PQuery{MaxTranshipment: 0}, start); !errors.Is(err, sim.ErrNoData) {
		t.Errorf("VNSGN→NLRTM direct only: %v, want ErrNoData", err)
	}
	for _, pair := range [][2]string{{"NLRTM", "NLRTM"}, {"XXXXX", "NLRTM"}, {"DEDUI", "CNSHA"}, {"NZAKL", "USHOU"}} {
		if _, err := w.PointToPoint(pair[0], pair[1], sim.P2PQuery{MaxTranshipment: -1}, start); !errors.Is(err, sim.ErrNoData) {
			t.Errorf("%s→%s: %v, want ErrNoData", pair[0], pair[1], err)
		}
	}
	// Every carrier supports port to port.
	lanes := map[string]bool{}
	for _, s := range tr.Shipments {
		lanes[s.Sealine] = true
	}
	if len(lanes) != len(tr.Carriers) {
		t.Errorf("shipments use %d of %d carriers", len(lanes), len(tr.Carriers))
	}
}

// checkRoute checks a route's legs: connected, departures in the window,
// classifiers consistent with at, transit time in whole days.
func checkRoute(t *testing.T, r wire.P2PRoute, q sim.P2PQuery, at time.Time) {
	t.Helper()
	for i, l := range r.Legs {
		if l.SequenceNumber != i+1 || l.Vessel == nil || l.CarrierVoyageNumber == nil || l.CarrierServiceCode == nil {
			t.Errorf("leg %d incomplete: %+v", i, l)
		}
		for _, end := range []*wire.LegCall{l.Departure, l.Arrival} {
			switch end.EventClassifierCode {
			case "ACT":
				if end.DateTime.After(at) {
					t.Errorf("ACT in the future: %s", end.DateTime)
				}
			case "EST", "PLN":
			default:
				t.Errorf("classifier %s", end.EventClassifierCode)
			}
		}
		if i > 0 {
			prev := r.Legs[i-1].Arrival
			if prev.Location.Locode != l.Departure.Location.Locode {
				t.Errorf("legs do not connect: %s then %s", prev.Location.Locode, l.Departure.Location.Locode)
			}
			if prev.EventClassifierCode == "PLN" && l.Departure.EventClassifierCode == "PLN" && l.Departure.DateTime.Sub(prev.DateTime) < 24*time.Hour {
				t.Errorf("planned connection under a day at %s", l.Departure.Location.Locode)
			}
		}
	}
	dep := r.Legs[0].Departure
	if dep.EventClassifierCode == "PLN" && (dep.DateTime.Before(q.DepartureStart) || dep.DateTime.After(q.DepartureEnd)) {
		t.Errorf("departure %s outside the window", dep.DateTime)
	}
	days := r.Legs[len(r.Legs)-1].Arrival.DateTime.Sub(dep.DateTime).Hours() / 24
	if r.TransitTime == nil || math.Abs(float64(*r.TransitTime)-days) > 0.5 {
		t.Errorf("transit time %v for %.2f days", r.TransitTime, days)
	}
}
