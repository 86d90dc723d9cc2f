package sim

import (
	"errors"
	"sort"
	"time"

	"github.com/etalake/etalake/wire"
)

// ErrNoData means the world has nothing to say about the resource at that
// time: an unknown port, vessel or shipment, a carrier that does not support
// the query kind, an empty window, or a shipment not booked yet. The handler
// turns it into 404.
var ErrNoData = errors.New("sim: no data for the requested resource")

// WorldConfig sizes a world. The zero value of each field takes its default.
type WorldConfig struct {
	Seed int64
	// Start is the virtual "today" at which a demo starts (UTC); default
	// 2026-01-05T00:00:00Z.
	Start time.Time
	// Days is how many days after Start the world keeps producing consistent
	// answers (default 60).
	Days int
	// Shipments is the number of shipments to generate (default 400). They
	// leave their port of loading between 62 days before and 34 days after
	// Start (in a world longer than 60 days, until 26 days before its end),
	// so a 30-day demo sees every stage: delivered before Start, at sea, and
	// booked during the run.
	Shipments int
	// EvenCarriers gives every carrier the same share of shipments instead
	// of its market share: for experiments that need each carrier's
	// statistics equally precise.
	EvenCarriers bool
	// NoJumps turns the jumps off (jumps.go: rolled boxes, omitted calls,
	// swapped vessels): ETAs then only drift, and the world is the one the
	// simulator had before it had jumps, answer for answer.
	NoJumps bool
	// Errors are the realistic ETA errors (etaerrors.go): nil takes
	// DefaultETAErrors; a zero field turns its part off, and a zero
	// ETAErrors gives the ETAs of the simulator before them.
	Errors *ETAErrors
}

// DefaultStart is the Start of a zero WorldConfig.
var DefaultStart = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

// withDefaults fills zero fields.
func (c WorldConfig) withDefaults() WorldConfig {
	if c.Start.IsZero() {
		c.Start = DefaultStart
	}
	c.Start = c.Start.UTC().Truncate(time.Minute)
	if c.Days <= 0 {
		c.Days = 60
	}
	if c.Shipments <= 0 {
		c.Shipments = 400
	}
	e := DefaultETAErrors()
	if c.Errors != nil {
		e = *c.Errors
	}
	c.Errors = &e // a copy: the world's settings do not change under it
	return c
}

// World is a deterministic, seeded model of ports, carriers, services,
// vessels, voyages and shipments. It is immutable once built: every method
// is a pure function of the configuration, its arguments and at, and safe
// for concurrent use.
type World struct {
	cfg   WorldConfig
	seed  int64
	start time.Time

	places   []place // seaports, then inland places
	placeIdx map[string]int
	carriers []carrier
	services []service
	vessels  []vessel // the fleet (fleet of them), then the substitutes of swapped voyages
	fleet    int
	imoIdx   map[int]int

	calls       []call
	maxLate     int64     // the greatest ACT − PLN arrival of any call
	portCalls   [][]int32 // per place, by planned arrival
	vesselCalls [][]int32 // per vessel, by planned arrival
	portSvc     [][]svcPos
	bestDirect  map[[2]int]int64 // fastest plausible direct sailing per port pair

	shipments   []shipment
	byDocument  map[string]int    // "BL/number", "BK/number" → shipment
	byContainer map[string][2]int // container number → shipment, container

	callJumps []callJump // per call, with jumps (nil without)
	swaps     []swap

	biases etaBiases // lane, port and drift biases (etaerrors.go)
}

// World horizon around the configured window: voyages are generated from
// 130 days before Start to 110 days after Start + Days, enough for
// shipments that finished before Start and for queries at the end of the
// window (port-to-port departures 28 days out plus transit).
const (
	horizonBefore = 130 * day
	horizonAfter  = 110 * day
)

// NewWorld builds the world of a configuration.
func NewWorld(cfg WorldConfig) *World {
	cfg = cfg.withDefaults()
	w := &World{cfg: cfg, seed: cfg.Seed, start: cfg.Start}
	w.places = buildPlaces(cfg.Seed)
	w.placeIdx = make(map[string]int, len(w.places))
	for i := range w.places {
		w.placeIdx[w.places[i].Locode] = i
	}
	w.carriers = append([]carrier(nil), carrierTable...)
	vf := w.buildServices()
	w.fleet = len(w.vessels)
	start := cfg.Start.Unix()
	from, to := start-horizonBefore, start+int64(cfg.Days)*day+horizonAfter
	w.buildCalls(from, to)
	if !cfg.NoJumps {
		w.callJumps = make([]callJump, len(w.calls))
		w.drawSwaps(vf)
		w.drawOmissions()
	}
	w.sail()
	for i := range w.calls {
		w.maxLate = max(w.maxLate, w.calls[i].actArr-w.calls[i].plnArr)
	}
	if !cfg.NoJumps {
		w.announceCallJumps()
	}
	w.indexCalls()
	w.buildBestDirect()
	w.generateShipments()
	if !cfg.NoJumps {
		w.jumpShipments()
	}
	// The biases are centred on the shipments' arrivals, and booking
	// reads the estimates of a shipment's first event.
	w.drawBiases(*cfg.Errors, from, to)
	for i := range w.shipments {
		w.book(&w.shipments[i])
	}
	w.indexShipments()
	return w
}

// buildServices instantiates the service table with vessels and terminals,
// and returns the factory that made the vessels (substitutes come from it
// too: names and IMO numbers stay unique).
func (w *World) buildServices() *vesselFactory {
	tpls := map[string]*template{}
	for i := range templates {
		tpls[templates[i].id] = &templates[i]
	}
	vf := newVesselFactory(w.seed)
	w.imoIdx = map[int]int{}
	w.portSvc = make([][]svcPos, len(w.places))
	for _, spec := range serviceTable {
		ci := carrierIndex(w.carriers, spec.scac)
		s := buildService(w.seed, spec, tpls[spec.tpl], ci, w.placeIdx)
		si := len(w.services)
		for pos, p := range s.ports {
			n := len(w.places[p].facilities)
			s.facility = append(s.facility, intn(hash(w.seed, tagFacility, s.id, int64(pos)), n))
			w.portSvc[p] = append(w.portSvc[p], svcPos{si, pos})
		}
		for slot := 0; slot < s.n; slot++ {
			v := vf.make(w.carriers, ci, &s, slot)
			v.service = si
			w.imoIdx[v.IMO] = len(w.vessels)
			s.vessels = append(s.vessels, len(w.vessels))
			w.vessels = append(w.vessels, v)
		}
		w.services = append(w.services, s)
	}
	return vf
}

// indexShipments builds the lookups by document and container number.
func (w *World) indexShipments() {
	w.byDocument = map[string]int{}
	w.byContainer = map[string][2]int{}
	for i := range w.shipments {
		s := &w.shipments[i]
		if s.ref.Type != wire.ShipmentContainer {
			w.byDocument[string(s.ref.Type)+"/"+s.ref.Number] = i
		}
		for cn, c := range s.containers {
			w.byContainer[c.number] = [2]int{i, cn}
		}
	}
}

// Config is the configuration of the world, defaults filled in.
func (w *World) Config() WorldConfig { return w.cfg }

// Shipment answers the tracking query. A container number (type CT, or
// empty) finds any generated container, also one of a bill of lading or
// booking (the answer then carries that container only); BL and BK numbers
// find their shipment. ErrNoData when unknown, when the sealine is given and
// is not the shipment's carrier, or before the shipment is booked (about two
// days before its first event).
func (w *World) Shipment(ref wire.ShipmentRef, at time.Time) (*wire.Shipment, error) {
	s, cn, ref, err := w.lookup(ref, at)
	if err != nil {
		return nil, err
	}
	v := &view{w: w, at: at.Unix(), calls: map[int]callTimes{}}
	return v.shipmentAt(s, ref, cn), nil
}

// lookup finds the shipment of a tracking query at at, as Shipment says
// (the container's index when a container was asked, else -1), with the
// reference's type filled in.
func (w *World) lookup(ref wire.ShipmentRef, at time.Time) (*shipment, int, wire.ShipmentRef, error) {
	si, cn := -1, -1
	switch ref.Type {
	case wire.ShipmentContainer, "":
		ref.Type = wire.ShipmentContainer
		if hit, ok := w.byContainer[ref.Number]; ok {
			si, cn = hit[0], hit[1]
		}
	case wire.ShipmentBillOfLading, wire.ShipmentBookingNumber:
		if i, ok := w.byDocument[string(ref.Type)+"/"+ref.Number]; ok {
			si = i
		}
	}
	if si < 0 {
		return nil, 0, ref, ErrNoData
	}
	s := &w.shipments[si]
	if ref.Sealine != "" && ref.Sealine != w.carriers[s.carrier].scac {
		return nil, 0, ref, ErrNoData
	}
	if at.Unix() < s.booked {
		return nil, 0, ref, ErrNoData
	}
	return s, cn, ref, nil
}

// ReportedETA is what the carrier reports at a time of a shipment's arrival
// at its port of discharge.
type ReportedETA struct {
	// POD is the port of discharge then (UN/LOCODE): an omission moves it.
	POD string `json:"pod"`
	// ETA is route.pod.date of the tracking answer: the carrier's estimate,
	// or the actual arrival once Actual.
	ETA    time.Time `json:"eta"`
	Actual bool      `json:"actual"`
	// RevisedAt is when the carrier made the estimate: its latest daily
	// revision (eta.go), at which announced jumps also fall.
	RevisedAt time.Time `json:"revised_at"`
}

// CarrierETA is the carrier's report at time at of the shipment's arrival
// at its POD: the very value of route.pod in Shipment's answer at at (one
// source for both), for harnesses that judge what a client saw and for
// pushes that fire when it changes. It changes only at the carrier's
// revisions and at the actual arrival. ErrNoData as Shipment.
func (w *World) CarrierETA(ref wire.ShipmentRef, at time.Time) (ReportedETA, error) {
	s, _, _, err := w.lookup(ref, at)
	if err != nil {
		return ReportedETA{}, err
	}
	return w.reportedETA(s, at.Unix()), nil
}

// reportedETA is CarrierETA of s at a, booked or not.
func (w *World) reportedETA(s *shipment, a int64) ReportedETA {
	v := &view{w: w, at: a, calls: map[int]callTimes{}}
	pod, ct := v.pod(s)
	return ReportedETA{POD: w.places[pod].Locode, ETA: unixUTC(ct.arr), Actual: ct.arrAct, RevisedAt: unixUTC(ct.revisionAt)}
}

// Shipments lists every generated shipment (number, type, sealine) in
// generation order.
func (w *World) Shipments() []wire.ShipmentRef {
	out := make([]wire.ShipmentRef, len(w.shipments))
	for i := range w.shipments {
		out[i] = w.shipments[i].ref
	}
	return out
}

// Ports lists the seaports, ordered by UN/LOCODE. Inland places (origins and
// destinations of carrier haulage) are not ports and are not listed.
func (w *World) Ports() []Port {
	var out []Port
	for i := range w.places {
		if !w.places[i].inland {
			out = append(out, w.places[i].Port)
		}
	}
	return out
}

// Vessels lists the services' fleets in a stable order (by service, then
// slot). The substitutes that sail a swapped voyage (jumps.go) are not in
// it: Truth lists them with their swaps.
func (w *World) Vessels() []VesselInfo {
	out := make([]VesselInfo, w.fleet)
	for i := range out {
		out[i] = w.vessels[i].VesselInfo
	}
	return out
}

// Lanes lists the POL → POD pairs shipments are booked on, with their
// number of shipments, ordered by POL then POD (an omission that moves a
// shipment's POD does not move its lane).
func (w *World) Lanes() []Lane {
	count := map[[2]string]int{}
	for i := range w.shipments {
		pol, pod, _ := w.shipmentPorts(&w.shipments[i])
		count[[2]string{w.places[pol].Locode, w.places[pod].Locode}]++
	}
	out := make([]Lane, 0, len(count))
	for k, n := range count {
		out = append(out, Lane{POL: k[0], POD: k[1], Shipments: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].POL != out[j].POL {
			return out[i].POL < out[j].POL
		}
		return out[i].POD < out[j].POD
	})
	return out
}
