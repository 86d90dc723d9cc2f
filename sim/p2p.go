package sim

import (
	"math"
	"sort"
	"time"

	"github.com/etalake/etalake/wire"
)

const p2pWindow = 28 * day // default departure window

// P2PQuery narrows a port-to-port search.
type P2PQuery struct {
	// DepartureStart and DepartureEnd bound (inclusively) the planned
	// departure from the POL. A zero start means at; a zero end means
	// start + 28 days.
	DepartureStart, DepartureEnd time.Time
	// MaxTranshipment is the number of transhipments allowed: below zero
	// means the default (1); 0 means direct routes only.
	MaxTranshipment int
}

// p2pRoute is a candidate route before rendering.
type p2pRoute struct {
	carrier int
	legs    []leg
	plnDep  int64
	plnArr  int64
}

// PointToPoint answers the port-to-port query: direct sailings of every
// carrier whose service calls pol then pod, departing (as planned) in the
// window, plus, when transhipments are allowed, for carriers without a
// direct service the fastest two-leg connection via a hub for each
// first-leg sailing. Leg ends are ACT once they happened, EST within 14
// days of at, else PLN. A sailing that no longer calls at either end (an
// omission announced) is not offered; a swapped voyage shows its substitute
// once announced (jumps.go). ErrNoData for unknown ports or no route.
func (w *World) PointToPoint(pol, pod string, q P2PQuery, at time.Time) (*wire.PointToPoint, error) {
	pi, po, routes, err := w.routings(pol, pod, q, at)
	if err != nil {
		return nil, err
	}
	out := &wire.PointToPoint{PlaceOfReceipt: w.places[pi].location(), PlaceOfDelivery: w.places[po].location()}
	v := &view{w: w, at: at.Unix(), calls: map[int]callTimes{}}
	for _, r := range routes {
		out.Routes = append(out.Routes, v.renderRoute(r))
	}
	return out, nil
}

// routings are the routes of the port-to-port query (see PointToPoint),
// ordered by planned departure, carrier, planned arrival, whatever the
// profile that renders them; with the place indices of pol and pod.
func (w *World) routings(pol, pod string, q P2PQuery, at time.Time) (pi, po int, routes []p2pRoute, err error) {
	pi, ok1 := w.seaport(pol)
	po, ok2 := w.seaport(pod)
	if !ok1 || !ok2 || pi == po {
		return 0, 0, nil, ErrNoData
	}
	from := at.Unix()
	if !q.DepartureStart.IsZero() {
		from = q.DepartureStart.Unix()
	}
	to := from + p2pWindow
	if !q.DepartureEnd.IsZero() {
		to = q.DepartureEnd.Unix()
	}
	maxT := q.MaxTranshipment
	if maxT < 0 {
		maxT = 1
	}
	routes, direct := w.directRoutes(pi, po, from, to)
	if maxT >= 1 {
		routes = append(routes, w.transhipRoutes(pi, po, from, to, direct)...)
	}
	routes = w.withoutOmitted(routes, at.Unix())
	if len(routes) == 0 {
		return 0, 0, nil, ErrNoData
	}
	sort.SliceStable(routes, func(i, j int) bool {
		x, y := routes[i], routes[j]
		if x.plnDep != y.plnDep {
			return x.plnDep < y.plnDep
		}
		if x.carrier != y.carrier {
			return x.carrier < y.carrier
		}
		return x.plnArr < y.plnArr
	})
	return pi, po, routes, nil
}

// withoutOmitted drops the routes that load or discharge at a call whose
// omission is announced at at (jumps.go): that sailing no longer calls
// there.
func (w *World) withoutOmitted(routes []p2pRoute, at int64) []p2pRoute {
	if w.callJumps == nil {
		return routes
	}
	out := routes[:0]
	for _, r := range routes {
		ok := true
		for _, l := range r.legs {
			ok = ok && !w.omittedAt(l.from, at) && !w.omittedAt(l.to, at)
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// directRoutes lists the direct sailings pol → pod departing in [from, to]
// and the carriers that have a direct service on the pair.
func (w *World) directRoutes(pol, pod int, from, to int64) ([]p2pRoute, map[int]bool) {
	var out []p2pRoute
	direct := map[int]bool{}
	for _, sp := range w.portSvc[pol] {
		s := &w.services[sp.s]
		best, bestT := -1, int64(math.MaxInt64)
		for j, p := range s.ports {
			if p != pod || !w.directOK(sp.s, sp.pos, j) {
				continue
			}
			if t, _ := s.transit(sp.pos, j); t < bestT {
				best, bestT = j, t
			}
		}
		if best < 0 || !w.fastestFrom(sp, pod, bestT) {
			continue
		}
		direct[s.carrier] = true
		for k := firstK(s, sp.pos, from); ; k++ {
			ci := w.callIndex(sp.s, k, sp.pos)
			if ci < 0 || w.calls[ci].plnDep > to {
				break
			}
			l, ok := w.legFrom(sp.s, sp.pos, best, w.calls[ci].plnDep)
			if !ok {
				break
			}
			out = append(out, p2pRoute{carrier: s.carrier, legs: []leg{l}, plnDep: w.calls[l.from].plnDep,
				plnArr: w.calls[l.to].plnArr})
		}
	}
	return out, direct
}

// fastestFrom reports whether sp is the service's fastest position to sail
// from towards pod (a port called twice in a loop is used once).
func (w *World) fastestFrom(sp svcPos, pod int, t int64) bool {
	s := &w.services[sp.s]
	for i, p := range s.ports {
		if i == sp.pos || p != s.ports[sp.pos] {
			continue
		}
		for j, q := range s.ports {
			if q != pod {
				continue
			}
			if t2, _ := s.transit(i, j); t2 < t || (t2 == t && i < sp.pos) {
				return false
			}
		}
	}
	return true
}

// firstK is the first generated rotation of s whose planned departure from
// pos is at or after t.
func firstK(s *service, pos int, t int64) int {
	return max(s.kMin, int(math.Ceil(float64(t-epoch-s.offset-s.dep[pos])/float64(week))))
}

// transhipRoutes lists, for carriers without a direct service, the fastest
// planned two-leg connection via a hub for each first-leg sailing departing
// in [from, to].
func (w *World) transhipRoutes(pol, pod int, from, to int64, direct map[int]bool) []p2pRoute {
	best := map[[2]int]p2pRoute{} // (carrier, first call) → fastest
	var order [][2]int
	for _, a := range w.portSvc[pol] {
		s1 := &w.services[a.s]
		if direct[s1.carrier] {
			continue
		}
		for h, hub := range s1.ports {
			if !w.places[hub].hub || hub == pol || hub == pod || !w.onTheWay(pol, hub, pod) {
				continue
			}
			if t1, _ := s1.transit(a.pos, h); t1 > maxLegDays*day || !w.plausibleLeg(pol, hub, t1) {
				continue
			}
			for _, b := range w.portSvc[hub] {
				s2 := &w.services[b.s]
				if b.s == a.s || s2.carrier != s1.carrier {
					continue
				}
				for k2pos, p := range s2.ports {
					if p != pod {
						continue
					}
					if t2, _ := s2.transit(b.pos, k2pos); t2 > maxLegDays*day || !w.plausibleLeg(hub, pod, t2) {
						continue
					}
					w.connect(a, h, b, k2pos, from, to, best, &order)
				}
			}
		}
	}
	out := make([]p2pRoute, 0, len(order))
	for _, key := range order {
		out = append(out, best[key])
	}
	return out
}

// connect adds the planned connections of first leg (a → h) and second leg
// (b → k2pos) for first-leg sailings in [from, to], keeping the fastest per
// carrier and first sailing.
func (w *World) connect(a svcPos, h int, b svcPos, k2pos int, from, to int64, best map[[2]int]p2pRoute, order *[][2]int) {
	s1 := &w.services[a.s]
	for k := firstK(s1, a.pos, from); ; k++ {
		ci := w.callIndex(a.s, k, a.pos)
		if ci < 0 || w.calls[ci].plnDep > to {
			return
		}
		l1, ok := w.legFrom(a.s, a.pos, h, w.calls[ci].plnDep)
		if !ok {
			return
		}
		l2, ok := w.legFrom(b.s, b.pos, k2pos, w.calls[l1.to].plnArr+connectionDays*day)
		if !ok {
			continue
		}
		r := p2pRoute{carrier: s1.carrier, legs: []leg{l1, l2}, plnDep: w.calls[l1.from].plnDep,
			plnArr: w.calls[l2.to].plnArr}
		if r.plnArr-r.plnDep > maxTotalDays*day {
			continue
		}
		key := [2]int{s1.carrier, l1.from}
		if prev, seen := best[key]; !seen || r.plnArr < prev.plnArr {
			if !seen {
				*order = append(*order, key)
			}
			best[key] = r
		}
	}
}

// renderRoute renders a candidate route at v.at.
func (v *view) renderRoute(r p2pRoute) wire.P2PRoute {
	w := v.w
	out := wire.P2PRoute{CarrierCode: w.carriers[r.carrier].scac}
	var dep0, arrN time.Time
	for n, l := range r.legs {
		fc := &w.calls[l.from]
		s := &w.services[fc.svc]
		_, voy := w.voyages(l.from)
		code := s.code
		dep := v.legCall(l.from, true)
		arr := v.legCall(l.to, false)
		if n == 0 {
			dep0 = dep.DateTime
		}
		arrN = arr.DateTime
		out.Legs = append(out.Legs, wire.Leg{
			SequenceNumber: n + 1, Vessel: w.vessels[w.vesselAt(l.from, v.at)].wire(), CarrierServiceCode: &code,
			CarrierVoyageNumber: &voy, Departure: dep, Arrival: arr,
		})
	}
	days := int(math.Round(arrN.Sub(dep0).Hours() / 24))
	out.TransitTime = &days
	return out
}

// legCall renders the departure (dep) or arrival end of a leg: ACT once it
// happened, EST when planned within 14 days of at, else PLN.
func (v *view) legCall(ci int, dep bool) *wire.LegCall {
	w := v.w
	c := &w.calls[ci]
	p := &w.places[c.port]
	out := &wire.LegCall{Location: p.location(), Facility: p.facilityWire(w.callFacility(ci))}
	pln := c.plnArr
	if dep {
		pln = c.plnDep
	}
	ct := v.call(ci)
	t, act := ct.arr, ct.arrAct
	if dep {
		t, act = ct.dep, ct.depAct
	}
	switch {
	case act:
		out.DateTime, out.EventClassifierCode = unixUTC(t), "ACT"
	case pln-v.at <= estimateHorizon:
		out.DateTime, out.EventClassifierCode = unixUTC(t), "EST"
	default:
		out.DateTime, out.EventClassifierCode = unixUTC(pln), "PLN"
	}
	return out
}
