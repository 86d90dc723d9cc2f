package sim_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

var (
	jumpyOnce  sync.Once
	jumpyW     *sim.World
	jumpyTruth sim.Truth
)

// jumpyWorld is a world of 2000 shipments (seed 3), built once: enough
// that each kind of jump changes shipments their clients see.
func jumpyWorld(t testing.TB) (*sim.World, sim.Truth) {
	t.Helper()
	jumpyOnce.Do(func() {
		jumpyW = sim.NewWorld(sim.WorldConfig{Seed: 3, Shipments: 2000})
		jumpyTruth = jumpyW.Truth()
	})
	return jumpyW, jumpyTruth
}

// shownIMO is the vessel the service shows, at at, for a call the truth
// says imo sails: the planned ship until the swap that brought imo in is
// announced.
func shownIMO(tr sim.Truth, imo int, at time.Time) int {
	return vesselAt(tr, sim.LegTruth{VesselIMO: imo}, at)
}

// visibleJumps calls f for every jump a client tracking from booking sees,
// up to limit per kind (0: all).
func visibleJumps(tr sim.Truth, limit int, f func(s sim.ShipmentTruth, j sim.JumpTruth)) map[string]int {
	n := map[string]int{}
	for _, s := range tr.Shipments {
		for _, j := range s.Jumps {
			if j.Visible && (limit == 0 || n[j.Kind] < limit) {
				n[j.Kind]++
				f(s, j)
			}
		}
	}
	return n
}

// Over a large world each carrier's rolls, omissions and swaps come at its
// rates, within sampling error: a binomial count more than 4 standard
// deviations from its expectation fails (for 39 counts that happens by
// chance about once in 400 worlds), and so does the sum over carriers of
// each kind beyond 3.
func TestJumpRatesMatchTheCarriers(t *testing.T) {
	slowtest.Long(t)
	w := sim.NewWorld(sim.WorldConfig{Seed: 11, Shipments: 24000, Days: 300, EvenCarriers: true})
	tr := w.Truth()
	z := func(k, n int, p float64) float64 { return (float64(k) - p*float64(n)) / math.Sqrt(p*(1-p)*float64(n)) }
	type sum struct {
		k    int
		mean float64
		vari float64
	}
	kinds := map[string]*sum{"roll": {}, "omission": {}, "swap": {}}
	for _, c := range tr.Carriers {
		j := c.Jumps
		if j.RollRate <= 0 || j.OmissionRate <= 0 || j.SwapRate <= 0 {
			t.Errorf("%s: rates %+v: want each above 0", c.SCAC, j)
			continue
		}
		for _, x := range []struct {
			kind string
			k, n int
			p    float64
		}{
			{"roll", j.Rolls, j.Loadings, j.RollRate},
			{"omission", j.OmittedCalls, j.OmissibleCalls, j.OmissionRate},
			{"swap", j.SwappedVoyages, j.Voyages, j.SwapRate},
		} {
			zz := z(x.k, x.n, x.p)
			t.Logf("%s %-8s %4d of %5d (%.4f, rate %.4f) z %+.2f", c.SCAC, x.kind, x.k, x.n, float64(x.k)/float64(x.n), x.p, zz)
			if math.Abs(zz) > 4 || x.n < 300 {
				t.Errorf("%s: %d %ss of %d, rate %.3f: z = %+.1f", c.SCAC, x.k, x.kind, x.n, x.p, zz)
			}
			s := kinds[x.kind]
			s.k += x.k
			s.mean += x.p * float64(x.n)
			s.vari += x.p * (1 - x.p) * float64(x.n)
		}
	}
	for kind, s := range kinds {
		if zz := (float64(s.k) - s.mean) / math.Sqrt(s.vari); math.Abs(zz) > 3 {
			t.Errorf("%ss: %d over all carriers, expected %.0f: z = %+.1f", kind, s.k, s.mean, zz)
		}
	}
	if len(tr.Jumps.Omissions) != sumOf(tr, func(j sim.CarrierJumps) int { return j.OmittedCalls }) ||
		len(tr.Jumps.Swaps) != sumOf(tr, func(j sim.CarrierJumps) int { return j.SwappedVoyages }) {
		t.Errorf("%d omissions and %d swaps listed, the carriers count others", len(tr.Jumps.Omissions), len(tr.Jumps.Swaps))
	}
	rolled := 0
	for _, s := range tr.Shipments {
		for _, j := range s.Jumps {
			if j.Kind == "roll" {
				rolled++
			}
		}
	}
	if rolled != sumOf(tr, func(j sim.CarrierJumps) int { return j.Rolls }) {
		t.Errorf("%d rolls in the shipments' jumps, the carriers count %d", rolled, sumOf(tr, func(j sim.CarrierJumps) int { return j.Rolls }))
	}
}

func sumOf(tr sim.Truth, f func(sim.CarrierJumps) int) int {
	n := 0
	for _, c := range tr.Carriers {
		n += f(c.Jumps)
	}
	return n
}

// Every change is announced on one of the carrier's daily revisions, and at
// least 4 days before the arrival it makes: the ETA known 1 and 3 days out
// is never one from before a jump.
func TestJumpsAreAnnouncedAheadOnARevision(t *testing.T) {
	_, tr := jumpyWorld(t)
	revision := map[string]string{}
	for _, c := range tr.Carriers {
		revision[c.SCAC] = c.RevisionTimeUTC
	}
	if !tr.Jumps.Enabled || tr.Jumps.MinLeadHours != 96 || !tr.Jumps.RevisionAligned {
		t.Fatalf("jumps truth %+v", tr.Jumps.Counts)
	}
	n := 0
	for _, s := range tr.Shipments {
		for _, j := range s.Jumps {
			n++
			if lead := podArrival(s).Sub(j.AnnouncedAt); lead < 96*time.Hour {
				t.Errorf("%s: %s announced %s before its arrival at the POD", s.Number, j.Kind, lead)
			}
			if got := j.AnnouncedAt.Format("15:04"); got != revision[s.Sealine] {
				t.Errorf("%s: %s announced at %s, the carrier revises at %s", s.Number, j.Kind, got, revision[s.Sealine])
			}
			if j.Visible != !j.AnnouncedAt.Before(s.BookedAt) {
				t.Errorf("%s: %s announced %s, booked %s, visible %v", s.Number, j.Kind, j.AnnouncedAt, s.BookedAt, j.Visible)
			}
		}
	}
	for _, o := range tr.Jumps.Omissions {
		if o.PlannedArrival.Sub(o.AnnouncedAt) < 96*time.Hour || o.AnnouncedAt.Format("15:04") != revision[o.Carrier] {
			t.Errorf("omission of %s by %d announced %s, planned %s", o.Port, o.VesselIMO, o.AnnouncedAt, o.PlannedArrival)
		}
	}
	for _, sw := range tr.Jumps.Swaps {
		if sw.PlannedStart.Sub(sw.AnnouncedAt) < 72*time.Hour || sw.AnnouncedAt.Format("15:04") != revision[sw.Carrier] {
			t.Errorf("swap of %d by %d announced %s, planned to start %s", sw.VesselIMO, sw.Substitute.IMO, sw.AnnouncedAt, sw.PlannedStart)
		}
	}
	if n == 0 || tr.Jumps.Counts.Visible == 0 {
		t.Fatal("no jump in the default world")
	}
}

// The tracking answer's route.pod is CarrierETA, at any time: one source
// for what the carrier reports (and what a push would compare).
func TestCarrierETAIsTheTrackingAnswersPOD(t *testing.T) {
	w, tr := defaultWorld(t)
	checked := 0
	for i, s := range tr.Shipments {
		ref := refOf(s)
		for at := s.BookedAt.Add(time.Duration(i%13) * time.Hour); at.Before(podArrival(s).Add(48 * time.Hour)); at = at.Add(61 * time.Hour) {
			sh := mustShipment(t, w, ref, at)
			e, err := w.CarrierETA(ref, at)
			if err != nil {
				t.Fatal(err)
			}
			pod := sh.Route.Pod
			if e.POD != pod.Location.Locode || !e.ETA.Equal(*pod.Date) || e.Actual != *pod.Actual || e.RevisedAt.After(at) {
				t.Fatalf("%s at %s: CarrierETA %+v, route.pod %s %s %v", s.Number, at, e, pod.Location.Locode, pod.Date, *pod.Actual)
			}
			checked++
		}
		if _, err := w.CarrierETA(ref, s.BookedAt.Add(-time.Minute)); !errors.Is(err, sim.ErrNoData) {
			t.Errorf("%s before booking: %v, want ErrNoData", s.Number, err)
		}
	}
	t.Logf("%d answers compared", checked)
}

// The carrier's report of a shipment changes only when the carrier revises
// (a jump's announcement included) and when the box arrives: hour by hour
// over a shipment's life, a change falls between two hours that hold a new
// revision or the arrival. A push that looks at each revision sees every
// change.
func TestCarrierETAChangesOnlyAtRevisionsAndTheArrival(t *testing.T) {
	w, tr := jumpyWorld(t)
	changes, jumps := 0, 0
	n := 0
	for _, s := range tr.Shipments {
		if len(s.Jumps) == 0 || !s.Jumps[0].Visible || n == 25 {
			continue
		}
		n++
		ref := refOf(s)
		prev, err := w.CarrierETA(ref, s.BookedAt)
		if err != nil {
			t.Fatal(err)
		}
		for at := s.BookedAt.Add(time.Hour); at.Before(podArrival(s).Add(2 * time.Hour)); at = at.Add(time.Hour) {
			e, err := w.CarrierETA(ref, at)
			if err != nil {
				t.Fatal(err)
			}
			if e != prev {
				changes++
				arrived := !podArrival(s).After(at) && podArrival(s).After(at.Add(-time.Hour))
				if e.RevisedAt.Equal(prev.RevisedAt) && !arrived {
					t.Errorf("%s: the report changed between %s and %s without a revision or the arrival: %+v, then %+v", s.Number, at.Add(-time.Hour), at, prev, e)
				}
				if e.POD != prev.POD || math.Abs(e.ETA.Sub(prev.ETA).Hours()) > 72 {
					jumps++
				}
			}
			prev = e
		}
	}
	t.Logf("%d shipments: %d changes, %d of them jumps of a POD or over 3 days", n, changes, jumps)
	if n < 25 || jumps == 0 {
		t.Fatalf("%d shipments, %d jumps seen", n, jumps)
	}
}

// A jump moves the carrier's ETA at its announcement, not before: through
// the revision before it the ETA is the one from before, from it on the one
// after, at the POD the change leaves.
func TestCarrierETAJumpsAtTheAnnouncementNotBefore(t *testing.T) {
	w, tr := jumpyWorld(t)
	big := 0
	seen := visibleJumps(tr, 0, func(s sim.ShipmentTruth, j sim.JumpTruth) {
		ref := refOf(s)
		at := func(d time.Duration) sim.ReportedETA {
			t.Helper()
			e, err := w.CarrierETA(ref, j.AnnouncedAt.Add(d))
			if err != nil {
				t.Fatalf("%s: %v", s.Number, err)
			}
			return e
		}
		for _, d := range []time.Duration{-time.Minute, -23 * time.Hour} {
			if j.AnnouncedAt.Add(d).Before(s.BookedAt) {
				continue
			}
			if e := at(d); !e.ETA.Equal(j.ETABefore) {
				t.Errorf("%s: %s announced %s: ETA %s at %s before, want the ETA from before, %s", s.Number, j.Kind, j.AnnouncedAt, e.ETA, -d, j.ETABefore)
			}
		}
		for _, d := range []time.Duration{0, 23 * time.Hour} {
			if e := at(d); !e.ETA.Equal(j.ETAAfter) || e.POD != j.POD || e.Actual {
				t.Errorf("%s: %s announced %s: %s after, ETA %s at %s, want %s at %s", s.Number, j.Kind, j.AnnouncedAt, d, e.ETA, e.POD, j.ETAAfter, j.POD)
			}
		}
		if j.ETAJumpHours != math.Round(j.ETAAfter.Sub(j.ETABefore).Hours()*100)/100 {
			t.Errorf("%s: eta_jump_hours %.2f, after − before %s", s.Number, j.ETAJumpHours, j.ETAAfter.Sub(j.ETABefore))
		}
		if j.Kind == "roll" && j.ETAJumpHours >= 72 {
			big++
		}
	})
	t.Logf("visible jumps: %v; rolls moving the ETA by 3 days or more: %d", seen, big)
	if seen["roll"] < 10 || seen["swap"] == 0 || seen["omission"] == 0 {
		t.Fatalf("visible jumps %v: too few to judge", seen)
	}
	if 10*big < 8*seen["roll"] {
		t.Errorf("only %d of %d rolls moved the ETA by 3 days or more: a roll is a later sailing", big, seen["roll"])
	}
}

// eventsOf indexes a container's events by status and its occurrence; an
// event repeated right after itself (as the service sometimes does) is one.
func eventsOf(c wire.Container) map[string]wire.Event {
	out := map[string]wire.Event{}
	n := map[string]int{}
	for i, e := range c.Events {
		if i > 0 && reflect.DeepEqual(e, c.Events[i-1]) {
			continue
		}
		out[fmt.Sprintf("%s#%d", e.Status, n[e.Status])] = e
		n[e.Status]++
	}
	return out
}

// Around a roll or an omission the tracking answer follows the itinerary
// in force — POL, POD, the vessel and voyage of the loading and of the
// arrival — and the schedules agree where they meet it: the port schedule
// of the new loading or discharge shows that vessel's call.
func TestRollsAndOmissionsAreConsistentAcrossAnswers(t *testing.T) {
	w, tr := jumpyWorld(t)
	byPort := map[string]bool{}
	for _, c := range tr.Carriers {
		byPort[c.SCAC] = c.Supports.Port
	}
	scheduled, loadings := 0, 0
	seen := visibleJumps(tr, 0, func(s sim.ShipmentTruth, j sim.JumpTruth) {
		if j.Kind == "swap" {
			return
		}
		for _, at := range []time.Time{j.AnnouncedAt.Add(-time.Minute), j.AnnouncedAt, j.AnnouncedAt.Add(50 * time.Hour)} {
			if at.Before(s.BookedAt) {
				continue
			}
			legs := legsAt(s, at)
			first, last := legs[0], legs[len(legs)-1]
			sh := mustShipment(t, w, refOf(s), at)
			if sh.Route.Pol.Location.Locode != first.From || sh.Route.Pod.Location.Locode != last.To {
				t.Errorf("%s at %s: route %s → %s, itinerary %s → %s", s.Number, at, sh.Route.Pol.Location.Locode, sh.Route.Pod.Location.Locode, first.From, last.To)
			}
			ev := eventsOf(sh.Containers[0])
			vdl, vad := ev["VDL#0"], ev["VAD#0"]
			if *vdl.Vessel.IMO != vesselAt(tr, first, at) || *vdl.Voyage != first.Voyage || vdl.Location.Locode != first.From {
				t.Errorf("%s at %s: departed on %d %s at %s, itinerary %d %s at %s", s.Number, at, *vdl.Vessel.IMO, *vdl.Voyage, vdl.Location.Locode,
					vesselAt(tr, first, at), first.Voyage, first.From)
			}
			if *vad.Vessel.IMO != vesselAt(tr, last, at) || vad.Location.Locode != last.To || !vad.Date.Equal(*sh.Route.Pod.Date) {
				t.Errorf("%s at %s: arrives on %d at %s %s, itinerary %d at %s", s.Number, at, *vad.Vessel.IMO, vad.Location.Locode, vad.Date, vesselAt(tr, last, at), last.To)
			}
			if !byPort[s.Sealine] {
				continue
			}
			// The loading call, by its planned departure, in the port
			// schedule of the POL (when planned within its window).
			if ps, err := w.PortSchedule(first.From, at); err == nil {
				for _, vs := range ps.VesselSchedules {
					if *vs.Vessel.IMO == vesselAt(tr, first, at) && vs.Timestamps[1].EventDateTime.Equal(first.PlannedDeparture) {
						loadings++
						if !vs.Timestamps[3].EventDateTime.Equal(*vdl.Date) {
							t.Errorf("%s at %s: port schedule departs %s, tracking VDL %s", s.Number, at, vs.Timestamps[3].EventDateTime, vdl.Date)
						}
					}
				}
			}
			if !last.PlannedArrival.After(at.AddDate(0, 0, -7)) || last.PlannedArrival.After(at.AddDate(0, 0, 28)) {
				continue
			}
			ps, err := w.PortSchedule(last.To, at)
			if err != nil {
				t.Fatalf("%s: PortSchedule(%s): %v", s.Number, last.To, err)
			}
			found := false
			for _, vs := range ps.VesselSchedules {
				if *vs.Vessel.IMO == vesselAt(tr, last, at) && vs.Timestamps[0].EventDateTime.Equal(last.PlannedArrival) {
					found = true
					if !vs.Timestamps[2].EventDateTime.Equal(*sh.Route.Pod.Date) {
						t.Errorf("%s at %s: port schedule %s, tracking POD %s", s.Number, at, vs.Timestamps[2].EventDateTime, sh.Route.Pod.Date)
					}
				}
			}
			if !found {
				t.Errorf("%s at %s: the call at %s it arrives on is not in the port schedule", s.Number, at, last.To)
			}
			scheduled++
		}
	})
	t.Logf("visible jumps %v; %d loadings and %d discharges matched in port schedules", seen, loadings, scheduled)
	if seen["roll"] == 0 || scheduled == 0 || loadings == 0 {
		t.Fatal("nothing compared")
	}
}

// hasCall reports whether a by-port or by-vessel schedule lists a call
// planned at pln at port of vessel imo.
func hasPortCall(ps *wire.PortSchedule, imo int, pln time.Time) bool {
	for _, vs := range ps.VesselSchedules {
		if *vs.Vessel.IMO == imo && vs.Timestamps[0].EventDateTime.Equal(pln) {
			return true
		}
	}
	return false
}

func hasVesselCall(vs *wire.VesselSchedule, port string, pln time.Time) bool {
	for _, c := range vs.TransportCalls {
		if c.Location.Locode == port && c.Timestamps[0].EventDateTime.Equal(pln) {
			return true
		}
	}
	return false
}

// An omitted call is in the schedules (by port, by vessel) until its
// omission is announced, and in none after.
func TestOmittedCallsLeaveTheSchedules(t *testing.T) {
	w, tr := jumpyWorld(t)
	supports := map[string]sim.Supports{}
	for _, c := range tr.Carriers {
		supports[c.SCAC] = c.Supports
	}
	checked := 0
	for _, o := range tr.Jumps.Omissions {
		if o.AnnouncedAt.Before(start.AddDate(0, 0, -5)) || o.AnnouncedAt.After(start.AddDate(0, 0, 60)) {
			continue
		}
		for _, at := range []time.Time{o.AnnouncedAt.Add(-time.Minute), o.AnnouncedAt} {
			want := at.Before(o.AnnouncedAt)
			imo := shownIMO(tr, o.VesselIMO, at)
			if supports[o.Carrier].Port {
				ps, err := w.PortSchedule(o.Port, at)
				if got := err == nil && hasPortCall(ps, imo, o.PlannedArrival); got != want {
					t.Errorf("%s of %d planned %s, omission announced %s: in the port schedule at %s: %v", o.Port, imo, o.PlannedArrival, o.AnnouncedAt, at, got)
				}
				checked++
			}
			if supports[o.Carrier].Vessel {
				vs, err := w.VesselSchedule(imo, at)
				if got := err == nil && hasVesselCall(vs, o.Port, o.PlannedArrival); got != want {
					t.Errorf("%s of %d planned %s, omission announced %s: in the vessel schedule at %s: %v", o.Port, imo, o.PlannedArrival, o.AnnouncedAt, at, got)
				}
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d schedules checked", checked)
	}
}

// A swapped voyage shows its planned ship until the swap is announced and
// its substitute from then on, in the port and vessel schedules and in the
// events of the boxes it carries; the substitute has a vessel schedule only
// once announced.
func TestSwappedVoyagesShowTheSubstitute(t *testing.T) {
	w, tr := jumpyWorld(t)
	supports := map[string]sim.Supports{}
	for _, c := range tr.Carriers {
		supports[c.SCAC] = c.Supports
	}
	checked := 0
	for _, sw := range tr.Jumps.Swaps {
		if sw.AnnouncedAt.Before(start.AddDate(0, 0, -5)) || sw.AnnouncedAt.After(start.AddDate(0, 0, 60)) {
			continue
		}
		if sw.Substitute.Carrier != sw.Carrier || sw.Substitute.Service != sw.Service || sw.Substitute.IMO == sw.VesselIMO || sw.Calls < 4 {
			t.Errorf("swap %+v", sw)
		}
		before, after := sw.AnnouncedAt.Add(-time.Minute), sw.AnnouncedAt
		if supports[sw.Carrier].Port {
			for _, x := range []struct {
				at  time.Time
				imo int
			}{{before, sw.VesselIMO}, {after, sw.Substitute.IMO}} {
				ps, err := w.PortSchedule(sw.FirstPort, x.at)
				if err != nil || !hasPortCall(ps, x.imo, sw.PlannedStart) {
					t.Errorf("swap of %s %s at %s: the first call, planned %s, not shown with %d at %s", sw.Service, sw.Voyage, sw.FirstPort, sw.PlannedStart, x.imo, x.at)
				}
			}
			checked++
		}
		if supports[sw.Carrier].Vessel {
			if vs, err := w.VesselSchedule(sw.Substitute.IMO, before); err == nil && hasVesselCall(vs, sw.FirstPort, sw.PlannedStart) {
				t.Errorf("substitute %d sails %s %s before the swap is announced", sw.Substitute.IMO, sw.Service, sw.Voyage)
			}
			vs, err := w.VesselSchedule(sw.Substitute.IMO, after)
			if err != nil || !hasVesselCall(vs, sw.FirstPort, sw.PlannedStart) || *vs.Vessel.IMO != sw.Substitute.IMO || *vs.CarrierServiceCode != sw.Service {
				t.Errorf("substitute %d: no call at %s planned %s once announced (%v)", sw.Substitute.IMO, sw.FirstPort, sw.PlannedStart, err)
			}
			if ps, err := w.VesselSchedule(sw.VesselIMO, after); err == nil && hasVesselCall(ps, sw.FirstPort, sw.PlannedStart) {
				t.Errorf("planned ship %d still sails %s %s once the swap is announced", sw.VesselIMO, sw.Service, sw.Voyage)
			}
			if ps, err := w.VesselSchedule(sw.VesselIMO, before); err != nil || !hasVesselCall(ps, sw.FirstPort, sw.PlannedStart) {
				t.Errorf("planned ship %d does not sail %s %s before the swap is announced", sw.VesselIMO, sw.Service, sw.Voyage)
			}
			checked++
		}
	}
	events, routes := 0, 0
	visibleJumps(tr, 0, func(s sim.ShipmentTruth, j sim.JumpTruth) {
		if j.Kind != "swap" {
			return
		}
		l := s.Legs[j.Leg-1]
		for _, at := range []time.Time{j.AnnouncedAt.Add(-time.Minute), j.AnnouncedAt} {
			if at.Before(s.BookedAt) {
				continue
			}
			// Port to port, the sailing shows the vessel the schedules show.
			q := sim.P2PQuery{DepartureStart: l.PlannedDeparture.Add(-time.Hour), DepartureEnd: l.PlannedDeparture.Add(time.Hour), MaxTranshipment: 0}
			if p2p, err := w.PointToPoint(l.From, l.To, q, at); err == nil {
				for _, r := range p2p.Routes {
					if leg := r.Legs[0]; *leg.CarrierVoyageNumber == l.Voyage && r.CarrierCode == s.Sealine {
						routes++
						if *leg.Vessel.IMO != vesselAt(tr, l, at) {
							t.Errorf("%s → %s at %s: the sailing on %d, the voyage is sailed by %d", l.From, l.To, at, *leg.Vessel.IMO, vesselAt(tr, l, at))
						}
					}
				}
			}
			for _, e := range mustShipment(t, w, refOf(s), at).Containers[0].Events {
				if e.Vessel != nil && e.Voyage != nil && *e.Voyage == l.Voyage && (e.Status == "CLL" || e.Status == "VDL" || e.Status == "CLT" || e.Status == "VDT") {
					events++
					if *e.Vessel.IMO != vesselAt(tr, l, at) {
						t.Errorf("%s at %s: %s on %d, the voyage is sailed by %d", s.Number, at, e.Status, *e.Vessel.IMO, vesselAt(tr, l, at))
					}
				}
			}
		}
	})
	if checked < 10 || events == 0 || routes == 0 {
		t.Fatalf("%d swaps checked in schedules, %d events, %d port-to-port sailings", checked, events, routes)
	}
}

// What a box's events already said stays said through every change: once
// actual, an event keeps its date, place and vessel; actual events stay in
// order.
func TestEventsThatHappenedStaySaid(t *testing.T) {
	slowtest.Long(t)
	w, tr := jumpyWorld(t)
	type said struct {
		date  time.Time
		place string
		imo   int
	}
	n := 0
	for _, s := range tr.Shipments {
		visible := false
		for _, j := range s.Jumps {
			visible = visible || j.Visible
		}
		if !visible || n == 60 {
			continue
		}
		n++
		ref := refOf(s)
		state := map[string]said{}
		for at := s.BookedAt; at.Before(podArrival(s).Add(10 * 24 * time.Hour)); at = at.Add(7 * time.Hour) {
			sh := mustShipment(t, w, ref, at)
			for _, c := range sh.Containers {
				var last time.Time
				now := eventsOf(c)
				for k, prev := range state {
					if k[:len(c.Number)] != c.Number {
						continue
					}
					e, ok := now[k[len(c.Number)+1:]]
					imo := 0
					if ok && e.Vessel != nil {
						imo = *e.Vessel.IMO
					}
					if !ok || !e.IsActual || !e.Date.Equal(prev.date) || e.Location.Locode != prev.place || imo != prev.imo {
						t.Fatalf("%s %s %s: actual at %s in %s on %d, at %s: %+v", s.Number, c.Number, k, prev.date, prev.place, prev.imo, at, e)
					}
				}
				for _, e := range c.Events {
					if !e.IsActual {
						continue
					}
					if e.Date.Before(last) {
						t.Errorf("%s at %s: actual %s out of order", s.Number, at, e.Status)
					}
					last = *e.Date
				}
				for k, e := range now {
					if e.IsActual {
						imo := 0
						if e.Vessel != nil {
							imo = *e.Vessel.IMO
						}
						state[c.Number+"/"+k] = said{*e.Date, e.Location.Locode, imo}
					}
				}
			}
		}
	}
	if n < 60 {
		t.Fatalf("only %d shipments with jumps seen", n)
	}
}

// Every itinerary a shipment has — booked, after each jump, sailed — can be
// sailed: each leg arrives after it departs, on the ship it loaded on, a
// transhipment connects a day or more after the first leg arrives, both as
// planned and as it happened; a roll keeps the POL and the POD booked, an
// omission moves the POD to the port the vessel calls next.
func TestJumpedItinerariesCanBeSailed(t *testing.T) {
	_, tr := jumpyWorld(t)
	next := map[string]string{}
	for _, o := range tr.Jumps.Omissions {
		next[o.Port+o.PlannedArrival.String()] = o.NextPort
	}
	sailable := func(s sim.ShipmentTruth, what string, legs []sim.LegTruth) {
		for i, l := range legs {
			if !l.ActualArrival.After(l.ActualDeparture) || !l.PlannedArrival.After(l.PlannedDeparture) {
				t.Errorf("%s %s: leg %d departs %s, arrives %s", s.Number, what, i+1, l.ActualDeparture, l.ActualArrival)
			}
			if i > 0 && (l.ActualDeparture.Sub(legs[i-1].ActualArrival) < 24*time.Hour || l.PlannedDeparture.Sub(legs[i-1].PlannedArrival) < 24*time.Hour) {
				t.Errorf("%s %s: connection at %s under a day", s.Number, what, l.From)
			}
		}
	}
	n := 0
	for _, s := range tr.Shipments {
		booked := bookedLegs(s)
		sailable(s, "booked", booked)
		sailable(s, "sailed", s.Legs)
		prev := booked
		for _, j := range s.Jumps {
			if j.Legs == nil {
				continue
			}
			n++
			sailable(s, j.Kind, j.Legs)
			if j.Legs[0].From != booked[0].From {
				t.Errorf("%s: %s moved the POL from %s to %s", s.Number, j.Kind, booked[0].From, j.Legs[0].From)
			}
			last, was := j.Legs[len(j.Legs)-1], prev[len(prev)-1]
			switch {
			case last.To == booked[len(booked)-1].To:
			case j.Kind == "omission" && j.Port == was.To && next[was.To+was.PlannedArrival.String()] != "":
				// the next port the vessel calls, or one after it when that is
				// the box's own POL or hub
			default:
				t.Errorf("%s: %s at %s left the POD %s (booked %s)", s.Number, j.Kind, j.Port, last.To, booked[len(booked)-1].To)
			}
			prev = j.Legs
		}
	}
	if n < 100 {
		t.Fatalf("only %d itineraries changed", n)
	}
}

// The same seed draws the same jumps; another seed others.
func TestSameSeedSameJumps(t *testing.T) {
	cfg := sim.WorldConfig{Seed: 7, Shipments: 300}
	a, b := sim.NewWorld(cfg).Truth(), sim.NewWorld(cfg).Truth()
	if !reflect.DeepEqual(a.Jumps, b.Jumps) || !reflect.DeepEqual(a.Shipments, b.Shipments) {
		t.Fatal("two worlds of seed 7 differ in their jumps")
	}
	cfg.Seed = 8
	c := sim.NewWorld(cfg).Truth()
	if reflect.DeepEqual(a.Jumps.Omissions, c.Jumps.Omissions) || reflect.DeepEqual(a.Jumps.Swaps, c.Jumps.Swaps) {
		t.Error("seeds 7 and 8 omit the same calls or swap the same voyages")
	}
}

// Without jumps the truth says so and nothing jumps; the answers are those
// of the world before jumps (nojumps_internal_test.go pins them).
func TestWithoutJumpsNothingJumps(t *testing.T) {
	tr := sim.NewWorld(sim.WorldConfig{Seed: 1, NoJumps: true}).Truth()
	if tr.Jumps.Enabled || len(tr.Jumps.Omissions) != 0 || len(tr.Jumps.Swaps) != 0 || tr.Jumps.Counts != (sim.JumpCounts{}) {
		t.Errorf("jumps off, truth %+v", tr.Jumps)
	}
	for _, c := range tr.Carriers {
		if c.Jumps != (sim.CarrierJumps{}) {
			t.Errorf("%s: jumps off, %+v", c.SCAC, c.Jumps)
		}
	}
	for _, s := range tr.Shipments {
		if len(s.Jumps) != 0 || s.BookedLegs != nil {
			t.Fatalf("%s: jumps off, %d jumps", s.Number, len(s.Jumps))
		}
	}
	_, on := defaultWorld(t)
	if !on.Jumps.Enabled || on.Jumps.Counts.Rolled == 0 {
		t.Errorf("jumps are on by default: %+v", on.Jumps.Counts)
	}
}

// GET /_sim/eta answers World.CarrierETA over HTTP, as of the virtual clock
// or of at, with no key and no credit: for a harness that drives the
// simulator from outside. A bad query is a 400 naming the parameter, an
// unknown or unbooked shipment a 404.
func TestAdminETAIsCarrierETA(t *testing.T) {
	env := simtest.Start(t, simtest.Options{})
	w := env.Service.World()
	tr := w.Truth()
	var s sim.ShipmentTruth
	for _, x := range tr.Shipments {
		if len(x.Jumps) > 0 && x.Jumps[0].Visible && x.Type != "CT" {
			s = x
			break
		}
	}
	j := s.Jumps[0]
	q := "shipmentNumber=" + s.Number + "&shipmentType=" + s.Type
	for _, c := range []struct {
		query string
		at    time.Time
	}{
		{q + "&at=" + j.AnnouncedAt.Add(-time.Minute).Format(time.RFC3339), j.AnnouncedAt.Add(-time.Minute)},
		{q + "&sealine=" + s.Sealine + "&at=" + j.AnnouncedAt.Format(time.RFC3339), j.AnnouncedAt},
		{"shipmentNumber=" + s.Containers[0] + "&at=" + j.AnnouncedAt.Format(time.RFC3339), j.AnnouncedAt},
	} {
		a := get(t, env, "", sim.AdminPrefix+"eta?"+c.query)
		var got sim.ReportedETA
		if err := json.Unmarshal(a.body, &got); a.status != http.StatusOK || err != nil {
			t.Fatalf("%s: %d %s", c.query, a.status, a.body)
		}
		want, err := w.CarrierETA(refOf(s), c.at)
		if err != nil || got != want {
			t.Errorf("%s: %+v, CarrierETA %+v (%v)", c.query, got, want, err)
		}
	}
	if a := get(t, env, "", sim.AdminPrefix+"eta?"+q+"&at="+s.BookedAt.Add(-time.Hour).Format(time.RFC3339)); a.status != http.StatusNotFound {
		t.Errorf("before booking: %d %s", a.status, a.body)
	}
	for query, mention := range map[string]string{"shipmentType=BL": "shipmentNumber", q + "&at=tomorrow": "RFC 3339", "shipmentNumber=X&shipmentType=XX": "shipmentType"} {
		if a := get(t, env, "", sim.AdminPrefix+"eta?"+query); a.status != http.StatusBadRequest || !strings.Contains(string(a.body), mention) {
			t.Errorf("%s: %d %s, want 400 naming %s", query, a.status, a.body, mention)
		}
	}
	if st := env.Service.Stats(); st.Requests != 0 || len(st.Charged) != 0 {
		t.Errorf("the controls were counted as requests: %+v", st)
	}
}
