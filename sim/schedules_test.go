package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// checkTimestamps checks the DCSA timestamps of one call at at: PLN arrival
// and departure, then arrival and departure each ACT (in the past) or EST.
func checkTimestamps(t *testing.T, ts []wire.Timestamp, at time.Time) {
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
			if !inWindow(vs.Timestamps, at.Add(-7*24*time.Hour), at.Add(28*24*time.Hour)) || pln.Before(prev) {
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
		for _, at := range []time.Time{start, start.AddDate(0, 0, 9).Add(13 * time.Hour), podArrival(s).Add(-50 * time.Hour)} {
			legs := legsAt(s, at) // the itinerary in force then, jumps included
			last := legs[len(legs)-1]
			if at.Before(s.BookedAt) || last.PlannedArrival.Before(at.Add(-7*24*time.Hour)) || last.PlannedArrival.After(at.Add(28*24*time.Hour)) {
				continue
			}
			sh := mustShipment(t, w, refOf(s), at)
			ps, err := w.PortSchedule(last.To, at)
			if err != nil {
				t.Fatalf("PortSchedule(%s): %v", last.To, err)
			}
			found := false
			imo := vesselAt(tr, last, at)
			for _, vs := range ps.VesselSchedules {
				if *vs.Vessel.IMO != imo || !vs.Timestamps[0].EventDateTime.Equal(last.PlannedArrival) {
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
				t.Errorf("%s: call of vessel %d at %s not in the port schedule", s.Number, imo, last.To)
			}
		}
	}
	if matched < 20 {
		t.Errorf("only %d matches checked", matched)
	}
}

// inWindow reports whether a call belongs in a schedule window: its planned
// arrival is in it, or its actual arrival (once it happened) is.
func inWindow(ts []wire.Timestamp, from, to time.Time) bool {
	in := func(t time.Time) bool { return !t.Before(from) && !t.After(to) }
	return in(ts[0].EventDateTime) || (ts[2].EventClassifierCode == "ACT" && in(ts[2].EventDateTime))
}

// A vessel far behind its schedule still appears in the port's schedule
// with its actual arrival, so that late calls are not lost to a window on
// the plan.
func TestLateCallsAppearWithTheirActualArrival(t *testing.T) {
	w, _ := defaultWorld(t)
	found := 0
	for _, p := range w.Ports() {
		for d := 0; d < 60; d += 7 {
			at := start.AddDate(0, 0, d)
			ps, err := w.PortSchedule(p.Locode, at)
			if err != nil {
				continue
			}
			for _, vs := range ps.VesselSchedules {
				if vs.Timestamps[0].EventDateTime.Before(at.Add(-7 * 24 * time.Hour)) {
					found++
					if vs.Timestamps[2].EventClassifierCode != "ACT" {
						t.Fatalf("a call planned before the window is shown without its actual arrival: %+v", vs.Timestamps)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no late call found: the test proves nothing")
	}
}
