package sim

import (
	"errors"
	"sort"
	"time"

	"github.com/etalake/etalake/extract"
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
	vessels  []vessel
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
	w.buildServices()
	start := cfg.Start.Unix()
	w.buildCalls(start-horizonBefore, start+int64(cfg.Days)*day+horizonAfter)
	w.sail()
	for i := range w.calls {
		w.maxLate = max(w.maxLate, w.calls[i].actArr-w.calls[i].plnArr)
	}
	w.indexCalls()
	w.buildBestDirect()
	w.generateShipments()
	w.indexShipments()
	return w
}

// buildServices instantiates the service table with vessels and terminals.
func (w *World) buildServices() {
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
}

// indexShipments builds the lookups by document and container number.
func (w *World) indexShipments() {
	w.byDocument = map[string]int{}
	w.byContainer = map[string][2]int{}
	for i := range w.shipments {
		s := &w.shipments[i]
		if s.ref.Type != extract.ShipmentContainer {
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
func (w *World) Shipment(ref extract.ShipmentRef, at time.Time) (*wire.Shipment, error) {
	si, cn := -1, -1
	switch ref.Type {
	case extract.ShipmentContainer, "":
		ref.Type = extract.ShipmentContainer
		if hit, ok := w.byContainer[ref.Number]; ok {
			si, cn = hit[0], hit[1]
		}
	case extract.ShipmentBillOfLading, extract.ShipmentBookingNumber:
		if i, ok := w.byDocument[string(ref.Type)+"/"+ref.Number]; ok {
			si = i
		}
	}
	if si < 0 {
		return nil, ErrNoData
	}
	s := &w.shipments[si]
	if ref.Sealine != "" && ref.Sealine != w.carriers[s.carrier].scac {
		return nil, ErrNoData
	}
	a := at.Unix()
	if a < s.booked {
		return nil, ErrNoData
	}
	v := &view{w: w, at: a, calls: map[int]callTimes{}}
	return v.shipmentAt(s, ref, cn), nil
}

// Shipments lists every generated shipment (number, type, sealine) in
// generation order.
func (w *World) Shipments() []extract.ShipmentRef {
	out := make([]extract.ShipmentRef, len(w.shipments))
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

// Vessels lists every ship in a stable order (by service, then slot).
func (w *World) Vessels() []VesselInfo {
	out := make([]VesselInfo, len(w.vessels))
	for i := range w.vessels {
		out[i] = w.vessels[i].VesselInfo
	}
	return out
}

// Lanes lists the POL → POD pairs shipments use, with their number of
// shipments, ordered by POL then POD.
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
