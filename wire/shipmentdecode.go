package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// DecodeShipment decodes a tracking response element by element. It
// accepts the bare object of service.md and the envelopes providers wrap it
// in, {"data": …} (the public API's, with status and message beside it) and
// {"containerDetails": …} (webhooks), nested up to three deep; a body with
// neither route nor containers, bare or in an envelope, is an error, not
// an empty shipment, as is a body that is not a JSON object.
//
// Inside, the metadata, the route, each route member, each container and
// each event is decoded on its own: one that does not decode is left out
// and listed in Bad with the path of what failed in it
// (containers[0].events[3].date), and its siblings decode. Beyond the
// contract it reads date-times without an offset or with a space for the T
// (see parseDateTime; the zone assumed is in the element's …Zone field),
// IMO and MMSI numbers sent as strings (Vessel), null or absent isActual
// (Event.ActualUnknown), and an empty string for a null date.
func DecodeShipment(body []byte) (*Shipment, error) {
	var top shipmentJSON
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, decodeError("shipment", plainJSONError(err))
	}
	m := top.unwrap(0)
	if m == nil {
		return nil, decodeError("shipment", errors.New("neither route nor containers present, bare or inside data or containerDetails"))
	}
	d := shipmentDecoding{s: &Shipment{}}
	d.metadata(m.Metadata)
	d.route(m.Route)
	d.containers(m.Containers)
	d.resolveZones()
	return d.s, nil
}

// shipmentJSON is a shipment object's members, each decoded on its own.
type shipmentJSON struct {
	Metadata         json.RawMessage `json:"metadata"`
	Route            json.RawMessage `json:"route"`
	Containers       json.RawMessage `json:"containers"`
	Data             json.RawMessage `json:"data"`
	ContainerDetails json.RawMessage `json:"containerDetails"`
}

// maxEnvelopes is how deep envelopes are opened.
const maxEnvelopes = 3

// unwrap returns the shipment object: m itself when it has route or
// containers, else the first of its envelope members (data, then
// containerDetails) that holds one; nil when none does.
func (m *shipmentJSON) unwrap(depth int) *shipmentJSON {
	if !isAbsent(m.Route) || !isAbsent(m.Containers) {
		return m
	}
	if depth == maxEnvelopes {
		return nil
	}
	for _, env := range []struct {
		name string
		raw  json.RawMessage
	}{{"data", m.Data}, {"containerDetails", m.ContainerDetails}} {
		if isAbsent(env.raw) {
			continue
		}
		var inner shipmentJSON
		if json.Unmarshal(env.raw, &inner) != nil {
			continue // not an object: not an envelope
		}
		if found := inner.unwrap(depth + 1); found != nil {
			return found
		}
	}
	return nil
}

// isAbsent reports whether a member was missing or null.
func isAbsent(m json.RawMessage) bool {
	return len(m) == 0 || string(m) == "null"
}

// shipmentDecoding is the state of one DecodeShipment.
type shipmentDecoding struct {
	s *Shipment
	// naive are the date-times without an offset, read once every place
	// of the body is known (resolveZones).
	naive []naiveDateTime
}

// naiveDateTime is a date-time without an offset and where it goes.
type naiveDateTime struct {
	d     *dateTime
	place *Location // its place, nil for none
	set   func(t time.Time, zone string)
}

// bad records an element left out: err happened at path inside it.
func (d *shipmentDecoding) bad(path, what string, err error) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			path += "." + te.Field
		}
		c := *te
		c.Field = ""
		err = plainJSONError(&c)
	}
	d.s.Bad = append(d.s.Bad, ItemError{Path: path, Err: fmt.Errorf("%w; %s is left out", err, what)})
}

// dateTime decodes the date-time member name of the element at path and
// hands its value to set, at once or, when naive, once the zone of place
// is known.
func (d *shipmentDecoding) dateTime(raw json.RawMessage, place *Location, set func(time.Time, string)) error {
	dt, err := parseDateTime(raw)
	switch {
	case err != nil:
		return err
	case dt == nil:
	case dt.naive:
		d.naive = append(d.naive, naiveDateTime{d: dt, place: place, set: set})
	default:
		set(dt.t, "")
	}
	return nil
}

// memberError names the member of an error.
func memberError(member string, err error) error { return &memberErr{member, err} }

type memberErr struct {
	member string
	err    error
}

func (e *memberErr) Error() string { return e.err.Error() }
func (e *memberErr) Unwrap() error { return e.err }

// badAt records an element left out, its error naming the member that
// failed when it is a memberErr.
func (d *shipmentDecoding) badAt(path, what string, err error) {
	var me *memberErr
	if errors.As(err, &me) {
		path += "." + me.member
		err = me.err
	}
	d.bad(path, what, err)
}

type metadataJSON struct {
	ShipmentType   string          `json:"shipmentType"`
	ShipmentNumber string          `json:"shipmentNumber"`
	Sealine        *string         `json:"sealine"`
	SealineName    *string         `json:"sealineName"`
	ShippingStatus *string         `json:"shippingStatus"`
	UpdatedAt      json.RawMessage `json:"updatedAt"`
	Warnings       json.RawMessage `json:"warnings,omitempty"`
}

func (d *shipmentDecoding) metadata(raw json.RawMessage) {
	if isAbsent(raw) {
		return
	}
	var v metadataJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		d.bad("metadata", "the metadata", err)
		return
	}
	md := &ShipmentMetadata{ShipmentType: v.ShipmentType, ShipmentNumber: v.ShipmentNumber, Sealine: v.Sealine,
		SealineName: v.SealineName, ShippingStatus: v.ShippingStatus, Warnings: v.Warnings}
	d.s.Metadata = md
	// updatedAt is left out alone: the metadata names the shipment.
	if err := d.dateTime(v.UpdatedAt, nil, func(t time.Time, zone string) { md.UpdatedAt, md.UpdatedAtZone = &t, zone }); err != nil {
		d.bad("metadata.updatedAt", "updatedAt", err)
	}
}

type routeJSON struct {
	Prepol  json.RawMessage `json:"prepol"`
	Pol     json.RawMessage `json:"pol"`
	Pod     json.RawMessage `json:"pod"`
	Postpod json.RawMessage `json:"postpod"`
}

type routePointJSON struct {
	Location      *Location       `json:"location"`
	Date          json.RawMessage `json:"date"`
	Actual        *bool           `json:"actual"`
	PredictiveETA json.RawMessage `json:"predictiveEta"`
}

func (d *shipmentDecoding) route(raw json.RawMessage) {
	if isAbsent(raw) {
		return
	}
	var v routeJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		d.bad("route", "the route", err)
		return
	}
	r := &ShipmentRoute{}
	d.s.Route = r
	r.Prepol = d.routePoint(v.Prepol, "prepol")
	r.Pol = d.routePoint(v.Pol, "pol")
	r.Postpod = d.routePoint(v.Postpod, "postpod")
	if isAbsent(v.Pod) {
		return
	}
	path := "route.pod"
	var p routePointJSON
	err := json.Unmarshal(v.Pod, &p)
	pod := &PortOfDischarge{}
	if err == nil {
		err = d.routePointMembers(&p, &pod.RoutePoint)
	}
	if err == nil {
		err = d.dateTime(p.PredictiveETA, p.Location, func(t time.Time, zone string) { pod.PredictiveETA, pod.PredictiveETAZone = &t, zone })
		if err != nil {
			err = memberError("predictiveEta", err)
		}
	}
	if err != nil {
		d.badAt(path, path, err)
		return
	}
	r.Pod = pod
}

// routePoint decodes route.<member>, nil when null or when it does not
// decode.
func (d *shipmentDecoding) routePoint(raw json.RawMessage, member string) *RoutePoint {
	if isAbsent(raw) {
		return nil
	}
	path := "route." + member
	var v routePointJSON
	err := json.Unmarshal(raw, &v)
	p := &RoutePoint{}
	if err == nil {
		err = d.routePointMembers(&v, p)
	}
	if err != nil {
		d.badAt(path, path, err)
		return nil
	}
	return p
}

func (d *shipmentDecoding) routePointMembers(v *routePointJSON, p *RoutePoint) error {
	p.Location, p.Actual = v.Location, v.Actual
	if err := d.dateTime(v.Date, v.Location, func(t time.Time, zone string) { p.Date, p.DateZone = &t, zone }); err != nil {
		return memberError("date", err)
	}
	return nil
}

type containerJSON struct {
	Number  string          `json:"number"`
	ISOCode string          `json:"isoCode"`
	Status  string          `json:"status"`
	Events  json.RawMessage `json:"events"`
}

func (d *shipmentDecoding) containers(raw json.RawMessage) {
	if isAbsent(raw) {
		return
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		d.bad("containers", "every container", err)
		return
	}
	d.s.Containers = make([]Container, 0, len(list))
	for i, el := range list {
		path := indexPath("", "containers", i)
		var v containerJSON
		if err := json.Unmarshal(el, &v); err != nil {
			d.bad(path, "the container", err)
			continue
		}
		d.s.Containers = append(d.s.Containers, Container{Number: v.Number, ISOCode: v.ISOCode, Status: v.Status, Index: i})
		ci := len(d.s.Containers) - 1
		d.events(ci, v.Events, path)
	}
}

type eventJSON struct {
	Location          *Location       `json:"location"`
	Facility          *Facility       `json:"facility"`
	Description       string          `json:"description"`
	EventType         string          `json:"eventType"`
	EventCode         string          `json:"eventCode"`
	Status            string          `json:"status"`
	Date              json.RawMessage `json:"date"`
	IsActual          *bool           `json:"isActual"`
	IsAdditionalEvent bool            `json:"isAdditionalEvent"`
	RouteType         string          `json:"routeType"`
	TransportType     *string         `json:"transportType"`
	Vessel            *Vessel         `json:"vessel"`
	Voyage            *string         `json:"voyage"`
}

// events decodes the events of container ci, found at path.
func (d *shipmentDecoding) events(ci int, raw json.RawMessage, path string) {
	if isAbsent(raw) {
		return
	}
	path += ".events"
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		d.bad(path, "every event of the container", err)
		return
	}
	// Never grown past its capacity: a naive date's setter keeps a pointer
	// to its event.
	events := make([]Event, 0, len(list))
	for j, el := range list {
		if isAbsent(el) {
			events = append(events, Event{Index: j}) // as encoding/json decodes a null element
			continue
		}
		epath := path + "[" + strconv.Itoa(j) + "]"
		var v eventJSON
		if err := json.Unmarshal(el, &v); err != nil {
			d.bad(epath, "the event", err)
			continue
		}
		events = append(events, Event{Location: v.Location, Facility: v.Facility, Description: v.Description,
			EventType: v.EventType, EventCode: v.EventCode, Status: v.Status, IsActual: v.IsActual != nil && *v.IsActual,
			ActualUnknown: v.IsActual == nil, IsAdditionalEvent: v.IsAdditionalEvent, RouteType: v.RouteType,
			TransportType: v.TransportType, Vessel: v.Vessel, Voyage: v.Voyage, Index: j})
		e := &events[len(events)-1]
		if err := d.dateTime(v.Date, v.Location, func(t time.Time, zone string) { e.Date, e.DateZone = &t, zone }); err != nil {
			events = events[:len(events)-1]
			d.bad(epath+".date", "the event", err)
		}
	}
	d.s.Containers[ci].Events = events
}

// resolveZones reads the naive date-times, each in the zone of its place:
// the place's own timezone, else that of another place of the body with
// the same UN/LOCODE.
func (d *shipmentDecoding) resolveZones() {
	if len(d.naive) == 0 {
		return
	}
	byLocode := map[string]string{}
	note := func(l *Location) {
		if l != nil && l.Locode != "" && strings.TrimSpace(l.Timezone) != "" {
			if _, ok := byLocode[strings.ToUpper(l.Locode)]; !ok {
				byLocode[strings.ToUpper(l.Locode)] = l.Timezone
			}
		}
	}
	if r := d.s.Route; r != nil {
		for _, p := range []*RoutePoint{r.Prepol, r.Pol, r.Postpod} {
			if p != nil {
				note(p.Location)
			}
		}
		if r.Pod != nil {
			note(r.Pod.Location)
		}
	}
	for _, c := range d.s.Containers {
		for _, e := range c.Events {
			note(e.Location)
		}
	}
	for _, n := range d.naive {
		tz := ""
		if l := n.place; l != nil {
			tz = l.Timezone
			if strings.TrimSpace(tz) == "" {
				tz = byLocode[strings.ToUpper(l.Locode)]
			}
		}
		n.set(n.d.in(tz))
	}
}

// UnmarshalJSON decodes a vessel whose imo and mmsi are JSON numbers or
// strings of digits ("9321483", "IMO 9321483"); a string that is not one
// (an empty one, "TBN") or a number that is not whole names no number
// (nil). Any other kind of value is an error.
func (v *Vessel) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var raw struct {
		Name     string          `json:"name"`
		IMO      json.RawMessage `json:"imo"`
		CallSign *string         `json:"callSign"`
		MMSI     json.RawMessage `json:"mmsi"`
		Flag     *string         `json:"flag"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	imo, err := idNumber(raw.IMO, "imo", "IMO")
	if err != nil {
		return err
	}
	mmsi, err := idNumber(raw.MMSI, "mmsi", "MMSI")
	if err != nil {
		return err
	}
	*v = Vessel{Name: raw.Name, IMO: imo, CallSign: raw.CallSign, MMSI: mmsi, Flag: raw.Flag}
	return nil
}

// intType is the Go type an identifying number is wanted as.
var intType = reflect.TypeFor[int]()

// idNumber decodes an identifying number member (see Vessel.UnmarshalJSON);
// prefix may start a string before the digits.
func idNumber(raw json.RawMessage, member, prefix string) (*int, error) {
	if isAbsent(raw) {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		s = strings.TrimSpace(s)
		if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
			s = strings.TrimLeft(s[len(prefix):], " :")
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, nil
		}
		v := int(n)
		return &v, nil
	case '{', '[', 't', 'f':
		return nil, &json.UnmarshalTypeError{Value: jsonKind(raw), Type: intType, Field: member}
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	if i, err := n.Int64(); err == nil {
		v := int(i)
		return &v, nil
	}
	if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		v := int(f)
		return &v, nil
	}
	return nil, nil
}

// UnmarshalJSON decodes coordinates whose updatedAt may be any date-time
// DecodeShipment reads, a naive one read as UTC; one it cannot read is
// dropped (nil): no table keeps it, and it is no reason to lose its place.
func (c *Coordinates) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var raw struct {
		Lat       *float64        `json:"lat"`
		Lng       *float64        `json:"lng"`
		UpdatedAt json.RawMessage `json:"updatedAt"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*c = Coordinates{Lat: raw.Lat, Lng: raw.Lng}
	if dt, err := parseDateTime(raw.UpdatedAt); err == nil && dt != nil {
		t, _ := dt.in(UTCZone)
		c.UpdatedAt = &t
	}
	return nil
}
