package sim

import (
	"encoding/json"
	"math"
	"time"

	"github.com/etalake/etalake/wire"
)

// A container's journey is a list of steps, each anchored on a vessel call
// (the arrival or departure of one of the shipment's legs) with a fixed,
// seeded offset. A step's actual time is the anchor's ACT plus the offset;
// until then its date is the anchor as the service shows it at that moment
// (the carrier's current EST, or ACT once the call happened) plus the same
// offset, so land events move with the vessel.
//
// Sea steps use the DCSA codes and public statuses of spec/schedules.md
// (CEP, CGI, CLL, VDL, VAT, CDT, CLT, VDT, VAD, CDD, CGO, CER). Carrier
// haulage between an inland place and the port (routeType LAND,
// transportType TRUCK or RAIL) adds:
//
//	| step                                  | eventType | eventCode | status |
//	| departed inland origin for the POL    | TRANSPORT | DEPA      | LDO    |
//	| arrived at the POL by rail or truck   | TRANSPORT | ARRI      | LAP    |
//	| departed the POD for the destination  | TRANSPORT | DEPA      | LDP    |
//	| arrived at the final destination      | TRANSPORT | ARRI      | LAD    |
//
// and then moves the empty release (GTOT/CEP), the full release (GTOT/CGO)
// and the empty return (GTIN/CER) to the inland place. About 4 % of
// containers also get an additional customs inspection at the POD
// (EQUIPMENT, INSP, status CUS, isAdditionalEvent true).
type jstep struct {
	eventType, code, status string
	routeType               string
	transport               string // "" (null), VESSEL, TRUCK or RAIL
	desc                    string
	place, fac              int // place index; terminal index, -1 for none
	anchor                  int // call index
	dep                     bool
	offset                  int64
	call                    int  // call whose vessel and voyage the event carries, -1 for none
	export                  bool // voyage: export (departure) rather than import number
	additional              bool
}

const additionalShare = 0.04

// journey lays out the steps of container cn of shipment s on the
// itinerary legs.
func (w *World) journey(s *shipment, legs []leg, cn int) []jstep {
	r := func(tag int64, loH, hiH float64) int64 {
		v := int64(uniform(hash(w.seed, tagEvent, s.id, int64(cn), tag), loH, hiH) * 3600)
		return v - mod64(v, 60)
	}
	first, last := legs[0], legs[len(legs)-1]
	pol, pod, hub := w.legPorts(legs)
	polFac, podFac := w.callFacility(first.from), w.callFacility(last.to)
	var out []jstep
	land := func(et, code, status, transport, desc string, place, fac, anchor int, dep bool, off int64) {
		out = append(out, jstep{eventType: et, code: code, status: status, routeType: "LAND", transport: transport,
			desc: desc, place: place, fac: fac, anchor: anchor, dep: dep, offset: off, call: -1})
	}
	sea := func(et, code, status, desc string, place, fac, anchor int, dep bool, off int64, export bool) {
		out = append(out, jstep{eventType: et, code: code, status: status, routeType: "SEA", transport: "VESSEL",
			desc: desc, place: place, fac: fac, anchor: anchor, dep: dep, offset: off, call: anchor, export: export})
	}

	cgiLead := r(1, 36, 120)
	if s.pre >= 0 {
		l := inlandLinks[s.pre]
		inl := w.placeIdx[l.inland]
		lap := -(cgiLead + r(2, 2, 10))
		ldo := lap - int64(l.days*float64(day)) - r(3, -4, 10)
		land("EQUIPMENT", "GTOT", "CEP", "TRUCK", "Empty container released to shipper", inl, w.inlandFac(inl), first.from, true, ldo-r(4, 24, 72))
		land("TRANSPORT", "DEPA", "LDO", l.mode, "Departed inland origin by "+lower(l.mode), inl, w.inlandFac(inl), first.from, true, ldo)
		land("TRANSPORT", "ARRI", "LAP", l.mode, "Arrived at port of loading by "+lower(l.mode), pol, polFac, first.from, true, lap)
	} else {
		land("EQUIPMENT", "GTOT", "CEP", "", "Empty container released to shipper", pol, polFac, first.from, true, -(cgiLead + r(4, 48, 144)))
	}
	land("EQUIPMENT", "GTIN", "CGI", "", "Full container gated in at port of loading", pol, polFac, first.from, true, -cgiLead)
	sea("EQUIPMENT", "LOAD", "CLL", "Loaded on vessel at port of loading", pol, polFac, first.from, true, -r(5, 4, 20), true)
	sea("TRANSPORT", "DEPA", "VDL", "Vessel departed port of loading", pol, polFac, first.from, true, 0, true)
	if hub >= 0 {
		mid, next := legs[0].to, legs[1].from
		hubFac := w.callFacility(mid)
		sea("TRANSPORT", "ARRI", "VAT", "Vessel arrived at transhipment port", hub, hubFac, mid, false, 0, false)
		sea("EQUIPMENT", "DISC", "CDT", "Discharged at transhipment port", hub, hubFac, mid, false, r(6, 3, 8), false)
		sea("EQUIPMENT", "LOAD", "CLT", "Loaded on vessel at transhipment port", hub, w.callFacility(next), next, true, -r(7, 3, 14), true)
		sea("TRANSPORT", "DEPA", "VDT", "Vessel departed transhipment port", hub, w.callFacility(next), next, true, 0, true)
	}
	sea("TRANSPORT", "ARRI", "VAD", "Vessel arrived at port of discharge", pod, podFac, last.to, false, 0, false)
	cdd := r(8, 6, 30)
	sea("EQUIPMENT", "DISC", "CDD", "Discharged at port of discharge", pod, podFac, last.to, false, cdd, false)
	if unit(hash(w.seed, tagEvent, s.id, int64(cn), 9)) < additionalShare {
		land("EQUIPMENT", "INSP", "CUS", "", "Customs inspection", pod, podFac, last.to, false, cdd+r(10, 12, 20))
		out[len(out)-1].additional = true
	}
	if s.post >= 0 {
		l := inlandLinks[s.post]
		inl := w.placeIdx[l.inland]
		ldp := cdd + r(11, 24, 72)
		lad := ldp + int64(l.days*float64(day)) + r(12, -4, 12)
		cgo := lad + r(13, 4, 24)
		land("TRANSPORT", "DEPA", "LDP", l.mode, "Departed port of discharge by "+lower(l.mode), pod, podFac, last.to, false, ldp)
		land("TRANSPORT", "ARRI", "LAD", l.mode, "Arrived at final destination by "+lower(l.mode), inl, w.inlandFac(inl), last.to, false, lad)
		land("EQUIPMENT", "GTOT", "CGO", "TRUCK", "Full container released to consignee", inl, w.inlandFac(inl), last.to, false, cgo)
		land("EQUIPMENT", "GTIN", "CER", "TRUCK", "Empty container returned", inl, w.inlandFac(inl), last.to, false, cgo+r(14, 48, 168))
	} else {
		cgo := cdd + r(11, 24, 120)
		land("EQUIPMENT", "GTOT", "CGO", "", "Full container released to consignee", pod, podFac, last.to, false, cgo)
		land("EQUIPMENT", "GTIN", "CER", "", "Empty container returned", pod, podFac, last.to, false, cgo+r(14, 48, 192))
	}
	return out
}

func lower(mode string) string {
	if mode == "RAIL" {
		return "rail"
	}
	return "truck"
}

// callFacility is the terminal index of a call at its port.
func (w *World) callFacility(ci int) int {
	c := &w.calls[ci]
	return w.services[c.svc].facility[c.pos]
}

// inlandFac is the first terminal of an inland place, or -1.
func (w *World) inlandFac(pi int) int {
	if len(w.places[pi].facilities) == 0 {
		return -1
	}
	return 0
}

// actualTime is when a step actually happens.
func (w *World) actualTime(st *jstep) int64 {
	c := &w.calls[st.anchor]
	if st.dep {
		return c.actDep + st.offset
	}
	return c.actArr + st.offset
}

// stepsAt are the steps of container cn of shipment s as the service shows
// them at time at: the journey on the itinerary in force then, but a step
// that had happened when a change was announced as it happened then
// (jumps.go). Every itinerary of a shipment has the same steps: the same
// number of legs, the same inland links.
func (w *World) stepsAt(s *shipment, cn int, at int64) []jstep {
	steps := w.journey(s, s.legs, cn)
	for i := range s.versions {
		v := &s.versions[i]
		if v.since > at {
			break
		}
		next := w.journey(s, v.legs, cn)
		for k := range steps {
			if w.actualTime(&steps[k]) >= v.since {
				steps[k] = next[k]
			}
		}
	}
	return steps
}

// firstEventActual is when the shipment's earliest step actually happens.
func (w *World) firstEventActual(s *shipment) int64 {
	first := int64(1) << 62
	for cn := range s.containers {
		steps := w.stepsAt(s, cn, math.MaxInt64)
		first = min(first, w.actualTime(&steps[0]))
	}
	return first
}

// firstEventAt is the date the service shows at time at for the
// shipment's earliest first step.
func (w *World) firstEventAt(s *shipment, at int64) int64 {
	v := &view{w: w, at: at, calls: map[int]callTimes{}}
	first := int64(1) << 62
	for cn := range s.containers {
		steps := w.stepsAt(s, cn, at)
		t, _ := v.stepAt(&steps[0])
		first = min(first, t)
	}
	return first
}

// view caches what the service says about the calls of one response.
type view struct {
	w     *World
	at    int64
	calls map[int]callTimes
}

func (v *view) call(ci int) callTimes {
	if ct, ok := v.calls[ci]; ok {
		return ct
	}
	ct := v.w.callAt(ci, v.at)
	v.calls[ci] = ct
	return ct
}

// stepAt is the date of a step at v.at and whether it is actual.
func (v *view) stepAt(st *jstep) (int64, bool) {
	if act := v.w.actualTime(st); v.at >= act {
		return act, true
	}
	ct := v.call(st.anchor)
	if st.dep {
		return ct.dep + st.offset, false
	}
	return ct.arr + st.offset, false
}

// containerStatus maps the status of the latest actual step.
var containerStatus = map[string]string{
	"CEP": "EMPTY", "LDO": "IN_TRANSIT", "LAP": "GATE_IN", "CGI": "GATE_IN", "CLL": "LOADED",
	"VDL": "IN_TRANSIT", "VAT": "IN_TRANSIT", "CDT": "IN_TRANSIT", "CLT": "IN_TRANSIT", "VDT": "IN_TRANSIT",
	"VAD": "ARRIVED", "CDD": "DISCHARGED", "CUS": "DISCHARGED", "LDP": "IN_TRANSIT", "LAD": "ARRIVED",
	"CGO": "DELIVERED", "CER": "RETURNED",
}

// events renders container cn's journey at v.at.
func (v *view) events(s *shipment, cn int) (events []wire.Event, status string, delivered bool) {
	w := v.w
	status = "BOOKED"
	for _, st := range w.stepsAt(s, cn, v.at) {
		t, act := v.stepAt(&st)
		date := time.Unix(t, 0).UTC()
		p := &w.places[st.place]
		ev := wire.Event{
			Location: p.location(), Facility: p.facilityWire(st.fac), Description: st.desc,
			EventType: st.eventType, EventCode: st.code, Status: st.status, Date: &date,
			IsActual: act, IsAdditionalEvent: st.additional, RouteType: st.routeType,
		}
		if st.transport != "" {
			tt := st.transport
			ev.TransportType = &tt
		}
		if st.call >= 0 {
			ev.Vessel = w.vessels[w.vesselAt(st.call, v.at)].wire()
			imp, exp := w.voyages(st.call)
			voy := imp
			if st.export {
				voy = exp
			}
			ev.Voyage = &voy
		}
		if act {
			status = containerStatus[st.status]
			if st.status == "CGO" {
				delivered = true
			}
		}
		events = append(events, ev)
	}
	return events, status, delivered
}

// shipmentAt renders a shipment (or one of its containers, when cn ≥ 0) as
// the tracking response at v.at.
func (v *view) shipmentAt(s *shipment, ref wire.ShipmentRef, cn int) *wire.Shipment {
	w := v.w
	c := &w.carriers[s.carrier]
	legs := s.legsAt(v.at)
	first := legs[0]
	pol := int(w.calls[first.from].port)
	polT := v.call(first.from)
	pod, podT := v.pod(s)

	var conts []wire.Container
	allDelivered := true
	var lead []jstep // container 0's steps, for the inland route points
	for i, ct := range s.containers {
		if cn >= 0 && i != cn {
			continue
		}
		evs, status, delivered := v.events(s, i)
		allDelivered = allDelivered && delivered
		conts = append(conts, wire.Container{Number: ct.number, ISOCode: ct.iso, Status: status, Events: evs})
		if lead == nil {
			lead = w.stepsAt(s, i, v.at)
		}
	}
	v.maybeDuplicate(ref, conts)

	route := &wire.ShipmentRoute{
		Pol: v.point(pol, polT.dep, polT.depAct),
		Pod: &wire.PortOfDischarge{RoutePoint: *v.point(pod, podT.arr, podT.arrAct)},
	}
	if t, ok := w.predictive(legs[len(legs)-1].to, v.at); ok {
		pt := time.Unix(t, 0).UTC()
		route.Pod.PredictiveETA = &pt
	}
	for i := range lead {
		st := &lead[i]
		switch st.status {
		case "LDO":
			t, act := v.stepAt(st)
			route.Prepol = v.point(st.place, t, act)
		case "LAD":
			t, act := v.stepAt(st)
			route.Postpod = v.point(st.place, t, act)
		}
	}
	if route.Prepol == nil && c.prepolIsPol {
		route.Prepol = v.point(pol, polT.dep, polT.depAct)
	}

	state := "PLANNED"
	switch {
	case polT.depAct && !podT.arrAct:
		state = "IN_TRANSIT"
	case podT.arrAct && allDelivered:
		state = "DELIVERED"
	case podT.arrAct:
		state = "ARRIVED"
	}
	updated := time.Unix(polT.revisionAt, 0).UTC()
	scac, name := c.scac, c.name
	return &wire.Shipment{
		Metadata: &wire.ShipmentMetadata{
			ShipmentType: string(ref.Type), ShipmentNumber: ref.Number, Sealine: &scac, SealineName: &name,
			ShippingStatus: &state, UpdatedAt: &updated, Warnings: json.RawMessage("[]"),
		},
		Route:      route,
		Containers: conts,
	}
}

// pod is the port of discharge of s at v.at and what the service says of
// the call there: the carrier's ETA (or the actual arrival) and the
// revision it comes from. It is the single source of route.pod.date, of
// the VAD event and of World.CarrierETA.
func (v *view) pod(s *shipment) (place int, ct callTimes) {
	legs := s.legsAt(v.at)
	ci := legs[len(legs)-1].to
	return int(v.w.calls[ci].port), v.call(ci)
}

// point renders a route point.
func (v *view) point(place int, t int64, act bool) *wire.RoutePoint {
	d := time.Unix(t, 0).UTC()
	a := act
	return &wire.RoutePoint{Location: v.w.places[place].location(), Date: &d, Actual: &a}
}

// duplicateShare is the share of responses that repeat one event, as real
// tracking APIs sometimes do; the transformer deduplicates.
const duplicateShare = 0.02

// maybeDuplicate repeats one event (right after itself) in about 2 % of
// responses. The draw depends on the shipment reference and the day of at,
// so a response is stable within a day.
func (v *view) maybeDuplicate(ref wire.ShipmentRef, conts []wire.Container) {
	h := hash(v.w.seed, tagDuplicate, strID(string(ref.Type)+"/"+ref.Number), floorDiv(v.at-epoch, day))
	if unit(h) >= duplicateShare || len(conts) == 0 {
		return
	}
	c := &conts[intn(mix(h), len(conts))]
	if len(c.Events) == 0 {
		return
	}
	i := intn(mix(h^1), len(c.Events))
	dup := c.Events[i]
	c.Events = append(c.Events[:i+1], append([]wire.Event{dup}, c.Events[i+1:]...)...)
}
