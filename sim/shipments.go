package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/etalake/etalake/wire"
)

// shipment is a generated shipment: its carrier, its vessel legs as booked
// (one, or two via a hub; jumps may change them later), optional inland
// origin and destination, and containers.
type shipment struct {
	ref        wire.ShipmentRef
	id         int64 // stable identity for hashing
	carrier    int
	legs       []leg
	pre, post  int // inlandLinks index, -1 when none
	containers []container
	booked     int64     // the service knows the shipment from this time on
	versions   []version // jumps.go: the itinerary from each announced change on
}

// leg is a vessel voyage of a shipment, between two calls of one vessel.
type leg struct{ from, to int }

type container struct {
	number, iso string
}

// Shipment mix.
const (
	shareCT        = 0.5
	shareBL        = 0.3 // BK takes the rest
	shareTranship  = 0.36
	sharePrepol    = 0.3  // of shipments whose POL has inland links
	sharePostpod   = 0.45 // of shipments whose POD has inland links
	departFromDays = -62  // first POL departures, days after Start
	departToDays   = 34   // last POL departures, days after Start, for a world of up to 60 days
	departTailDays = 26   // in a longer world: the last departures this many days before its end
)

var isoCodes = []weighted{{"22G1", 20}, {"42G1", 25}, {"45G1", 45}, {"45R1", 7}, {"L5G1", 3}}

// numbering hands out unique shipment and container numbers.
type numbering struct {
	seed  int64
	taken map[string]bool
}

// generateShipments draws cfg.Shipments shipments on the carriers' networks.
func (w *World) generateShipments() {
	direct, tranship := w.buildItineraries()
	shares := make([]float64, len(w.carriers))
	for i, c := range w.carriers {
		shares[i] = c.share
		if w.cfg.EvenCarriers {
			shares[i] = 1
		}
	}
	departTo := max(float64(departToDays), float64(w.cfg.Days-departTailDays))
	nb := &numbering{seed: w.seed, taken: map[string]bool{}}
	w.shipments = make([]shipment, 0, w.cfg.Shipments)
	for n := 0; n < w.cfg.Shipments; n++ {
		for attempt := int64(0); ; attempt++ {
			h := hash(w.seed, tagShipment, int64(n), attempt)
			ci := pick(h, shares)
			its := direct[ci]
			if unit(mix(h^1)) < shareTranship && len(tranship[ci]) > 0 {
				its = tranship[ci]
			}
			if len(its) == 0 {
				continue
			}
			it := pickItinerary(mix(h^2), its)
			depart := w.start.Unix() + int64(uniform(mix(h^3), departFromDays, departTo)*float64(day))
			legs, ok := w.routeLegs(it, depart)
			if !ok || w.straddles(legs) {
				continue
			}
			s := shipment{id: int64(n), carrier: ci, legs: legs, pre: -1, post: -1}
			w.addInland(&s, mix(h^4))
			nb.fill(w, &s, mix(h^5))
			w.shipments = append(w.shipments, s)
			break
		}
	}
}

// book sets when the service first knows a shipment: one to three days
// before its first event, both as it actually happens and as estimated at
// booking time (an estimate far from the vessel's departure can be days
// early, so the booking moves earlier until the estimate follows it).
func (w *World) book(s *shipment) {
	lead := int64(uniform(hash(w.seed, tagShipment, s.id, -1), 1, 3) * float64(day))
	booked := w.firstEventActual(s) - lead
	for i := 0; i < 8; i++ {
		est := w.firstEventAt(s, booked)
		if est >= booked+day/2 {
			break
		}
		booked = est - lead
	}
	s.booked = booked - mod64(booked, 60)
}

// routeLegs finds the rotations of an itinerary for a box that wants to sail
// at or after depart. A second leg departs the hub at least a day after the
// first leg arrives, both as planned and as it actually happened.
func (w *World) routeLegs(it itinerary, depart int64) ([]leg, bool) {
	first, ok := w.legFrom(it.s1, it.i, it.j, depart)
	if !ok {
		return nil, false
	}
	if it.s2 < 0 {
		return []leg{first}, true
	}
	second, ok := w.connection(first, it.s2, it.h, it.k)
	if !ok {
		return nil, false
	}
	return []leg{first, second}, true
}

// connection is the first sailing of service s2 from position h (the hub)
// to position k that departs at least a day after the first leg arrives,
// both as planned and as it actually happened.
func (w *World) connection(first leg, s2, h, k int) (leg, bool) {
	arr := &w.calls[first.to]
	s := &w.services[s2]
	r := int(math.Ceil(float64(arr.plnArr+connectionDays*day-epoch-s.offset-s.dep[h]) / float64(week)))
	for {
		ci := w.callIndex(s2, r, h)
		if ci < 0 {
			return leg{}, false
		}
		if w.calls[ci].actDep >= arr.actArr+connectionDays*day {
			return w.legFrom(s2, h, k, w.calls[ci].plnDep)
		}
		r++
	}
}

// legFrom is the first sailing of service si from position i at or after t,
// to position j (in the vessel's next rotation when j ≤ i).
func (w *World) legFrom(si, i, j int, t int64) (leg, bool) {
	s := &w.services[si]
	k := firstK(s, i, t)
	from := w.callIndex(si, k, i)
	kt := k
	if j <= i {
		kt += s.n
	}
	to := w.callIndex(si, kt, j)
	if from < 0 || to < 0 {
		return leg{}, false
	}
	return leg{from: from, to: to}, true
}

// addInland attaches carrier haulage from an inland origin and to an inland
// destination where the ports have such links.
func (w *World) addInland(s *shipment, h uint64) {
	pol := w.calls[s.legs[0].from].port
	pod := w.calls[s.legs[len(s.legs)-1].to].port
	var pre, post []int
	for li, l := range inlandLinks {
		if w.placeIdx[l.port] == int(pol) {
			pre = append(pre, li)
		}
		if w.placeIdx[l.port] == int(pod) {
			post = append(post, li)
		}
	}
	if len(pre) > 0 && unit(h) < sharePrepol {
		s.pre = pre[intn(mix(h^1), len(pre))]
	}
	if len(post) > 0 && unit(mix(h^2)) < sharePostpod {
		s.post = post[intn(mix(h^3), len(post))]
	}
}

// fill draws the shipment type, number and containers.
func (nb *numbering) fill(w *World, s *shipment, h uint64) {
	c := &w.carriers[s.carrier]
	pol := w.places[w.calls[s.legs[0].from].port].Locode
	u := unit(h)
	typ := wire.ShipmentBookingNumber
	switch {
	case u < shareCT:
		typ = wire.ShipmentContainer
	case u < shareCT+shareBL:
		typ = wire.ShipmentBillOfLading
	}
	n := 1
	if typ != wire.ShipmentContainer {
		n = 1 + pick(mix(h^1), []float64{45, 30, 15, 10})
	}
	for i := 0; i < n; i++ {
		hc := hash(nb.seed, tagContainer, s.id, int64(i))
		iso := isoCodes[pick(hc, weightsOf(isoCodes))].code
		s.containers = append(s.containers, container{number: nb.containerNumber(c, mix(hc)), iso: iso})
	}
	number := s.containers[0].number
	if typ != wire.ShipmentContainer {
		number = nb.unique(func(try uint64) string { return documentNumber(c.scac, pol, typ, mix(h^try^0x77)) })
	}
	s.ref = wire.ShipmentRef{Number: number, Type: typ, Sealine: c.scac}
}

// unique draws until gen returns a number not handed out yet.
func (nb *numbering) unique(gen func(try uint64) string) string {
	for try := uint64(0); ; try++ {
		n := gen(try)
		if !nb.taken[n] {
			nb.taken[n] = true
			return n
		}
	}
}

// containerNumber is an ISO 6346 number owned by the carrier (three in four)
// or a leasing company.
func (nb *numbering) containerNumber(c *carrier, h uint64) string {
	return nb.unique(func(try uint64) string {
		hh := mix(h ^ try)
		owners := c.owners
		if unit(hh) < 0.25 {
			owners = lessors
		}
		prefix := owners[intn(mix(hh^1), len(owners))]
		body := prefix + digits(mix(hh^2), 6)
		return fmt.Sprintf("%s%d", body, containerCheckDigit(body))
	})
}

// digits is n decimal digits drawn from h.
func digits(h uint64, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		h = mix(h)
		b.WriteByte(byte('0' + h%10))
	}
	return b.String()
}

// documentNumber is a bill of lading or booking number in the carrier's
// usual shape.
func documentNumber(scac, pol string, typ wire.ShipmentType, h uint64) string {
	city := pol[2:]
	letter := string(rune('A' + h%26))
	if typ == wire.ShipmentBillOfLading {
		switch scac {
		case "MAEU":
			return "MAEU" + digits(h, 9)
		case "MSCU":
			return "MEDU" + city[:2] + digits(h, 6)
		case "CMDU", "HDMU", "ZIMU":
			return scac + city + digits(h, 7)
		case "COSU", "OOLU":
			return scac + digits(h, 10)
		case "HLCU":
			return "HLCU" + city + digits(h, 8)
		case "ONEY":
			return "ONEY" + city + "F" + digits(h, 8)
		case "EGLV":
			return "EGLV" + digits(h, 12)
		case "YMLU":
			return "YMLU" + letter + digits(h, 9)
		case "WHLC":
			return "WHLC" + digits(h, 3) + letter + digits(mix(h), 6)
		case "PCIU":
			return "PCIU" + city + digits(h, 9)
		}
		return scac + digits(h, 9)
	}
	switch scac {
	case "MAEU":
		return digits(h, 9)
	case "MSCU":
		return "EBKG" + digits(h, 8)
	case "CMDU", "ZIMU":
		return city + digits(h, 7)
	case "COSU", "OOLU":
		return digits(h, 10)
	case "HLCU":
		return digits(h, 8)
	case "ONEY":
		return city + "F" + digits(h, 8)
	case "EGLV":
		return digits(h, 12)
	case "YMLU":
		return letter + digits(h, 9)
	case "HDMU":
		return city + "M" + digits(h, 7)
	case "WHLC":
		return digits(h, 3) + letter + digits(mix(h), 6)
	case "PCIU":
		return city + digits(h, 9)
	}
	return digits(h, 10)
}

// shipmentPorts are the pol, pod and hub of a shipment as booked, as place
// indices (hub −1 when direct).
func (w *World) shipmentPorts(s *shipment) (pol, pod, hub int) { return w.legPorts(s.legs) }

// legPorts are the pol, pod and hub of an itinerary.
func (w *World) legPorts(legs []leg) (pol, pod, hub int) {
	pol = int(w.calls[legs[0].from].port)
	pod = int(w.calls[legs[len(legs)-1].to].port)
	hub = -1
	if len(legs) > 1 {
		hub = int(w.calls[legs[0].to].port)
	}
	return pol, pod, hub
}
