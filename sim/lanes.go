package sim

import (
	"math"
	"sort"
)

// Lane is a port pair that shipments use, for the extractor's --lanes.
type Lane struct {
	POL       string `json:"pol"`
	POD       string `json:"pod"`
	Shipments int    `json:"shipments"`
}

// itinerary is a way a carrier can carry a box from a POL to a POD: one
// service (direct), or two services of the carrier meeting at a hub.
type itinerary struct {
	s1, i, j int // first leg: service, departure and arrival positions
	s2, h, k int // second leg (s2 < 0 when direct)
	weight   float64
}

// tradeWeights are relative volumes of the main container trades.
var tradeWeights = map[[2]string]float64{
	{regFE, regNEU}: 16, {regFE, regMED}: 8, {regFE, regNAW}: 16, {regFE, regNAE}: 8,
	{regFE, regSEA}: 6, {regSEA, regFE}: 4, {regFE, regISC}: 3, {regFE, regME}: 4,
	{regFE, regSAM}: 3, {regFE, regCAM}: 2, {regFE, regAFR}: 2, {regFE, regOCE}: 3, {regFE, regFE}: 2,
	{regSEA, regNEU}: 4, {regSEA, regNAW}: 3, {regSEA, regNAE}: 1, {regSEA, regMED}: 2, {regSEA, regME}: 1,
	{regSEA, regISC}: 1, {regSEA, regOCE}: 1.5, {regSEA, regSEA}: 1,
	{regISC, regNEU}: 3, {regISC, regME}: 2, {regME, regISC}: 1.5, {regISC, regFE}: 1, {regME, regFE}: 1,
	{regNEU, regFE}: 5, {regMED, regFE}: 2, {regNAW, regFE}: 5, {regNAE, regFE}: 2, {regOCE, regFE}: 1,
	{regSAM, regFE}: 1, {regNEU, regNAE}: 5, {regNAE, regNEU}: 3, {regMED, regNAE}: 2, {regNAE, regMED}: 1,
	{regNEU, regSAM}: 2, {regSAM, regNEU}: 2, {regNEU, regAFR}: 2, {regNEU, regISC}: 1, {regNEU, regMED}: 0,
	{regNEU, regNEU}: 0, {regMED, regMED}: 0,
}

func tradeWeight(from, to string) float64 {
	if w, ok := tradeWeights[[2]string{from, to}]; ok {
		return w
	}
	return 0.2
}

const (
	minLaneNM      = 300 // shorter hops go by truck, not by sea
	maxDirectDays  = 50
	maxLegDays     = 40
	maxTotalDays   = 60
	connectionDays = 1
)

// routingFactor is how much longer than the great circle a sea route
// between two regions is (2025: Asia and the Middle East to Europe round the
// Cape of Good Hope; Asia to the US East Coast through Panama).
func routingFactor(a, b string) float64 {
	east := func(r string) bool { return r == regFE || r == regSEA || r == regISC || r == regME }
	europe := func(r string) bool { return r == regNEU || r == regMED }
	switch {
	case east(a) && europe(b), europe(a) && east(b):
		return 2.9
	case east(a) && b == regNAE, a == regNAE && east(b):
		return 1.7
	}
	return 1.3
}

// plausibleLeg reports whether a vessel leg between two ports takes no more
// than 1.5 times the sailing time of a plausible route plus two days, so no
// itinerary sails round a whole loop to cover a short hop.
func (w *World) plausibleLeg(from, to int, transit int64) bool {
	a, b := &w.places[from], &w.places[to]
	days := greatCircleNM(a, b)*routingFactor(a.region, b.region)/400 + 1.5
	return float64(transit) <= (1.5*days+2)*float64(day)
}

// directOK reports whether a service offers a direct sailing from position
// i to position j: a plausible leg, within 50 days, and not much slower
// than the fastest direct sailing of any carrier on the pair.
func (w *World) directOK(si, i, j int) bool {
	s := &w.services[si]
	t, _ := s.transit(i, j)
	best, ok := w.bestDirect[[2]int{s.ports[i], s.ports[j]}]
	return ok && t <= best*8/5+3*day
}

// buildBestDirect records, per port pair, the fastest plausible direct
// sailing of any service.
func (w *World) buildBestDirect() {
	w.bestDirect = map[[2]int]int64{}
	for si := range w.services {
		s := &w.services[si]
		for i := range s.ports {
			for j := range s.ports {
				if s.ports[i] == s.ports[j] {
					continue
				}
				t, _ := s.transit(i, j)
				if t > maxDirectDays*day || !w.plausibleLeg(s.ports[i], s.ports[j], t) {
					continue
				}
				pair := [2]int{s.ports[i], s.ports[j]}
				if b, ok := w.bestDirect[pair]; !ok || t < b {
					w.bestDirect[pair] = t
				}
			}
		}
	}
}

// buildItineraries lists each carrier's direct and transhipment
// itineraries. A direct one must pass directOK (its service's fastest
// position pair for the ports); a transhipment one is offered only where the
// carrier has no direct service, through a hub that lies roughly on the way,
// with plausible legs.
func (w *World) buildItineraries() (direct, tranship [][]itinerary) {
	type key struct{ s, pol, pod int }
	fastest := map[key]itinerary{}
	fastestT := map[key]int64{}
	var keys []key
	for si := range w.services {
		s := &w.services[si]
		for i := range s.ports {
			for j := range s.ports {
				if s.ports[i] == s.ports[j] || !w.directOK(si, i, j) {
					continue
				}
				t, _ := s.transit(i, j)
				k := key{si, s.ports[i], s.ports[j]}
				if b, ok := fastestT[k]; !ok || t < b {
					if !ok {
						keys = append(keys, k)
					}
					fastestT[k], fastest[k] = t, itinerary{s1: si, i: i, j: j, s2: -1}
				}
			}
		}
	}
	direct = make([][]itinerary, len(w.carriers))
	hasDirect := make([]map[[2]int]bool, len(w.carriers))
	for c := range hasDirect {
		hasDirect[c] = map[[2]int]bool{}
	}
	for _, k := range keys {
		it := fastest[k]
		pol, pod := &w.places[k.pol], &w.places[k.pod]
		c := w.services[k.s].carrier
		hasDirect[c][[2]int{k.pol, k.pod}] = true
		if pol.CountryCode == pod.CountryCode || greatCircleNM(pol, pod) < minLaneNM {
			continue
		}
		it.weight = tradeWeight(pol.region, pod.region) * pol.size * pod.size
		if it.weight > 0 {
			direct[c] = append(direct[c], it)
		}
	}
	tranship = make([][]itinerary, len(w.carriers))
	for c := range w.carriers {
		tranship[c] = w.transhipments(c, hasDirect[c])
	}
	return direct, tranship
}

// transhipments lists carrier c's two-leg itineraries via its hubs.
func (w *World) transhipments(c int, hasDirect map[[2]int]bool) []itinerary {
	type sp struct{ s, pos int }
	atHub := map[int][]sp{}
	var hubs []int
	for si := range w.services {
		s := &w.services[si]
		if s.carrier != c {
			continue
		}
		for pos, p := range s.ports {
			if w.places[p].hub {
				if len(atHub[p]) == 0 {
					hubs = append(hubs, p)
				}
				atHub[p] = append(atHub[p], sp{si, pos})
			}
		}
	}
	sort.Ints(hubs)
	type key struct{ pol, pod, hub, s1, s2 int }
	found := map[key]itinerary{}
	foundT := map[key]int64{}
	var order []key
	for _, hub := range hubs {
		for _, a := range atHub[hub] {
			s1 := &w.services[a.s]
			for i, pol := range s1.ports {
				t1, _ := s1.transit(i, a.pos)
				if pol == hub || t1 > maxLegDays*day || !w.plausibleLeg(pol, hub, t1) {
					continue
				}
				for _, b := range atHub[hub] {
					if b.s == a.s {
						continue
					}
					s2 := &w.services[b.s]
					for k, pod := range s2.ports {
						t2, _ := s2.transit(b.pos, k)
						total := t1 + t2 + 2*day
						if pod == hub || pod == pol || t2 > maxLegDays*day || total > maxTotalDays*day ||
							hasDirect[[2]int{pol, pod}] || !w.plausibleLeg(hub, pod, t2) || !w.onTheWay(pol, hub, pod) {
							continue
						}
						if bd, ok := w.bestDirect[[2]int{pol, pod}]; ok && total > bd*3/2+5*day {
							continue
						}
						kk := key{pol, pod, hub, a.s, b.s}
						if prev, ok := foundT[kk]; !ok || total < prev {
							if !ok {
								order = append(order, kk)
							}
							foundT[kk] = total
							found[kk] = itinerary{s1: a.s, i: i, j: a.pos, s2: b.s, h: b.pos, k: k}
						}
					}
				}
			}
		}
	}
	var out []itinerary
	for _, kk := range order {
		pol, pod := &w.places[kk.pol], &w.places[kk.pod]
		if pol.CountryCode == pod.CountryCode || greatCircleNM(pol, pod) < minLaneNM {
			continue
		}
		it := found[kk]
		it.weight = tradeWeight(pol.region, pod.region) * pol.size * pod.size
		if it.weight > 0 {
			out = append(out, it)
		}
	}
	return out
}

// onTheWay reports whether a hub lies roughly between two ports (great
// circles, with slack for routes round continents).
func (w *World) onTheWay(pol, hub, pod int) bool {
	a, h, b := &w.places[pol], &w.places[hub], &w.places[pod]
	direct := greatCircleNM(a, b)
	return greatCircleNM(a, h)+greatCircleNM(h, b) <= 1.5*direct+500 && math.Max(greatCircleNM(a, h), greatCircleNM(h, b)) < 1.2*direct+300
}

// pickItinerary draws an itinerary with probability proportional to weight.
func pickItinerary(h uint64, its []itinerary) itinerary {
	total := 0.0
	for _, it := range its {
		total += it.weight
	}
	x := unit(h) * total
	for _, it := range its {
		if x < it.weight {
			return it
		}
		x -= it.weight
	}
	return its[len(its)-1]
}
