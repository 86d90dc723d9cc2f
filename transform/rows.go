package transform

import (
	"encoding/binary"

	"github.com/etalake/etalake/schema"
)

// The row types of the tables a Batch writes, their keys, and their
// columns in schema order (a test checks the names against schema).

type deadLetterRow struct {
	observed
	record, reason, endpoint string
	at                       int64
}

type deadLetterKey struct{ rid, record, reason string }

func newDeadLetters() *store[deadLetterKey, deadLetterRow] {
	return newStore[deadLetterKey](schema.DeadLetters,
		mergeAppend(func(r *deadLetterRow) *observed { return &r.observed }),
		str("response_id", func(r *deadLetterRow) string { return r.rid }),
		str("record", func(r *deadLetterRow) string { return r.record }),
		str("reason", func(r *deadLetterRow) string { return r.reason }),
		str("endpoint", func(r *deadLetterRow) string { return r.endpoint }),
		ts("at", func(r *deadLetterRow) int64 { return r.at }),
		date("at_date", func(r *deadLetterRow) int64 { return r.at }),
	)
}

type periodRow struct {
	observed
	product                string
	start                  int64
	end                    optTime
	creditsInitial, credit optInt
	expired                optBool
	obs                    int64
}

type periodKey struct {
	product    string
	start, obs int64
}

func newPeriods() *store[periodKey, periodRow] {
	return newStore[periodKey](schema.ConsumptionPeriods,
		mergeAppend(func(r *periodRow) *observed { return &r.observed }),
		str("product", func(r *periodRow) string { return r.product }),
		ts("period_start", func(r *periodRow) int64 { return r.start }),
		optTs("period_end", func(r *periodRow) optTime { return r.end }),
		optI64("credits_initial", func(r *periodRow) optInt { return r.creditsInitial }),
		optI64("credits", func(r *periodRow) optInt { return r.credit }),
		optBoolean("expired", func(r *periodRow) optBool { return r.expired }),
		ts("observed_at", func(r *periodRow) int64 { return r.obs }),
		str("response_id", func(r *periodRow) string { return r.rid }),
		date("observed_date", func(r *periodRow) int64 { return r.obs }),
	)
}

// fill sets a null value from v: a dimension row takes, column by column,
// the first non-null value its response gives.
func fill[V comparable](dst *V, v V) {
	var null V
	if *dst == null {
		*dst = v
	}
}

type locationRow struct {
	seen
	locode, name, state, country, countryCode string
	lat, lng                                  optFloat
	timezone                                  string
}

func newLocations() *store[string, locationRow] {
	sn := func(r *locationRow) *seen { return &r.seen }
	s := newStore[string](schema.Locations,
		mergeLatest(sn),
		str("locode", func(r *locationRow) string { return r.locode }),
		optStr("name", func(r *locationRow) string { return r.name }),
		optStr("state", func(r *locationRow) string { return r.state }),
		optStr("country", func(r *locationRow) string { return r.country }),
		optStr("country_code", func(r *locationRow) string { return r.countryCode }),
		optF64("lat", func(r *locationRow) optFloat { return r.lat }),
		optF64("lng", func(r *locationRow) optFloat { return r.lng }),
		optStr("timezone", func(r *locationRow) string { return r.timezone }),
		ts("first_seen_at", func(r *locationRow) int64 { return r.first }),
		ts("last_seen_at", func(r *locationRow) int64 { return r.last }),
		str("response_id", func(r *locationRow) string { return r.rid }),
		date("first_seen_date", func(r *locationRow) int64 { return r.first }),
	)
	s.coalesce = func(o, n *locationRow) {
		fill(&o.name, n.name)
		fill(&o.state, n.state)
		fill(&o.country, n.country)
		fill(&o.countryCode, n.countryCode)
		fill(&o.lat, n.lat)
		fill(&o.lng, n.lng)
		fill(&o.timezone, n.timezone)
	}
	s.dim = &dimension[locationRow]{seen: sn, shadow: func(o, g *locationRow) bool {
		return some(
			shadow(&o.name, &g.name),
			shadow(&o.state, &g.state),
			shadow(&o.country, &g.country),
			shadow(&o.countryCode, &g.countryCode),
			shadow(&o.lat, &g.lat),
			shadow(&o.lng, &g.lng),
			shadow(&o.timezone, &g.timezone),
		)
	}}
	return s
}

type facilityRow struct {
	seen
	key, name, countryCode, locode, bic, smdg string
	lat, lng                                  optFloat
}

func newFacilities() *store[string, facilityRow] {
	sn := func(r *facilityRow) *seen { return &r.seen }
	s := newStore[string](schema.Facilities,
		mergeLatest(sn),
		str("facility_key", func(r *facilityRow) string { return r.key }),
		optStr("name", func(r *facilityRow) string { return r.name }),
		optStr("country_code", func(r *facilityRow) string { return r.countryCode }),
		optStr("locode", func(r *facilityRow) string { return r.locode }),
		optStr("bic_code", func(r *facilityRow) string { return r.bic }),
		optStr("smdg_code", func(r *facilityRow) string { return r.smdg }),
		optF64("lat", func(r *facilityRow) optFloat { return r.lat }),
		optF64("lng", func(r *facilityRow) optFloat { return r.lng }),
		ts("first_seen_at", func(r *facilityRow) int64 { return r.first }),
		ts("last_seen_at", func(r *facilityRow) int64 { return r.last }),
		str("response_id", func(r *facilityRow) string { return r.rid }),
		date("first_seen_date", func(r *facilityRow) int64 { return r.first }),
	)
	s.coalesce = func(o, n *facilityRow) {
		fill(&o.name, n.name)
		fill(&o.countryCode, n.countryCode)
		fill(&o.locode, n.locode)
		fill(&o.bic, n.bic)
		fill(&o.smdg, n.smdg)
		fill(&o.lat, n.lat)
		fill(&o.lng, n.lng)
	}
	s.dim = &dimension[facilityRow]{seen: sn, shadow: func(o, g *facilityRow) bool {
		return some(
			shadow(&o.name, &g.name),
			shadow(&o.countryCode, &g.countryCode),
			shadow(&o.locode, &g.locode),
			shadow(&o.bic, &g.bic),
			shadow(&o.smdg, &g.smdg),
			shadow(&o.lat, &g.lat),
			shadow(&o.lng, &g.lng),
		)
	}}
	return s
}

type vesselRow struct {
	seen
	imo            int64
	name, callSign string
	mmsi           optInt
	flag           string
}

func newVessels() *store[int64, vesselRow] {
	sn := func(r *vesselRow) *seen { return &r.seen }
	s := newStore[int64](schema.Vessels,
		mergeLatest(sn),
		i64("imo", func(r *vesselRow) int64 { return r.imo }),
		optStr("name", func(r *vesselRow) string { return r.name }),
		optStr("call_sign", func(r *vesselRow) string { return r.callSign }),
		optI64("mmsi", func(r *vesselRow) optInt { return r.mmsi }),
		optStr("flag", func(r *vesselRow) string { return r.flag }),
		ts("first_seen_at", func(r *vesselRow) int64 { return r.first }),
		ts("last_seen_at", func(r *vesselRow) int64 { return r.last }),
		str("response_id", func(r *vesselRow) string { return r.rid }),
		date("first_seen_date", func(r *vesselRow) int64 { return r.first }),
	)
	s.coalesce = func(o, n *vesselRow) {
		fill(&o.name, n.name)
		fill(&o.callSign, n.callSign)
		fill(&o.mmsi, n.mmsi)
		fill(&o.flag, n.flag)
	}
	s.dim = &dimension[vesselRow]{seen: sn, shadow: func(o, g *vesselRow) bool {
		return some(
			shadow(&o.name, &g.name),
			shadow(&o.callSign, &g.callSign),
			shadow(&o.mmsi, &g.mmsi),
			shadow(&o.flag, &g.flag),
		)
	}}
	return s
}

// routePoint is a route member's columns.
type routePoint struct {
	locode string
	date   optTime
	actual optBool
}

type shipmentRow struct {
	seen
	number, typ, sealine, sealineName, shippingStatus string
	prepol, pol, pod                                  routePoint
	podPredictive                                     optTime
	postpod                                           routePoint
	containers                                        int32
	updatedAt                                         optTime
	updatedAtZone                                     string
}

// shipmentKey is (shipment_number, shipment_type).
type shipmentKey struct{ number, typ string }

func newShipments() *store[shipmentKey, shipmentRow] {
	return newStore[shipmentKey](schema.Shipments,
		mergeLatest(func(r *shipmentRow) *seen { return &r.seen }),
		str("shipment_number", func(r *shipmentRow) string { return r.number }),
		str("shipment_type", func(r *shipmentRow) string { return r.typ }),
		optStr("sealine", func(r *shipmentRow) string { return r.sealine }),
		optStr("sealine_name", func(r *shipmentRow) string { return r.sealineName }),
		optStr("shipping_status", func(r *shipmentRow) string { return r.shippingStatus }),
		optStr("prepol_locode", func(r *shipmentRow) string { return r.prepol.locode }),
		optTs("prepol_date", func(r *shipmentRow) optTime { return r.prepol.date }),
		optBoolean("prepol_actual", func(r *shipmentRow) optBool { return r.prepol.actual }),
		optStr("pol_locode", func(r *shipmentRow) string { return r.pol.locode }),
		optTs("pol_date", func(r *shipmentRow) optTime { return r.pol.date }),
		optBoolean("pol_actual", func(r *shipmentRow) optBool { return r.pol.actual }),
		optStr("pod_locode", func(r *shipmentRow) string { return r.pod.locode }),
		optTs("pod_date", func(r *shipmentRow) optTime { return r.pod.date }),
		optBoolean("pod_actual", func(r *shipmentRow) optBool { return r.pod.actual }),
		optTs("pod_predictive_eta", func(r *shipmentRow) optTime { return r.podPredictive }),
		optStr("postpod_locode", func(r *shipmentRow) string { return r.postpod.locode }),
		optTs("postpod_date", func(r *shipmentRow) optTime { return r.postpod.date }),
		optBoolean("postpod_actual", func(r *shipmentRow) optBool { return r.postpod.actual }),
		i32("container_count", func(r *shipmentRow) int32 { return r.containers }),
		optTs("updated_at", func(r *shipmentRow) optTime { return r.updatedAt }),
		ts("first_observed_at", func(r *shipmentRow) int64 { return r.first }),
		ts("last_observed_at", func(r *shipmentRow) int64 { return r.last }),
		str("response_id", func(r *shipmentRow) string { return r.rid }),
		date("first_observed_date", func(r *shipmentRow) int64 { return r.first }),
		optStr("updated_at_zone_assumed", func(r *shipmentRow) string { return r.updatedAtZone }),
	)
}

type etaRow struct {
	observed
	number, typ, target, source string
	obs                         int64
	locode                      string
	eta                         int64
	actual                      bool
	zone                        string
}

type etaKey struct {
	number, typ, target, source string
	obs                         int64
}

func newETAs() *store[etaKey, etaRow] {
	return newStore[etaKey](schema.ETAObservations,
		mergeAppend(func(r *etaRow) *observed { return &r.observed }),
		str("shipment_number", func(r *etaRow) string { return r.number }),
		str("shipment_type", func(r *etaRow) string { return r.typ }),
		str("target", func(r *etaRow) string { return r.target }),
		str("source", func(r *etaRow) string { return r.source }),
		ts("observed_at", func(r *etaRow) int64 { return r.obs }),
		optStr("locode", func(r *etaRow) string { return r.locode }),
		ts("eta", func(r *etaRow) int64 { return r.eta }),
		boolean("is_actual", func(r *etaRow) bool { return r.actual }),
		str("response_id", func(r *etaRow) string { return r.rid }),
		date("observed_date", func(r *etaRow) int64 { return r.obs }),
		optStr("eta_zone_assumed", func(r *etaRow) string { return r.zone }),
	)
}

type containerRow struct {
	seen
	number, container, typ, isoCode, status string
}

// containerKey is (shipment_number, container_number).
type containerKey struct{ number, container string }

func newContainers() *store[containerKey, containerRow] {
	return newStore[containerKey](schema.Containers,
		mergeLatest(func(r *containerRow) *seen { return &r.seen }),
		str("shipment_number", func(r *containerRow) string { return r.number }),
		str("container_number", func(r *containerRow) string { return r.container }),
		str("shipment_type", func(r *containerRow) string { return r.typ }),
		optStr("iso_code", func(r *containerRow) string { return r.isoCode }),
		optStr("status", func(r *containerRow) string { return r.status }),
		ts("first_observed_at", func(r *containerRow) int64 { return r.first }),
		ts("last_observed_at", func(r *containerRow) int64 { return r.last }),
		str("response_id", func(r *containerRow) string { return r.rid }),
		date("first_observed_date", func(r *containerRow) int64 { return r.first }),
	)
}

type eventRow struct {
	seen
	number, container                       string
	key                                     [16]byte
	typ, eventType, eventCode, status, desc string
	locode, facility                        string
	at                                      optTime
	actual                                  optBool
	additional                              bool
	routeType, transportType                string
	vesselIMO                               optInt
	vesselName, voyage                      string
	occurrence                              int32
	zone                                    string
}

// eventKey is (shipment_number, container_number, event_key).
type eventKey struct {
	number, container string
	key               [16]byte
}

func newEvents() *store[eventKey, eventRow] {
	s := newStore[eventKey](schema.ContainerEvents,
		mergeLatest(func(r *eventRow) *seen { return &r.seen }),
		str("shipment_number", func(r *eventRow) string { return r.number }),
		str("container_number", func(r *eventRow) string { return r.container }),
		hexKey("event_key", func(r *eventRow) *[16]byte { return &r.key }),
		str("shipment_type", func(r *eventRow) string { return r.typ }),
		optStr("event_type", func(r *eventRow) string { return r.eventType }),
		optStr("event_code", func(r *eventRow) string { return r.eventCode }),
		optStr("status", func(r *eventRow) string { return r.status }),
		optStr("description", func(r *eventRow) string { return r.desc }),
		optStr("locode", func(r *eventRow) string { return r.locode }),
		optStr("facility_key", func(r *eventRow) string { return r.facility }),
		optTs("event_at", func(r *eventRow) optTime { return r.at }),
		optBoolean("is_actual", func(r *eventRow) optBool { return r.actual }),
		boolean("is_additional_event", func(r *eventRow) bool { return r.additional }),
		optStr("route_type", func(r *eventRow) string { return r.routeType }),
		optStr("transport_type", func(r *eventRow) string { return r.transportType }),
		optI64("vessel_imo", func(r *eventRow) optInt { return r.vesselIMO }),
		optStr("vessel_name", func(r *eventRow) string { return r.vesselName }),
		optStr("voyage", func(r *eventRow) string { return r.voyage }),
		i32("occurrence", func(r *eventRow) int32 { return r.occurrence }),
		ts("first_observed_at", func(r *eventRow) int64 { return r.first }),
		ts("last_observed_at", func(r *eventRow) int64 { return r.last }),
		str("response_id", func(r *eventRow) string { return r.rid }),
		date("first_observed_date", func(r *eventRow) int64 { return r.first }),
		optStr("event_at_zone_assumed", func(r *eventRow) string { return r.zone }),
	)
	// The event key is a hash of the container and the event: the same key
	// under two shipment numbers is rare and probes one slot further.
	s.hashed = &hashIndex[eventKey]{hash: func(k eventKey) uint64 { return binary.LittleEndian.Uint64(k.key[:8]) }}
	return s
}

type eventObsRow struct {
	observed
	key               [16]byte
	obs               int64
	number, container string
	at                optTime
	actual            optBool
	zone              string
}

// eventObsKey is (event_key, observed_at).
type eventObsKey struct {
	key [16]byte
	obs int64
}

func newEventObs() *store[eventObsKey, eventObsRow] {
	s := newStore[eventObsKey](schema.EventObservations,
		mergeAppend(func(r *eventObsRow) *observed { return &r.observed }),
		hexKey("event_key", func(r *eventObsRow) *[16]byte { return &r.key }),
		ts("observed_at", func(r *eventObsRow) int64 { return r.obs }),
		str("shipment_number", func(r *eventObsRow) string { return r.number }),
		str("container_number", func(r *eventObsRow) string { return r.container }),
		optTs("event_at", func(r *eventObsRow) optTime { return r.at }),
		optBoolean("is_actual", func(r *eventObsRow) optBool { return r.actual }),
		str("response_id", func(r *eventObsRow) string { return r.rid }),
		date("observed_date", func(r *eventObsRow) int64 { return r.obs }),
		optStr("event_at_zone_assumed", func(r *eventObsRow) string { return r.zone }),
	)
	s.hashed = &hashIndex[eventObsKey]{hash: func(k eventObsKey) uint64 {
		return binary.LittleEndian.Uint64(k.key[:8]) ^ uint64(k.obs)*0x9E3779B97F4A7C15
	}}
	return s
}

type portCallRow struct {
	observed
	portCallKey
	carrier, serviceCode, serviceName, vesselName string
	importVoyage, exportVoyage, facility          string
	at                                            int64
	zone                                          string
}

// portCallKey is the key of port_calls.
type portCallKey struct {
	query, port      string
	imo              int64
	voyage, typ, cls string
	obs              int64
}

func newPortCalls() *store[portCallKey, portCallRow] {
	return newStore[portCallKey](schema.PortCalls,
		mergeAppend(func(r *portCallRow) *observed { return &r.observed }),
		str("query", func(r *portCallRow) string { return r.query }),
		str("port_locode", func(r *portCallRow) string { return r.port }),
		i64("vessel_imo", func(r *portCallRow) int64 { return r.imo }),
		str("voyage", func(r *portCallRow) string { return r.voyage }),
		str("event_type_code", func(r *portCallRow) string { return r.typ }),
		str("classifier", func(r *portCallRow) string { return r.cls }),
		ts("observed_at", func(r *portCallRow) int64 { return r.obs }),
		str("carrier", func(r *portCallRow) string { return r.carrier }),
		optStr("service_code", func(r *portCallRow) string { return r.serviceCode }),
		optStr("service_name", func(r *portCallRow) string { return r.serviceName }),
		optStr("vessel_name", func(r *portCallRow) string { return r.vesselName }),
		optStr("import_voyage", func(r *portCallRow) string { return r.importVoyage }),
		optStr("export_voyage", func(r *portCallRow) string { return r.exportVoyage }),
		optStr("facility_key", func(r *portCallRow) string { return r.facility }),
		ts("event_at", func(r *portCallRow) int64 { return r.at }),
		str("response_id", func(r *portCallRow) string { return r.rid }),
		date("observed_date", func(r *portCallRow) int64 { return r.obs }),
		optStr("event_at_zone_assumed", func(r *portCallRow) string { return r.zone }),
	)
}
