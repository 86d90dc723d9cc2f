package sim

import (
	"sort"
	"time"

	"github.com/etalake/etalake/wire"
)

// Schedule windows.
const (
	portBefore   = 7 * day  // port schedules: PLN arrival from at − 7 d …
	portAfter    = 28 * day // … to at + 28 d
	vesselBefore = 14 * day // vessel schedules: from at − 14 d …
	vesselAfter  = 42 * day // … to at + 42 d
)

// svcPos is a position of a service's loop.
type svcPos struct{ s, pos int }

// stamp is one DCSA timestamp of a call, whatever the profile that renders
// it: event type (ARRI, DEPA), classifier (PLN, EST, ACT), Unix seconds.
type stamp struct {
	typ, class string
	at         int64
}

// callStamps are the DCSA timestamps of a call at at: PLN arrival and
// departure always, then arrival and departure each ACT once it happened,
// else the carrier's current EST. Both schedule profiles show these.
func (w *World) callStamps(ci int, ct callTimes) [4]stamp {
	c := &w.calls[ci]
	return [4]stamp{
		{"ARRI", "PLN", c.plnArr},
		{"DEPA", "PLN", c.plnDep},
		{"ARRI", classifier(ct.arrAct), ct.arr},
		{"DEPA", classifier(ct.depAct), ct.dep},
	}
}

// timestamps renders callStamps for the service profile.
func (w *World) timestamps(ci int, ct callTimes) []wire.Timestamp {
	ts := make([]wire.Timestamp, 0, 4)
	for _, s := range w.callStamps(ci, ct) {
		ts = append(ts, wire.Timestamp{EventTypeCode: s.typ, EventClassifierCode: s.class, EventDateTime: unixUTC(s.at)})
	}
	return ts
}

func classifier(actual bool) string {
	if actual {
		return "ACT"
	}
	return "EST"
}

func unixUTC(t int64) time.Time { return time.Unix(t, 0).UTC() }

// callsBetween returns the calls of a sorted list whose arrival falls in
// [from, to]: the planned arrival, or the actual one once it happened at
// at. A schedule shows the vessels that are (or were) at the port in its
// window, so a vessel a week late still appears with its actual arrival.
func (w *World) callsBetween(list []int32, from, to, at int64) []int32 {
	lo := sort.Search(len(list), func(i int) bool { return w.calls[list[i]].plnArr >= from-w.maxLate })
	hi := sort.Search(len(list), func(i int) bool { return w.calls[list[i]].plnArr > to })
	var out []int32
	for _, ci := range list[lo:hi] {
		c := &w.calls[ci]
		if c.plnArr >= from || (c.actArr <= at && c.actArr >= from && c.actArr <= to) {
			out = append(out, ci)
		}
	}
	return out
}

// sailedBy keeps the calls of list that vessel vi sails, not omitted, as
// the service says at at.
func (w *World) sailedBy(vi int, list []int32, at int64) []int32 {
	if w.callJumps == nil {
		return list
	}
	out := list[:0:0]
	for _, ci := range list {
		if w.vesselAt(int(ci), at) == vi && !w.omittedAt(int(ci), at) {
			out = append(out, ci)
		}
	}
	return out
}

// seaport looks up a seaport by UN/LOCODE.
func (w *World) seaport(locode string) (int, bool) {
	pi, ok := w.placeIdx[locode]
	if !ok || w.places[pi].inland {
		return 0, false
	}
	return pi, true
}

// PortSchedule answers the by-port query: the calls at the port of carriers
// that support by-port schedules, with PLN (or, once it happened, actual)
// arrival in [at − 7 d, at + 28 d], ordered by planned arrival; not a call
// whose omission is announced, and a swapped voyage's with its substitute
// once announced (jumps.go). ErrNoData for an unknown port or no call.
func (w *World) PortSchedule(locode string, at time.Time) (*wire.PortSchedule, error) {
	pi, ok := w.seaport(locode)
	if !ok {
		return nil, ErrNoData
	}
	a := at.Unix()
	out := &wire.PortSchedule{Location: w.places[pi].location(), VesselSchedules: []wire.PortVesselSchedule{}}
	for _, ci32 := range w.callsBetween(w.portCalls[pi], a-portBefore, a+portAfter, a) {
		ci := int(ci32)
		c := &w.calls[ci]
		s := &w.services[c.svc]
		car := &w.carriers[s.carrier]
		if !car.byPort || w.omittedAt(ci, a) {
			continue
		}
		imp, exp := w.voyages(ci)
		code, name := s.code, s.name
		out.VesselSchedules = append(out.VesselSchedules, wire.PortVesselSchedule{
			CarrierCode: car.scac, CarrierServiceCode: &code, CarrierServiceName: &name,
			Vessel: w.vessels[w.vesselAt(ci, a)].wire(), CarrierImportVoyageNumber: &imp, CarrierExportVoyageNumber: &exp,
			Facility: w.places[pi].facilityWire(w.callFacility(ci)), Timestamps: w.timestamps(ci, w.callAt(ci, a)),
		})
	}
	if len(out.VesselSchedules) == 0 {
		return nil, ErrNoData
	}
	return out, nil
}

// VesselSchedule answers the by-vessel query: the calls the vessel sails as
// the service says at at (a swapped voyage's are its substitute's once the
// swap is announced, an omitted call none once announced) with PLN (or,
// once it happened, actual) arrival in [at − 14 d, at + 42 d], if its
// carrier supports by-vessel schedules. ErrNoData for an unknown vessel,
// an unsupported carrier or no call.
func (w *World) VesselSchedule(imo int, at time.Time) (*wire.VesselSchedule, error) {
	vi, ok := w.imoIdx[imo]
	if !ok {
		return nil, ErrNoData
	}
	v := &w.vessels[vi]
	car := &w.carriers[v.carrier]
	if !car.byVessel {
		return nil, ErrNoData
	}
	a := at.Unix()
	calls := w.sailedBy(vi, w.callsBetween(w.vesselCalls[vi], a-vesselBefore, a+vesselAfter, a), a)
	if len(calls) == 0 {
		return nil, ErrNoData
	}
	code := w.services[v.service].code
	out := &wire.VesselSchedule{Vessel: v.wire(), CarrierCode: car.scac, CarrierServiceCode: &code}
	for n, ci32 := range calls {
		ci := int(ci32)
		c := &w.calls[ci]
		imp, exp := w.voyages(ci)
		out.TransportCalls = append(out.TransportCalls, wire.TransportCall{
			SequenceNumber: n + 1, Location: w.places[c.port].location(),
			Facility:                  w.places[c.port].facilityWire(w.callFacility(ci)),
			CarrierImportVoyageNumber: &imp, CarrierExportVoyageNumber: &exp,
			Timestamps: w.timestamps(ci, w.callAt(ci, a)),
		})
	}
	return out, nil
}
