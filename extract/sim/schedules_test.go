package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/extract/sim"
)

// checkTimestamps checks the DCSA timestamps of one call at at: PLN arrival
// and departure, then arrival and departure each ACT (in the past) or EST.
func checkTimestamps(t *testing.T, ts []extract.Timestamp, at time.Time) {
	t.Helper()
	if len(ts) != 4 {
		t.Fatalf("%d timestamps, want 4", len(ts))
	}
	want := [][2]string{{"ARRI", "PLN"}, {"DEPA", "PLN"}}
	for i, w := range want {
		if ts[i].EventTypeCode != w[0] || ts[i].EventClassifierCode != w[1] {
			t.Errorf("timestamp %d: %s/%s, want %s/%s", i, ts[i].EventTypeCode, ts[i].EventClassifierCode, w[0], w[1])
		}
	}
	if ts[2].EventTypeCode != "ARRI" || ts[3].EventTypeCode != "DEPA" {
		t.Errorf("timestamps 2 and 3: %s, %s", ts[2].EventTypeCode, ts[3].EventTypeCode)
	}
	for _, x := range ts[2:] {
		switch x.EventClassifierCode {
		case "ACT":
			if x.EventDateTime.After(at) {
				t.Errorf("ACT %s %s after at %s", x.EventTypeCode, x.EventDateTime, at)
			}
		case "EST":
		default:
			t.Errorf("classifier %s", x.EventClassifierCode)
		}
	}
	if ts[3].EventClassifierCode == "ACT" && ts[2].EventClassifierCode != "ACT" {
		t.Error("departed but not arrived")
	}
	if !ts[0].EventDateTime.Before(ts[1].EventDateTime) || !ts[2].EventDateTime.Before(ts[3].EventDateTime) {
		t.Errorf("arrival not before departure: %v", ts)
	}
	for _, x := range ts {
		if x.EventDateTime.Location() != time.UTC || x.EventDateTime.Second() != 0 {
			t.Errorf("timestamp %s not UTC to the minute", x.EventDateTime)
		}
	}
}

func TestPortScheduleWindowAndTimestamps(t *testing.T) {
	w, _ := defaultWorld(t)
	for _, at := range []time.Time{start, start.AddDate(0, 0, 17).Add(5 * time.Hour), start.AddDate(0, 0, 59)} {
		ps, err := w.PortSchedule("NLRTM", at)
		if err != nil {
			t.Fatalf("PortSchedule: %v", err)
		}
		if len(ps.VesselSchedules) < 10 {
			t.Errorf("%s: only %d calls at Rotterdam in five weeks", at, len(ps.VesselSchedules))
		}
		var prev time.Time
		for _, vs := range ps.VesselSchedules {
			pln := vs.Timestamps[0].EventDateTime
			if pln.Before(at.Add(-7*24*time.Hour)) || pln.After(at.Add(28*24*time.Hour)) || pln.Before(prev) {
				t.Errorf("call planned %s: outside [at − 7 d, at + 28 d] or out of order", pln)
			}
			prev = pln
			if vs.CarrierServiceCode == nil || vs.CarrierImportVoyageNumber == nil || vs.CarrierExportVoyageNumber == nil || vs.Vessel == nil {
				t.Errorf("incomplete entry %+v", vs)
			}
			checkTimestamps(t, vs.Timestamps, at)
		}
	}
	for _, code := range []string{"XXXXX", "DEDUI"} {
		if _, err := w.PortSchedule(code, start); !errors.Is(err, sim.ErrNoData) {
			t.Errorf("PortSchedule(%s): %v, want ErrNoData", code, err)
		}
	}
	if _, err := w.PortSchedule("NLRTM", start.AddDate(3, 0, 0)); !errors.Is(err, sim.ErrNoData) {
		t.Errorf("PortSchedule far beyond the world: %v, want ErrNoData", err)
	}
}

func TestTurnaroundVoyagesDiffer(t *testing.T) {
	w, _ := defaultWorld(t)
	differ := 0
	for _, p := range []string{"DEBRV", "DEHAM", "USOAK", "TRMER", "USNYC"} {
		ps, err := w.PortSchedule(p, start)
		if err != nil {
			continue
		}
		for _, vs := range ps.VesselSchedules {
			if *vs.CarrierImportVoyageNumber != *vs.CarrierExportVoyageNumber {
				differ++
			}
		}
	}
	if differ == 0 {
		t.Error("no call with different import and export voyage numbers at turnaround ports")
	}
}

// The EST of a call in the port schedule is the POD date of a shipment on
// that call at the same time: one source of truth per call and revision.
func TestPortScheduleESTEqualsShipmentETA(t *testing.T) {
	w, tr := defaultWorld(t)
	matched := 0
	for _, s := range tr.Shipments {
		if !carrierTruth(t, tr, s.Sealine).Supports.Port {
			continue
		}
		last := s.Legs[len(s.Legs)-1]
		for _, at := range []time.Time{start, start.AddDate(0, 0, 9).Add(13 * time.Hour), last.ActualArrival.Add(-50 * time.Hour)} {
			if at.Before(s.BookedAt) || last.PlannedArrival.Before(at.Add(-7*24*time.Hour)) || last.PlannedArrival.After(at.Add(28*24*time.Hour)) {
				continue
			}
			sh := mustShipment(t, w, refOf(s), at)
			ps, err := w.PortSchedule(s.POD, at)
			if err != nil {
				t.Fatalf("PortSchedule(%s): %v", s.POD, err)
			}
			found := false
			for _, vs := range ps.VesselSchedules {
				if *vs.Vessel.IMO != last.VesselIMO || !vs.Timestamps[0].EventDateTime.Equal(last.PlannedArrival) {
					continue
				}
				found = true
				arr := vs.Timestamps[2]
				if !arr.EventDateTime.Equal(*sh.Route.Pod.Date) || (arr.EventClassifierCode == "ACT") != *sh.Route.Pod.Actual {
					t.Errorf("%s at %s: port schedule %s %s, shipment POD %s actual %v", s.Number, at,
						arr.EventClassifierCode, arr.EventDateTime, sh.Route.Pod.Date, *sh.Route.Pod.Actual)
				}
				matched++
			}
			if !found {
				t.Errorf("%s: call of vessel %d at %s not in the port schedule", s.Number, last.VesselIMO, s.POD)
			}
		}
	}
	if matched < 20 {
		t.Errorf("only %d matches checked", matched)
	}
}

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
func checkRoute(t *testing.T, r extract.P2PRoute, q sim.P2PQuery, at time.Time) {
	t.Helper()
	for i, l := range r.Legs {
		if l.SequenceNumber != i+1 || l.Vessel == nil || l.CarrierVoyageNumber == nil || l.CarrierServiceCode == nil {
			t.Errorf("leg %d incomplete: %+v", i, l)
		}
		for _, end := range []*extract.LegCall{l.Departure, l.Arrival} {
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
