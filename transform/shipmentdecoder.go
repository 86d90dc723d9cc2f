package transform

import (
	"strconv"
	"time"

	"github.com/etalake/etalake/wire"
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
	metadata   *wire.ShipmentMetadata
	route      *wire.ShipmentRoute
	containers []wire.Container
	data       *shipmentMembers
}

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
	_, ok := object(&d.scanner, shipmentFields, func(member shipmentMember) bool {
		var ok bool
		switch member {
		case shipmentMemberMetadata:
			m.metadata, ok = d.shipmentMetadata()
		case shipmentMemberRoute:
			m.route, ok = d.route()
		case shipmentMemberContainers:
			m.containers, ok = d.containerList()
		case shipmentMemberData:
			if !top {
				return d.skip()
			}
			if d.null() {
				return true
			}
			if d.next() != '{' {
				return false
			}
			m.data = &shipmentMembers{}
			ok = d.members(m.data, false)
		}
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

func (d *shipmentDecoder) shipmentMetadata() (*wire.ShipmentMetadata, bool) {
	if d.null() {
		return nil, true
	}
	md := d.metadata.new()
	_, ok := object(&d.scanner, metadataFields, func(m metadataMember) bool {
		switch m {
		case metadataMemberShipmentType:
			return d.text(&md.ShipmentType)
		case metadataMemberShipmentNumber:
			return d.text(&md.ShipmentNumber)
		case metadataMemberSealine:
			return d.optText(&md.Sealine, d.strings.of)
		case metadataMemberSealineName:
			return d.optText(&md.SealineName, d.strings.of)
		case metadataMemberShippingStatus:
			return d.optText(&md.ShippingStatus, d.strings.of)
		case metadataMemberUpdatedAt:
			return d.optTime(&md.UpdatedAt, d.times.of)
		case metadataMemberWarnings:
			return d.rawValue((*[]byte)(&md.Warnings))
		}
		return false // a member without a decoder: give up
	})
	return md, ok
}

func (d *shipmentDecoder) route() (*wire.ShipmentRoute, bool) {
	if d.null() {
		return nil, true
	}
	r := d.routes.new()
	_, ok := object(&d.scanner, routeFields, func(m routeMember) bool {
		switch m {
		case routeMemberPrepol:
			return d.routePoint(&r.Prepol)
		case routeMemberPol:
			return d.routePoint(&r.Pol)
		case routeMemberPod:
			if d.null() {
				r.Pod = nil
				return true
			}
			r.Pod = d.pods.new()
			return d.routePointMembers(&r.Pod.RoutePoint, &r.Pod.PredictiveETA)
		case routeMemberPostpod:
			return d.routePoint(&r.Postpod)
		}
		return false // a member without a decoder: give up
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
	fs := routePointFields
	if predictive != nil {
		fs = podFields
	}
	null, ok := object(&d.scanner, fs, func(m pointMember) bool {
		switch m {
		case pointMemberLocation:
			return d.location(&p.Location)
		case pointMemberDate:
			return d.optTime(&p.Date, d.times.of)
		case pointMemberActual:
			return d.optFlag(&p.Actual)
		case pointMemberPredictiveETA:
			return predictive != nil && d.optTime(predictive, d.times.of)
		}
		return false // a member without a decoder: give up
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
	null, ok := object(&d.scanner, locationFields, func(m locationMember) bool {
		switch m {
		case locationMemberName:
			return d.text(&l.Name)
		case locationMemberState:
			return d.optText(&l.State, newString)
		case locationMemberCountry:
			return d.text(&l.Country)
		case locationMemberCountryCode:
			return d.text(&l.CountryCode)
		case locationMemberLocode:
			return d.text(&l.Locode)
		case locationMemberCoordinates:
			return d.coordinates(&l.Coordinates)
		case locationMemberTimezone:
			return d.text(&l.Timezone)
		}
		return false // a member without a decoder: give up
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
	_, ok := object(&d.scanner, coordinatesFields, func(m coordinatesMember) bool {
		switch m {
		case coordinatesMemberLat:
			return d.optFloat(&c.Lat)
		case coordinatesMemberLng:
			return d.optFloat(&c.Lng)
		case coordinatesMemberUpdatedAt:
			return d.optTime(&c.UpdatedAt, newTime)
		}
		return false // a member without a decoder: give up
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
	null, ok := object(&d.scanner, facilityFields, func(m facilityMember) bool {
		switch m {
		case facilityMemberName:
			return d.text(&f.Name)
		case facilityMemberCountryCode:
			return d.text(&f.CountryCode)
		case facilityMemberLocode:
			return d.optText(&f.Locode, newString)
		case facilityMemberBICCode:
			return d.optText(&f.BICCode, newString)
		case facilityMemberSMDGCode:
			return d.optText(&f.SMDGCode, newString)
		case facilityMemberCoordinates:
			return d.coordinates(&f.Coordinates)
		}
		return false // a member without a decoder: give up
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
	null, ok := object(&d.scanner, vesselFields, func(m vesselMember) bool {
		switch m {
		case vesselMemberName:
			return d.text(&v.Name)
		case vesselMemberIMO:
			return d.optInt(&v.IMO)
		case vesselMemberCallSign:
			return d.optText(&v.CallSign, newString)
		case vesselMemberMMSI:
			return d.optInt(&v.MMSI)
		case vesselMemberFlag:
			return d.optText(&v.Flag, newString)
		}
		return false // a member without a decoder: give up
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
		i := len(d.containers)
		d.containers = append(d.containers, wire.Container{Index: i - start})
		if d.null() {
			return true
		}
		c := wire.Container{Index: i - start}
		null, ok := object(&d.scanner, containerFields, func(m containerMember) bool {
			switch m {
			case containerMemberNumber:
				return d.text(&c.Number)
			case containerMemberISOCode:
				return d.text(&c.ISOCode)
			case containerMemberStatus:
				return d.text(&c.Status)
			case containerMemberEvents:
				var ok bool
				c.Events, ok = d.eventList()
				return ok
			}
			return false // a member without a decoder: give up
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
		i := len(d.events)
		d.events = append(d.events, wire.Event{Index: i - start})
		if d.null() {
			return true
		}
		e := wire.Event{Index: i - start, ActualUnknown: true} // until isActual says
		null, ok := object(&d.scanner, eventFields, func(m eventMember) bool {
			switch m {
			case eventMemberLocation:
				return d.location(&e.Location)
			case eventMemberFacility:
				return d.facility(&e.Facility)
			case eventMemberDescription:
				return d.text(&e.Description)
			case eventMemberType:
				return d.text(&e.EventType)
			case eventMemberCode:
				return d.text(&e.EventCode)
			case eventMemberStatus:
				return d.text(&e.Status)
			case eventMemberDate:
				return d.optTime(&e.Date, d.times.of)
			case eventMemberIsActual:
				e.ActualUnknown = d.next() == 'n'
				return d.flag(&e.IsActual)
			case eventMemberIsAdditionalEvent:
				return d.flag(&e.IsAdditionalEvent)
			case eventMemberRouteType:
				return d.text(&e.RouteType)
			case eventMemberTransportType:
				return d.optText(&e.TransportType, d.strings.of)
			case eventMemberVessel:
				return d.vessel(&e.Vessel)
			case eventMemberVoyage:
				return d.optText(&e.Voyage, d.strings.of)
			}
			return false // a member without a decoder: give up
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
