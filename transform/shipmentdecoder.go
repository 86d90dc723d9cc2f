package transform

import (
	"strconv"
	"time"

	"github.com/etalake/etalake/extract/wire"
)

// shipmentDecoder is the fast path of the tracking responses, the bulk of
// what the warehouse loads: it decodes a body into the same wire.Shipment
// as wire.DecodeShipment, or gives up (ok false) on anything it does not
// handle exactly as encoding/json does (escaped or case-folded keys,
// duplicate members, type mismatches, invalid JSON, …), and the caller
// then uses wire.DecodeShipment. A differential fuzz test holds the two to
// the same rows.
//
// The value it returns lives in the decoder's slabs until the next decode;
// its strings are owned by the batch (interned), and its locations,
// facilities and vessels are shared by every body that spells them the
// same way (memo), so that they are decoded, and their dimension rows
// derived, once.
type shipmentDecoder struct {
	scanner
	strs *interner

	shipments  slab[wire.Shipment]
	metadata   slab[wire.ShipmentMetadata]
	routes     slab[wire.ShipmentRoute]
	points     slab[wire.RoutePoint]
	pods       slab[wire.PortOfDischarge]
	times      slab[time.Time]
	strings    slab[string]
	bools      slab[bool]
	containers []wire.Container
	events     []wire.Event

	locations  memo[wire.Location]
	facilities memo[wire.Facility]
	vessels    memo[wire.Vessel]
}

// shipmentMembers are the members of a shipment object DecodeShipment
// looks at, at the top level or inside data.
type shipmentMembers struct {
	seen       uint8
	metadata   *wire.ShipmentMetadata
	route      *wire.ShipmentRoute
	containers []wire.Container
	data       *shipmentMembers
}

const (
	seenMetadata uint8 = 1 << iota
	seenRoute
	seenContainers
	seenData
)

// present reports whether route or containers are present and not null.
func (m *shipmentMembers) present() bool { return m.route != nil || m.containers != nil }

// decode decodes a tracking response body, or reports ok false.
func (d *shipmentDecoder) decode(body []byte) (s *wire.Shipment, ok bool) {
	d.buf, d.pos = body, 0
	d.shipments.reset()
	d.metadata.reset()
	d.routes.reset()
	d.points.reset()
	d.pods.reset()
	d.times.reset()
	d.strings.reset()
	d.bools.reset()
	d.containers = d.containers[:0]
	d.events = d.events[:0]

	var top shipmentMembers
	if d.next() != '{' || !d.members(&top, true) {
		return nil, false
	}
	if d.ws(); d.pos != len(d.buf) { // trailing data
		return nil, false
	}
	m := &top
	if !top.present() {
		// The public API's envelope: {"status": …, "data": {…}}.
		if top.data == nil || !top.data.present() {
			return nil, false
		}
		m = top.data
	}
	s = d.shipments.new()
	s.Metadata, s.Route, s.Containers = m.metadata, m.route, m.containers
	return s, true
}

// members decodes a shipment object; data is decoded too at the top level.
func (d *shipmentDecoder) members(m *shipmentMembers, top bool) bool {
	_, ok := d.object(func(k string) bool {
		var bit uint8
		var ok bool
		switch k {
		case "metadata":
			bit = seenMetadata
			m.metadata, ok = d.shipmentMetadata()
		case "route":
			bit = seenRoute
			m.route, ok = d.route()
		case "containers":
			bit = seenContainers
			m.containers, ok = d.containerList()
		case "data":
			if !top {
				return d.skip()
			}
			bit = seenData
			if d.null() {
				ok = true
				break
			}
			if d.next() != '{' {
				return false
			}
			m.data = &shipmentMembers{}
			ok = d.members(m.data, false)
		default:
			return !foldsTo(k, "metadata", "route", "containers", "data") && d.skip()
		}
		if m.seen&bit != 0 {
			return false // a duplicate member: encoding/json merges
		}
		m.seen |= bit
		return ok
	})
	return ok
}

// own interns a decoded string.
func (d *shipmentDecoder) own(s string) string { return d.strs.of(s) }

// ownedStr decodes a string value.
func (d *shipmentDecoder) ownedStr() (string, bool) {
	s, ok := d.str()
	return d.own(s), ok
}

// text decodes a non-pointer string member: null leaves it empty.
func (d *shipmentDecoder) text(dst *string) bool {
	if d.null() {
		return true
	}
	s, ok := d.ownedStr()
	*dst = s
	return ok
}

// optText decodes a *string member.
func (d *shipmentDecoder) optText(dst **string, alloc func(string) *string) bool {
	if d.null() {
		*dst = nil
		return true
	}
	s, ok := d.ownedStr()
	*dst = alloc(s)
	return ok
}

// flag decodes a bool member; null leaves it false.
func (d *shipmentDecoder) flag(dst *bool) bool {
	switch d.next() {
	case 'n':
		return d.literal("null")
	case 't':
		*dst = true
		return d.literal("true")
	case 'f':
		*dst = false
		return d.literal("false")
	}
	return false
}

// optFlag decodes a *bool member.
func (d *shipmentDecoder) optFlag(dst **bool) bool {
	if d.null() {
		*dst = nil
		return true
	}
	var v bool
	if d.next() != 't' && d.next() != 'f' || !d.flag(&v) {
		return false
	}
	*dst = d.bools.of(v)
	return true
}

// optTime decodes a *time.Time member as time.Time.UnmarshalJSON does.
func (d *shipmentDecoder) optTime(dst **time.Time, alloc func(time.Time) *time.Time) bool {
	if d.null() {
		*dst = nil
		return true
	}
	if d.next() != '"' {
		return false
	}
	start := d.pos
	raw, _, ok := d.stringToken()
	if !ok {
		return false
	}
	t, ok := parseUTCSeconds(raw)
	if !ok {
		var v time.Time
		if v.UnmarshalJSON(d.buf[start:d.pos]) != nil {
			return false
		}
		t = v
	}
	*dst = alloc(t)
	return true
}

// parseUTCSeconds parses the common form YYYY-MM-DDThh:mm:ssZ exactly as
// time.Parse(time.RFC3339, …) does; ok is false for any other text.
func parseUTCSeconds(b []byte) (time.Time, bool) {
	if len(b) != 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// optInt decodes a *int member as encoding/json does (an integer literal
// that fits).
func (d *shipmentDecoder) optInt(dst **int) bool {
	if d.null() {
		*dst = nil
		return true
	}
	raw, integer, ok := d.number()
	if !ok || !integer {
		return false
	}
	n, err := strconv.ParseInt(view(raw), 10, 64)
	if err != nil {
		return false
	}
	v := int(n)
	*dst = &v
	return true
}

// optFloat decodes a *float64 member as encoding/json does.
func (d *shipmentDecoder) optFloat(dst **float64) bool {
	if d.null() {
		*dst = nil
		return true
	}
	raw, _, ok := d.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(view(raw), 64)
	if err != nil {
		return false
	}
	*dst = &f
	return true
}

// rawValue decodes a json.RawMessage member: the value's text.
func (d *shipmentDecoder) rawValue(dst *[]byte) bool {
	start := d.pos
	if !d.skip() {
		return false
	}
	*dst = d.buf[start:d.pos]
	return true
}

// fields is the bookkeeping of one object: the members seen, to refuse
// duplicates.
type fields uint32

// once marks member i seen and reports whether it was new.
func (f *fields) once(i uint) bool {
	if *f&(1<<i) != 0 {
		return false
	}
	*f |= 1 << i
	return true
}

func (d *shipmentDecoder) shipmentMetadata() (*wire.ShipmentMetadata, bool) {
	if d.null() {
		return nil, true
	}
	md := d.metadata.new()
	var seen fields
	_, ok := d.object(func(k string) bool {
		switch k {
		case "shipmentType":
			return seen.once(0) && d.text(&md.ShipmentType)
		case "shipmentNumber":
			return seen.once(1) && d.text(&md.ShipmentNumber)
		case "sealine":
			return seen.once(2) && d.optText(&md.Sealine, d.strings.of)
		case "sealineName":
			return seen.once(3) && d.optText(&md.SealineName, d.strings.of)
		case "shippingStatus":
			return seen.once(4) && d.optText(&md.ShippingStatus, d.strings.of)
		case "updatedAt":
			return seen.once(5) && d.optTime(&md.UpdatedAt, d.times.of)
		case "warnings":
			return seen.once(6) && d.rawValue((*[]byte)(&md.Warnings))
		}
		return !foldsTo(k, "shipmenttype", "shipmentnumber", "sealine", "sealinename", "shippingstatus", "updatedat", "warnings") && d.skip()
	})
	return md, ok
}

func (d *shipmentDecoder) route() (*wire.ShipmentRoute, bool) {
	if d.null() {
		return nil, true
	}
	r := d.routes.new()
	var seen fields
	_, ok := d.object(func(k string) bool {
		switch k {
		case "prepol":
			return seen.once(0) && d.routePoint(&r.Prepol)
		case "pol":
			return seen.once(1) && d.routePoint(&r.Pol)
		case "pod":
			if !seen.once(2) {
				return false
			}
			if d.null() {
				r.Pod = nil
				return true
			}
			r.Pod = d.pods.new()
			return d.routePointMembers(&r.Pod.RoutePoint, &r.Pod.PredictiveETA)
		case "postpod":
			return seen.once(3) && d.routePoint(&r.Postpod)
		}
		return !foldsTo(k, "prepol", "pol", "pod", "postpod") && d.skip()
	})
	return r, ok
}

func (d *shipmentDecoder) routePoint(dst **wire.RoutePoint) bool {
	if d.null() {
		*dst = nil
		return true
	}
	*dst = d.points.new()
	return d.routePointMembers(*dst, nil)
}

// routePointMembers decodes a route member; predictive is set for pod.
func (d *shipmentDecoder) routePointMembers(p *wire.RoutePoint, predictive **time.Time) bool {
	var seen fields
	null, ok := d.object(func(k string) bool {
		switch k {
		case "location":
			return seen.once(0) && d.location(&p.Location)
		case "date":
			return seen.once(1) && d.optTime(&p.Date, d.times.of)
		case "actual":
			return seen.once(2) && d.optFlag(&p.Actual)
		case "predictiveEta":
			if predictive != nil {
				return seen.once(3) && d.optTime(predictive, d.times.of)
			}
		}
		if predictive != nil && foldsTo(k, "predictiveeta") {
			return false
		}
		return !foldsTo(k, "location", "date", "actual") && d.skip()
	})
	return ok && !null
}

// location decodes a *wire.Location member, from the memo when its text
// was seen before.
func (d *shipmentDecoder) location(dst **wire.Location) bool {
	if d.null() {
		*dst = nil
		return true
	}
	if v, n := d.locations.find(d.buf[d.pos:]); v != nil {
		*dst = v
		d.pos += n
		return true
	}
	start := d.pos
	l := &wire.Location{}
	var seen fields
	null, ok := d.object(func(k string) bool {
		switch k {
		case "name":
			return seen.once(0) && d.text(&l.Name)
		case "state":
			return seen.once(1) && d.optText(&l.State, newString)
		case "country":
			return seen.once(2) && d.text(&l.Country)
		case "countryCode":
			return seen.once(3) && d.text(&l.CountryCode)
		case "locode":
			return seen.once(4) && d.text(&l.Locode)
		case "coordinates":
			return seen.once(5) && d.coordinates(&l.Coordinates)
		case "timezone":
			return seen.once(6) && d.text(&l.Timezone)
		}
		return !foldsTo(k, "name", "state", "country", "countrycode", "locode", "coordinates", "timezone") && d.skip()
	})
	if !ok || null {
		return false
	}
	d.locations.add(d.buf[start:d.pos], l)
	*dst = l
	return true
}

func newString(s string) *string     { return &s }
func newTime(t time.Time) *time.Time { return &t }
func (d *shipmentDecoder) coordinates(dst **wire.Coordinates) bool {
	if d.null() {
		*dst = nil
		return true
	}
	c := &wire.Coordinates{}
	var seen fields
	_, ok := d.object(func(k string) bool {
		switch k {
		case "lat":
			return seen.once(0) && d.optFloat(&c.Lat)
		case "lng":
			return seen.once(1) && d.optFloat(&c.Lng)
		case "updatedAt":
			return seen.once(2) && d.optTime(&c.UpdatedAt, newTime)
		}
		return !foldsTo(k, "lat", "lng", "updatedat") && d.skip()
	})
	*dst = c
	return ok
}

// facility decodes a *wire.Facility member, from the memo when its text
// was seen before.
func (d *shipmentDecoder) facility(dst **wire.Facility) bool {
	if d.null() {
		*dst = nil
		return true
	}
	if v, n := d.facilities.find(d.buf[d.pos:]); v != nil {
		*dst = v
		d.pos += n
		return true
	}
	start := d.pos
	f := &wire.Facility{}
	var seen fields
	null, ok := d.object(func(k string) bool {
		switch k {
		case "name":
			return seen.once(0) && d.text(&f.Name)
		case "countryCode":
			return seen.once(1) && d.text(&f.CountryCode)
		case "locode":
			return seen.once(2) && d.optText(&f.Locode, newString)
		case "bicCode":
			return seen.once(3) && d.optText(&f.BICCode, newString)
		case "smdgCode":
			return seen.once(4) && d.optText(&f.SMDGCode, newString)
		case "coordinates":
			return seen.once(5) && d.coordinates(&f.Coordinates)
		}
		return !foldsTo(k, "name", "countrycode", "locode", "biccode", "smdgcode", "coordinates") && d.skip()
	})
	if !ok || null {
		return false
	}
	d.facilities.add(d.buf[start:d.pos], f)
	*dst = f
	return true
}

// vessel decodes a *wire.Vessel member, from the memo when its text was
// seen before.
func (d *shipmentDecoder) vessel(dst **wire.Vessel) bool {
	if d.null() {
		*dst = nil
		return true
	}
	if v, n := d.vessels.find(d.buf[d.pos:]); v != nil {
		*dst = v
		d.pos += n
		return true
	}
	start := d.pos
	v := &wire.Vessel{}
	var seen fields
	null, ok := d.object(func(k string) bool {
		switch k {
		case "name":
			return seen.once(0) && d.text(&v.Name)
		case "imo":
			return seen.once(1) && d.optInt(&v.IMO)
		case "callSign":
			return seen.once(2) && d.optText(&v.CallSign, newString)
		case "mmsi":
			return seen.once(3) && d.optInt(&v.MMSI)
		case "flag":
			return seen.once(4) && d.optText(&v.Flag, newString)
		}
		return !foldsTo(k, "name", "imo", "callsign", "mmsi", "flag") && d.skip()
	})
	if !ok || null {
		return false
	}
	d.vessels.add(d.buf[start:d.pos], v)
	*dst = v
	return true
}

// emptyContainers and emptyEvents are the non-nil empty slices an empty
// array decodes to.
var (
	emptyContainers = []wire.Container{}
	emptyEvents     = []wire.Event{}
)

func (d *shipmentDecoder) containerList() ([]wire.Container, bool) {
	start := len(d.containers)
	null, ok := d.array(func() bool {
		d.containers = append(d.containers, wire.Container{})
		i := len(d.containers) - 1
		if d.null() {
			return true
		}
		var c wire.Container
		var seen fields
		null, ok := d.object(func(k string) bool {
			switch k {
			case "number":
				return seen.once(0) && d.text(&c.Number)
			case "isoCode":
				return seen.once(1) && d.text(&c.ISOCode)
			case "status":
				return seen.once(2) && d.text(&c.Status)
			case "events":
				var ok bool
				c.Events, ok = d.eventList()
				return seen.once(3) && ok
			}
			return !foldsTo(k, "number", "isocode", "status", "events") && d.skip()
		})
		d.containers[i] = c
		return ok && !null
	})
	if !ok || null {
		return nil, ok
	}
	if len(d.containers) == start {
		return emptyContainers, true
	}
	return d.containers[start:len(d.containers):len(d.containers)], true
}

func (d *shipmentDecoder) eventList() ([]wire.Event, bool) {
	start := len(d.events)
	null, ok := d.array(func() bool {
		d.events = append(d.events, wire.Event{})
		i := len(d.events) - 1
		if d.null() {
			return true
		}
		var e wire.Event
		var seen fields
		null, ok := d.object(func(k string) bool {
			switch k {
			case "location":
				return seen.once(0) && d.location(&e.Location)
			case "facility":
				return seen.once(1) && d.facility(&e.Facility)
			case "description":
				return seen.once(2) && d.text(&e.Description)
			case "eventType":
				return seen.once(3) && d.text(&e.EventType)
			case "eventCode":
				return seen.once(4) && d.text(&e.EventCode)
			case "status":
				return seen.once(5) && d.text(&e.Status)
			case "date":
				return seen.once(6) && d.optTime(&e.Date, d.times.of)
			case "isActual":
				return seen.once(7) && d.flag(&e.IsActual)
			case "isAdditionalEvent":
				return seen.once(8) && d.flag(&e.IsAdditionalEvent)
			case "routeType":
				return seen.once(9) && d.text(&e.RouteType)
			case "transportType":
				return seen.once(10) && d.optText(&e.TransportType, d.strings.of)
			case "vessel":
				return seen.once(11) && d.vessel(&e.Vessel)
			case "voyage":
				return seen.once(12) && d.optText(&e.Voyage, d.strings.of)
			}
			return !foldsTo(k, "location", "facility", "description", "eventtype", "eventcode", "status", "date",
				"isactual", "isadditionalevent", "routetype", "transporttype", "vessel", "voyage") && d.skip()
		})
		d.events[i] = e
		return ok && !null
	})
	if !ok || null {
		return nil, ok
	}
	if len(d.events) == start {
		return emptyEvents, true
	}
	return d.events[start:len(d.events):len(d.events)], true
}
