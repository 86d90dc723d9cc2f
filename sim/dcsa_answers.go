package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/etalake/etalake/wire"
)

// The world's answers in the DCSA profile: the same calls, carriers,
// services, vessels and routings as the service profile, as the root
// items of DCSA Commercial Schedules 1.0.3. ErrNoData when there is no
// root item: the same provider's "404 means no schedule data".

// csAnswer returns every root item of the query at at, in a stable order.
func (w *World) csAnswer(e wire.Endpoint, q *csQuery, at time.Time) ([]any, error) {
	switch e {
	case wire.EndpointPortSchedule:
		return w.csPortSchedules(q.port, q.date, at)
	case wire.EndpointVesselSchedule:
		return w.csVesselSchedules(&q.vessel, at)
	default:
		return w.csPointToPoint(q, at)
	}
}

// csPortSchedules answers /v1/port-schedules: the calls the service
// profile's by-port query shows (carriers with by-port schedules, PLN — or,
// once it happened, actual — arrival from date − 7 d to date + 28 d, date
// at 00:00 UTC), one root item per terminal of the port that has calls
// (the standard's "for each terminal"), ordered by SMDG code, its calls by
// planned arrival.
func (w *World) csPortSchedules(locode string, date, at time.Time) ([]any, error) {
	pi, ok := w.seaport(locode)
	if !ok {
		return nil, ErrNoData
	}
	p := &w.places[pi]
	d, a := date.Unix(), at.Unix()
	byFac := map[int][]csSchedule{}
	for _, ci32 := range w.callsBetween(w.portCalls[pi], d-portBefore, d+portAfter, a) {
		ci := int(ci32)
		c := &w.calls[ci]
		s := &w.services[c.svc]
		if !w.carriers[s.carrier].byPort || w.omittedAt(ci, a) {
			continue
		}
		imp, exp := w.voyages(ci)
		fi := w.callFacility(ci)
		byFac[fi] = append(byFac[fi], csSchedule{
			ServicePartners: []csServicePartner{w.csPartner(s, imp, exp)},
			Vessel:          w.csVessel(w.vesselAt(ci, a)),
			Timestamps:      csStamps(w.callStamps(ci, w.callAt(ci, a))),
		})
	}
	if len(byFac) == 0 {
		return nil, ErrNoData
	}
	facs := make([]int, 0, len(byFac))
	for fi := range byFac {
		facs = append(facs, fi)
	}
	sort.Slice(facs, func(i, j int) bool {
		x, y := p.facilities[facs[i]], p.facilities[facs[j]]
		if x.smdg != y.smdg {
			return x.smdg < y.smdg
		}
		return facs[i] < facs[j]
	})
	out := make([]any, 0, len(facs))
	for _, fi := range facs {
		out = append(out, csPortSchedule{Location: p.csCallLocation(fi), VesselSchedules: byFac[fi]})
	}
	return out, nil
}

// csVesselSchedules answers /v1/vessel-schedules. A call matches when its
// vessel's carrier offers by-vessel schedules, it passes every filter, and
// its arrival timestamps (PLN, and EST or ACT at at) reach into
// [startDate, endDate] by UTC date: one on or after startDate, one on or
// before endDate. The answer holds the entire voyages of the matched calls
// (each call whose import or export voyage is one of theirs, same vessel),
// or only the matched calls with responseScope=MATCHED_CALLS: one root item
// per carrier service, ordered by service code and carrier, its vessels by
// IMO number, their calls by planned arrival.
func (w *World) csVesselSchedules(q *csVesselQuery, at time.Time) ([]any, error) {
	a := at.Unix()
	from, to := q.startDate, q.endDate
	if from.IsZero() {
		from = dateOf(at.AddDate(0, -3, 0))
	}
	if to.IsZero() {
		to = dateOf(at.AddDate(0, 6, 0))
	}
	lo, hi := from.Unix(), to.Unix()+day // [lo, hi)
	if q.universalService != "" || q.universalVoyage != "" {
		return nil, ErrNoData // the world's services and voyages have no universal references
	}
	candidates, err := w.csCandidates(q, a)
	if err != nil {
		return nil, err
	}
	m := w.csMatchCalls(q, candidates, a, lo, hi)
	if len(m.calls) == 0 {
		return nil, ErrNoData
	}
	return w.csServiceSchedules(w.csVesselsByService(q, m, a)), nil
}

// csCandidates are the calls a vessel-schedule query may match: the
// vessel's when it names one, else the port's when it names one, else
// every call.
func (w *World) csCandidates(q *csVesselQuery, a int64) ([]int32, error) {
	switch {
	case q.imo != "":
		n, _ := strconv.Atoi(q.imo)
		vi, ok := w.imoIdx[n]
		if !ok {
			return nil, ErrNoData
		}
		return w.sailedBy(vi, w.vesselCalls[vi], a), nil
	case q.locode != "":
		pi, ok := w.seaport(q.locode)
		if !ok {
			return nil, ErrNoData
		}
		return w.portCalls[pi], nil
	}
	all := make([]int32, len(w.calls))
	for i := range all {
		all[i] = int32(i)
	}
	return all, nil
}

// csVoyageKey is a voyage of a vessel.
type csVoyageKey struct {
	vessel int32
	voyage string
}

// csMatched is what a vessel-schedule query matched: the calls, their
// vessels and the voyages (import and export) of those calls.
type csMatched struct {
	calls   map[int]bool
	vessels map[int32]bool
	voyages map[csVoyageKey]bool
}

// csMatchCalls keeps the candidates that are not omitted at a, pass the
// filters, and whose arrival timestamps reach into [lo, hi).
func (w *World) csMatchCalls(q *csVesselQuery, candidates []int32, a, lo, hi int64) csMatched {
	m := csMatched{calls: map[int]bool{}, vessels: map[int32]bool{}, voyages: map[csVoyageKey]bool{}}
	for _, ci32 := range candidates {
		ci := int(ci32)
		c := &w.calls[ci]
		if w.omittedAt(ci, a) || !w.csVesselMatch(q, ci, a) {
			continue
		}
		ct := w.callAt(ci, a)
		early, late := min(c.plnArr, ct.arr), max(c.plnArr, ct.arr)
		if late < lo || early >= hi {
			continue
		}
		m.calls[ci] = true
		vi := int32(w.vesselAt(ci, a))
		m.vessels[vi] = true
		imp, exp := w.voyages(ci)
		m.voyages[csVoyageKey{vi, imp}] = true
		m.voyages[csVoyageKey{vi, exp}] = true
	}
	return m
}

// csVesselsByService is the schedule of each matched vessel, by IMO
// number, under the service of its last call answered: its matched calls
// with responseScope=MATCHED_CALLS, else every call of the voyages matched.
func (w *World) csVesselsByService(q *csVesselQuery, m csMatched, a int64) map[int32][]csVesselSchedule {
	byService := map[int32][]csVesselSchedule{}
	vlist := make([]int32, 0, len(m.vessels))
	for vi := range m.vessels {
		vlist = append(vlist, vi)
	}
	sort.Slice(vlist, func(i, j int) bool { return w.vessels[vlist[i]].IMO < w.vessels[vlist[j]].IMO })
	for _, vi := range vlist {
		vs := csVesselSchedule{Vessel: w.csVessel(int(vi)), TransportCalls: []csTransportCall{}}
		var svc int32 = -1
		for _, ci32 := range w.sailedBy(int(vi), w.vesselCalls[vi], a) {
			ci := int(ci32)
			imp, exp := w.voyages(ci)
			in := m.calls[ci]
			if !q.matchedCalls {
				in = m.voyages[csVoyageKey{vi, imp}] || m.voyages[csVoyageKey{vi, exp}]
			}
			if !in {
				continue
			}
			svc = w.calls[ci].svc
			vs.TransportCalls = append(vs.TransportCalls, w.csTransportCall(ci, imp, exp, a))
		}
		byService[svc] = append(byService[svc], vs)
	}
	return byService
}

// csServiceSchedules are the root items of the answer: one per carrier
// service, ordered by service code and carrier.
func (w *World) csServiceSchedules(byService map[int32][]csVesselSchedule) []any {
	svcs := make([]int32, 0, len(byService))
	for si := range byService {
		svcs = append(svcs, si)
	}
	sort.Slice(svcs, func(i, j int) bool {
		x, y := &w.services[svcs[i]], &w.services[svcs[j]]
		if x.code != y.code {
			return x.code < y.code
		}
		return w.carriers[x.carrier].scac < w.carriers[y.carrier].scac
	})
	out := make([]any, 0, len(svcs))
	for _, si := range svcs {
		s := &w.services[si]
		out = append(out, csServiceSchedule{CarrierServiceName: s.name, CarrierServiceCode: s.code, VesselSchedules: byService[si]})
	}
	return out
}

// csVesselMatch reports whether call ci passes the vessel-schedule
// filters other than the dates, with the vessel that sails it at a.
func (w *World) csVesselMatch(q *csVesselQuery, ci int, a int64) bool {
	c := &w.calls[ci]
	s := &w.services[c.svc]
	car := &w.carriers[s.carrier]
	v := &w.vessels[w.vesselAt(ci, a)]
	p := &w.places[c.port]
	switch {
	case !car.byVessel,
		q.imo != "" && q.imo != strconv.Itoa(v.IMO),
		q.vesselName != "" && q.vesselName != v.Name,
		q.serviceCode != "" && q.serviceCode != s.code,
		q.operator != "" && q.operator != car.scac,
		q.locode != "" && q.locode != p.Locode,
		q.smdg != "" && q.smdg != p.facilities[w.callFacility(ci)].smdg:
		return false
	}
	if q.voyage != "" {
		imp, exp := w.voyages(ci)
		return q.voyage == imp || q.voyage == exp
	}
	return true
}

// csPointToPoint answers /v1/point-to-point-routes: the routings of the
// service profile's port-to-port query (same departure window, same
// transhipment rule, same order), those arriving as planned in the
// arrival window, one root item each, numbered from 1. Times are the
// planned ones (PLN): the standard's legs carry no classifier.
func (w *World) csPointToPoint(q *csQuery, at time.Time) ([]any, error) {
	_, _, routes, err := w.routings(q.pol, q.pod, q.p2p, at)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, r := range routes {
		if (!q.arrFrom.IsZero() && r.plnArr < q.arrFrom.Unix()) || (!q.arrTo.IsZero() && r.plnArr > q.arrTo.Unix()) {
			continue
		}
		first, last := r.legs[0].from, r.legs[len(r.legs)-1].to
		p2p := csPointToPoint{
			PlaceOfReceipt:  csPlace{FacilityTypeCode: "POTE", Location: w.csLocation(first), DateTime: unixUTC(r.plnDep)},
			PlaceOfDelivery: csPlace{FacilityTypeCode: "POTE", Location: w.csLocation(last), DateTime: unixUTC(r.plnArr)},
			SolutionNumber:  len(out) + 1,
			TransitTime:     int(math.Round(float64(r.plnArr-r.plnDep) / float64(day))),
		}
		for n, l := range r.legs {
			fc, tc := &w.calls[l.from], &w.calls[l.to]
			_, exp := w.voyages(l.from)
			imp, _ := w.voyages(l.to)
			p2p.Legs = append(p2p.Legs, csLeg{
				SequenceNumber: n + 1,
				Transport: csVesselTransport{ModeOfTransport: "VESSEL",
					ServicePartners: []csServicePartner{w.csPartner(&w.services[fc.svc], imp, exp)},
					Vessel:          w.csVessel(w.vesselAt(l.from, at.Unix()))},
				Departure: csPlace{TransportCallReference: w.callReference(l.from), FacilityTypeCode: "POTE",
					Location: w.csLocation(l.from), DateTime: unixUTC(fc.plnDep)},
				Arrival: csPlace{TransportCallReference: w.callReference(l.to), FacilityTypeCode: "POTE",
					Location: w.csLocation(l.to), DateTime: unixUTC(tc.plnArr)},
			})
		}
		out = append(out, p2p)
	}
	if len(out) == 0 {
		return nil, ErrNoData
	}
	return out, nil
}

// csTransportCall renders call ci of a vessel schedule at a.
func (w *World) csTransportCall(ci int, imp, exp string, a int64) csTransportCall {
	c := &w.calls[ci]
	return csTransportCall{
		TransportCallReference:    w.callReference(ci),
		CarrierImportVoyageNumber: imp, CarrierExportVoyageNumber: exp,
		Location:   w.places[c.port].csCallLocation(w.callFacility(ci)),
		Timestamps: csStamps(w.callStamps(ci, w.callAt(ci, a))),
	}
}

// callReference is the transportCallReference of call ci, unique in the
// world: service, vessel, export voyage, port, rotation and position.
func (w *World) callReference(ci int) string {
	c := &w.calls[ci]
	_, exp := w.voyages(ci)
	return fmt.Sprintf("%s-%d-%s-%s-%d-%d", w.services[c.svc].code, w.vessels[c.vessel].IMO, exp,
		w.places[c.port].Locode, c.k, c.pos+1)
}

// csPartner is the carrier's entry in servicePartners: SCAC (NMFTA list),
// service, voyages.
func (w *World) csPartner(s *service, imp, exp string) csServicePartner {
	return csServicePartner{
		CarrierCode: w.carriers[s.carrier].scac, CarrierCodeListProvider: "NMFTA",
		CarrierServiceName: s.name, CarrierServiceCode: s.code,
		CarrierImportVoyageNumber: imp, CarrierExportVoyageNumber: exp,
	}
}

// csVessel renders vessel vi; IMO and MMSI numbers are strings in DCSA,
// the operator its carrier's SCAC.
func (w *World) csVessel(vi int) *csVessel {
	v := &w.vessels[vi]
	return &csVessel{
		VesselIMONumber: strconv.Itoa(v.IMO), MMSINumber: strconv.Itoa(v.MMSI), Name: v.Name, Flag: v.Flag,
		CallSign: v.CallSign, OperatorCarrierCode: w.carriers[v.carrier].scac, OperatorCarrierCodeListProvider: "NMFTA",
	}
}

// csCallLocation is the port with terminal fi (none when out of range).
func (p *place) csCallLocation(fi int) csCallLocation {
	out := csCallLocation{LocationName: p.Name, UNLocationCode: p.Locode}
	if fi >= 0 && fi < len(p.facilities) {
		out.FacilityName, out.FacilitySMDGCode = p.facilities[fi].name, p.facilities[fi].smdg
	}
	return out
}

// csLocation is the port of call ci with its terminal as an SMDG facility.
func (w *World) csLocation(ci int) csLocation {
	p := &w.places[w.calls[ci].port]
	out := csLocation{LocationName: p.Name, UNLocationCode: p.Locode}
	if fi := w.callFacility(ci); fi >= 0 && fi < len(p.facilities) {
		f := p.facilities[fi]
		out.FacilityName = f.name
		if f.smdg != "" {
			out.Facility = &csFacility{FacilityCode: f.smdg, FacilityCodeListProvider: "SMDG"}
		}
	}
	return out
}

func csStamps(ss [4]stamp) []csTimestamp {
	out := make([]csTimestamp, 0, len(ss))
	for _, s := range ss {
		out = append(out, csTimestamp{EventTypeCode: s.typ, EventClassifierCode: s.class, EventDateTime: unixUTC(s.at)})
	}
	return out
}

// dateOf is the UTC date of t, at midnight.
func dateOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
