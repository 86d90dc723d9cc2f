package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

func TestShipmentMix(t *testing.T) {
	w, tr := defaultWorld(t)
	refs := w.Shipments()
	if len(refs) != 400 || tr.Counts.Total != 400 {
		t.Fatalf("%d shipments, truth %d; want 400", len(refs), tr.Counts.Total)
	}
	share := func(n int) float64 { return float64(n) / float64(len(refs)) }
	bounds := []struct {
		what   string
		n      int
		lo, hi float64
	}{
		{"CT", tr.Counts.ByType["CT"], 0.42, 0.58},
		{"BL", tr.Counts.ByType["BL"], 0.22, 0.38},
		{"BK", tr.Counts.ByType["BK"], 0.12, 0.28},
		{"transhipped", tr.Counts.Transhipped, 0.25, 0.42},
		{"with inland origin or destination", tr.Counts.WithInland, 0.30, 0.50},
	}
	for _, b := range bounds {
		if s := share(b.n); s < b.lo || s > b.hi {
			t.Errorf("%s: %.0f %%, want %.0f–%.0f %%", b.what, 100*s, 100*b.lo, 100*b.hi)
		}
	}
	numbers, containers := map[string]bool{}, map[string]bool{}
	for i, s := range tr.Shipments {
		ref := refs[i]
		if ref.Number != s.Number || string(ref.Type) != s.Type || ref.Sealine != s.Sealine {
			t.Errorf("Shipments()[%d] = %s, truth %s", i, ref, s.Number)
		}
		if _, err := extract.ParseShipmentRef(ref.Number, string(ref.Type), ref.Sealine); err != nil {
			t.Errorf("%s: %v", ref, err)
		}
		if numbers[string(ref.Type)+ref.Number] {
			t.Errorf("%s: duplicate number", ref)
		}
		numbers[string(ref.Type)+ref.Number] = true
		switch {
		case ref.Type == wire.ShipmentContainer && (len(s.Containers) != 1 || s.Containers[0] != ref.Number):
			t.Errorf("%s: a CT shipment is its one container, got %v", ref, s.Containers)
		case len(s.Containers) < 1 || len(s.Containers) > 4:
			t.Errorf("%s: %d containers", ref, len(s.Containers))
		}
		for _, c := range s.Containers {
			if !wire.ValidContainerNumber(c) || containers[c] {
				t.Errorf("%s: container %s invalid or not unique", ref, c)
			}
			containers[c] = true
		}
	}
}

func TestPlannedTransitTimes(t *testing.T) {
	_, tr := defaultWorld(t)
	cases := []struct {
		pol, pod string
		lo, hi   float64
	}{
		{"CNSHA", "NLRTM", 30, 35},
		{"CNSHA", "USLAX", 14, 18},
	}
	for _, c := range cases {
		n := 0
		for _, s := range tr.Shipments {
			if s.POL != c.pol || s.POD != c.pod || s.Hub != "" {
				continue
			}
			n++
			days := s.Legs[0].PlannedArrival.Sub(s.Legs[0].PlannedDeparture).Hours() / 24
			if days < c.lo || days > c.hi {
				t.Errorf("%s %s→%s: planned transit %.1f days, want %.0f–%.0f", s.Number, c.pol, c.pod, days, c.lo, c.hi)
			}
		}
		if n == 0 {
			t.Errorf("no direct %s→%s shipment", c.pol, c.pod)
		}
	}
	for _, s := range tr.Shipments {
		total := s.Legs[len(s.Legs)-1].PlannedArrival.Sub(s.Legs[0].PlannedDeparture).Hours() / 24
		if total < 1 || total > 70 {
			t.Errorf("%s %s→%s: planned transit %.1f days", s.Number, s.POL, s.POD, total)
		}
	}
}

var hubs = map[string]bool{"SGSIN": true, "MYTPP": true, "MYPKG": true, "LKCMB": true, "AEJEA": true, "OMSLL": true,
	"MAPTM": true, "ESALG": true, "PAMIT": true, "KRPUS": true, "HKHKG": true, "GRPIR": true}

func TestTranshipmentsConnect(t *testing.T) {
	_, tr := defaultWorld(t)
	for _, s := range tr.Shipments {
		if s.Hub == "" {
			if len(s.Legs) != 1 {
				t.Errorf("%s: %d legs without a hub", s.Number, len(s.Legs))
			}
			continue
		}
		if len(s.Legs) != 2 || !hubs[s.Hub] || s.Legs[0].To != s.Hub || s.Legs[1].From != s.Hub {
			t.Errorf("%s: hub %s, legs %+v", s.Number, s.Hub, s.Legs)
			continue
		}
		a, b := s.Legs[0], s.Legs[1]
		if b.PlannedDeparture.Sub(a.PlannedArrival) < 24*time.Hour || b.ActualDeparture.Sub(a.ActualArrival) < 24*time.Hour {
			t.Errorf("%s: connection at %s under a day", s.Number, s.Hub)
		}
		if b.Service == a.Service && b.VesselIMO == a.VesselIMO {
			t.Errorf("%s: transhipped onto the same vessel", s.Number)
		}
	}
}

func TestShipmentStagesDuringADemo(t *testing.T) {
	w, tr := defaultWorld(t)
	demoEnd := start.AddDate(0, 0, 30)
	var finished, inTransit, bookedDuringRun int
	for _, s := range tr.Shipments {
		switch {
		case s.BookedAt.After(start) && s.BookedAt.Before(demoEnd):
			bookedDuringRun++
		case polDeparture(s).Before(start) && podArrival(s).After(start):
			inTransit++
		}
		sh, err := w.Shipment(refOf(s), start)
		if s.BookedAt.After(start) {
			if !errors.Is(err, sim.ErrNoData) {
				t.Errorf("%s booked %s answered at Start: %v", s.Number, s.BookedAt, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", s.Number, err)
		}
		if *sh.Metadata.ShippingStatus == "DELIVERED" {
			finished++
		}
	}
	t.Logf("at Start: %d finished, %d at sea; %d booked during a 30-day run", finished, inTransit, bookedDuringRun)
	if finished < 20 || inTransit < 60 || bookedDuringRun < 40 {
		t.Errorf("stages at Start: %d finished, %d at sea, %d booked during the run", finished, inTransit, bookedDuringRun)
	}
}

func TestShipmentNotFoundBeforeBooking(t *testing.T) {
	w, tr := defaultWorld(t)
	for _, s := range tr.Shipments[:50] {
		ref := refOf(s)
		if _, err := w.Shipment(ref, s.BookedAt.Add(-time.Minute)); !errors.Is(err, sim.ErrNoData) {
			t.Errorf("%s a minute before booking: %v, want ErrNoData", s.Number, err)
		}
		sh := mustShipment(t, w, ref, s.BookedAt)
		first := sh.Containers[0].Events[0]
		lead := first.Date.Sub(s.BookedAt)
		for _, c := range sh.Containers {
			if d := c.Events[0].Date.Sub(s.BookedAt); d < lead {
				lead = d
			}
		}
		if lead < 12*time.Hour || first.IsActual {
			t.Errorf("%s: booked %s before the first event (actual %v)", s.Number, lead, first.IsActual)
		}
	}
}

func TestShipmentLookups(t *testing.T) {
	w, tr := defaultWorld(t)
	at := start.AddDate(0, 0, 40)
	other := map[string]string{"MAEU": "MSCU"}
	for _, s := range tr.Shipments {
		if s.BookedAt.After(at) {
			continue
		}
		ref := refOf(s)
		wrong := other[s.Sealine]
		if wrong == "" {
			wrong = "MAEU"
		}
		if _, err := w.Shipment(wire.ShipmentRef{Number: ref.Number, Type: ref.Type, Sealine: wrong}, at); !errors.Is(err, sim.ErrNoData) {
			t.Errorf("%s with sealine %s: %v, want ErrNoData", s.Number, wrong, err)
		}
		anyLine := mustShipment(t, w, wire.ShipmentRef{Number: ref.Number, Type: ref.Type}, at)
		if *anyLine.Metadata.Sealine != s.Sealine || anyLine.Metadata.ShipmentNumber != s.Number || anyLine.Metadata.ShipmentType != s.Type {
			t.Errorf("%s: metadata %+v", s.Number, anyLine.Metadata)
		}
		if len(anyLine.Containers) != len(s.Containers) {
			t.Errorf("%s: %d containers, want %d", s.Number, len(anyLine.Containers), len(s.Containers))
		}
		if s.Type != "CT" {
			// Each container of a bill of lading or booking is trackable by itself.
			c := s.Containers[len(s.Containers)-1]
			one := mustShipment(t, w, wire.ShipmentRef{Number: c, Type: wire.ShipmentContainer, Sealine: s.Sealine}, at)
			if len(one.Containers) != 1 || one.Containers[0].Number != c || one.Metadata.ShipmentType != "CT" {
				t.Errorf("container %s of %s: %+v", c, s.Number, one.Metadata)
			}
			if _, err := w.Shipment(wire.ShipmentRef{Number: s.Number, Type: wire.ShipmentContainer}, at); !errors.Is(err, sim.ErrNoData) {
				t.Errorf("%s asked as a container: %v, want ErrNoData", s.Number, err)
			}
		}
	}
	if _, err := w.Shipment(wire.ShipmentRef{Number: "MSCU1234566", Type: wire.ShipmentContainer}, at); !errors.Is(err, sim.ErrNoData) {
		t.Errorf("unknown container: %v, want ErrNoData", err)
	}
}

func TestRouteMatchesEvents(t *testing.T) {
	w, tr := defaultWorld(t)
	for _, s := range tr.Shipments {
		for _, at := range []time.Time{start, start.AddDate(0, 0, 21)} {
			if at.Before(s.BookedAt) {
				continue
			}
			sh := mustShipment(t, w, refOf(s), at)
			r := sh.Route
			if r.Pol == nil || r.Pod == nil || r.Pol.Location.Locode != s.POL || r.Pod.Location.Locode != s.POD {
				t.Fatalf("%s: route %+v", s.Number, r)
			}
			if (r.Postpod != nil) != (s.Postpod != "") || (r.Postpod != nil && r.Postpod.Location.Locode != s.Postpod) {
				t.Errorf("%s: postpod %+v, truth %q", s.Number, r.Postpod, s.Postpod)
			}
			if s.Prepol != "" && (r.Prepol == nil || r.Prepol.Location.Locode != s.Prepol) {
				t.Errorf("%s: prepol %+v, truth %q", s.Number, r.Prepol, s.Prepol)
			}
			if s.Prepol == "" && r.Prepol != nil && r.Prepol.Location.Locode != s.POL {
				t.Errorf("%s: prepol %s without inland origin", s.Number, r.Prepol.Location.Locode)
			}
			ev := map[string]wire.Event{}
			for _, e := range sh.Containers[0].Events {
				ev[e.Status] = e
			}
			same := func(what string, p *wire.RoutePoint, e wire.Event) {
				if !p.Date.Equal(*e.Date) || *p.Actual != e.IsActual {
					t.Errorf("%s at %s: route %s %s/%v, event %s %s/%v", s.Number, at, what, p.Date, *p.Actual, e.Status, e.Date, e.IsActual)
				}
			}
			same("pol", r.Pol, ev["VDL"])
			same("pod", &r.Pod.RoutePoint, ev["VAD"])
			if r.Postpod != nil {
				same("postpod", r.Postpod, ev["LAD"])
			}
			if s.Prepol != "" {
				same("prepol", r.Prepol, ev["LDO"])
			}
			if *r.Pod.Actual && !r.Pod.Date.Equal(podArrival(s)) {
				t.Errorf("%s: actual POD date %s, truth %s", s.Number, r.Pod.Date, podArrival(s))
			}
		}
	}
}
