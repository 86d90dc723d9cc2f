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
// (containers[0].events[3].date), and its siblings decode. (The
// containers are decoded in one pass first, as most bodies have nothing to
// leave out, and one by one only when that pass fails.) Beyond the
// contract it reads date-times without an offset or with a space for the T
// (see parseDateTime; the zone assumed is in the element's …Zone field),
// IMO and MMSI numbers sent as strings (idNumber), null or absent isActual
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
	naive naiveDates
}

// bad records an element left out: err happened at path inside it.
func (d *shipmentDecoding) bad(path, what string, err error) {
	d.s.Bad = append(d.s.Bad, leftOut(path, what, err))
}

// leftOut is the ItemError of an element left out, what naming it: err
// happened at path inside it, or in the member it names (memberErr, or
// the field of a JSON type error), which is added to the path.
func leftOut(path, what string, err error) ItemError {
	var me *memberErr
	if errors.As(err, &me) {
		path += "." + me.member
		err = me.err
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			path += "." + te.Field
		}
		c := *te
		c.Field = ""
		err = plainJSONError(&c)
	}
	return ItemError{Path: path, Err: fmt.Errorf("%w; %s is left out", err, what)}
}

// dateTime decodes a date-time member and hands its value to set: at once,
// or, when it is naive, once the zone of place is known (resolveZones).
func (d *shipmentDecoding) dateTime(raw json.RawMessage, place *Location, set func(time.Time, string)) error {
	return d.naive.read(raw, place, set)
}

// memberError names the member of an error.
func memberError(member string, err error) error { return &memberErr{member, err} }

type memberErr struct {
	member string
	err    error
}

func (e *memberErr) Error() string { return e.err.Error() }
func (e *memberErr) Unwrap() error { return e.err }

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
	Location      *locationJSON   `json:"location"`
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
		err = d.dateTime(p.PredictiveETA, pod.Location, func(t time.Time, zone string) { pod.PredictiveETA, pod.PredictiveETAZone = &t, zone })
		if err != nil {
			err = memberError("predictiveEta", err)
		}
	}
	if err != nil {
		d.bad(path, path, err)
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
		d.bad(path, path, err)
		return nil
	}
	return p
}

func (d *shipmentDecoding) routePointMembers(v *routePointJSON, p *RoutePoint) error {
	p.Location, p.Actual = v.Location.location(), v.Actual
	if err := d.dateTime(v.Date, p.Location, func(t time.Time, zone string) { p.Date, p.DateZone = &t, zone }); err != nil {
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

// containerEventsJSON is a container decoded with its events, as most are:
// in one pass.
type containerEventsJSON struct {
	Number  string       `json:"number"`
	ISOCode string       `json:"isoCode"`
	Status  string       `json:"status"`
	Events  []*eventJSON `json:"events"`
}

// containers decodes the containers: all in one pass when none has a
// member of the wrong kind (the common body), else one by one, and each
// container's events one by one when it has such an event, so that only
// what fails is left out.
func (d *shipmentDecoding) containers(raw json.RawMessage) {
	if isAbsent(raw) {
		return
	}
	var all []*containerEventsJSON
	if json.Unmarshal(raw, &all) == nil {
		d.s.Containers = make([]Container, 0, len(all))
		for i, c := range all {
			if c == nil {
				c = &containerEventsJSON{}
			}
			d.container(i, c.Number, c.ISOCode, c.Status)
			if c.Events != nil {
				d.eventList(len(d.s.Containers)-1, c.Events, indexPath("", "containers", i)+".events")
			}
		}
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
		var c containerEventsJSON
		if json.Unmarshal(el, &c) == nil {
			d.container(i, c.Number, c.ISOCode, c.Status)
			if c.Events != nil {
				d.eventList(len(d.s.Containers)-1, c.Events, path+".events")
			}
			continue
		}
		var v containerJSON
		if err := json.Unmarshal(el, &v); err != nil {
			d.bad(path, "the container", err)
			continue
		}
		d.container(i, v.Number, v.ISOCode, v.Status)
		d.events(len(d.s.Containers)-1, v.Events, path+".events")
	}
}

// container appends the container of index i.
func (d *shipmentDecoding) container(i int, number, isoCode, status string) {
	d.s.Containers = append(d.s.Containers, Container{Number: number, ISOCode: isoCode, Status: status, Index: i})
}

type eventJSON struct {
	Location          *locationJSON   `json:"location"`
	Facility          *facilityJSON   `json:"facility"`
	Description       string          `json:"description"`
	EventType         string          `json:"eventType"`
	EventCode         string          `json:"eventCode"`
	Status            string          `json:"status"`
	Date              json.RawMessage `json:"date"`
	IsActual          *bool           `json:"isActual"`
	IsAdditionalEvent bool            `json:"isAdditionalEvent"`
	RouteType         string          `json:"routeType"`
	TransportType     *string         `json:"transportType"`
	Vessel            *vesselJSON     `json:"vessel"`
	Voyage            *string         `json:"voyage"`
}

// events decodes the events of container ci, found at path, one by one.
func (d *shipmentDecoding) events(ci int, raw json.RawMessage, path string) {
	if isAbsent(raw) {
		return
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		d.bad(path, "every event of the container", err)
		return
	}
	decoded := make([]*eventJSON, len(list))
	errs := make([]error, len(list))
	for j, el := range list {
		errs[j] = json.Unmarshal(el, &decoded[j])
	}
	d.eventListOf(ci, decoded, errs, path)
}

// eventList converts the decoded events of container ci, found at path.
func (d *shipmentDecoding) eventList(ci int, list []*eventJSON, path string) {
	d.eventListOf(ci, list, nil, path)
}

// eventListOf converts the events of container ci, leaving out, under its
// path, one that did not decode (its error in errs, nil when all did) or
// whose date does not read. A null event (nil) is the zero Event, as
// encoding/json decodes it.
func (d *shipmentDecoding) eventListOf(ci int, list []*eventJSON, errs []error, path string) {
	// Never grown past its capacity: a naive date's setter keeps a pointer
	// to its event.
	events := make([]Event, 0, len(list))
	for j, v := range list {
		if errs != nil && errs[j] != nil {
			d.bad(path+"["+strconv.Itoa(j)+"]", "the event", errs[j])
			continue
		}
		if v == nil {
			events = append(events, Event{Index: j})
			continue
		}
		events = append(events, Event{Location: v.Location.location(), Facility: v.Facility.facility(), Description: v.Description,
			EventType: v.EventType, EventCode: v.EventCode, Status: v.Status, IsActual: v.IsActual != nil && *v.IsActual,
			ActualUnknown: v.IsActual == nil, IsAdditionalEvent: v.IsAdditionalEvent, RouteType: v.RouteType,
			TransportType: v.TransportType, Vessel: v.Vessel.vessel(), Voyage: v.Voyage, Index: j})
		e := &events[len(events)-1]
		if err := d.dateTime(v.Date, e.Location, func(t time.Time, zone string) { e.Date, e.DateZone = &t, zone }); err != nil {
			events = events[:len(events)-1]
			d.bad(path+"["+strconv.Itoa(j)+"].date", "the event", err)
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
	zones := placeZones{}
	if r := d.s.Route; r != nil {
		for _, p := range []*RoutePoint{r.Prepol, r.Pol, r.Postpod} {
			if p != nil {
				zones.note(p.Location)
			}
		}
		if r.Pod != nil {
			zones.note(r.Pod.Location)
		}
	}
	for _, c := range d.s.Containers {
		for _, e := range c.Events {
			zones.note(e.Location)
		}
	}
	d.naive.resolve(zones.of)
}

// locationJSON, facilityJSON, coordinatesJSON and vesselJSON decode the
// objects of wire's types of the same names as DecodeShipment reads them:
// coordinates' updatedAt as any date-time parseDateTime reads (a naive
// one as UTC; one it cannot read is dropped: no table keeps it, and it is
// no reason to lose its place), imo and mmsi as idNumber.

type locationJSON struct {
	Name        string           `json:"name"`
	State       *string          `json:"state"`
	Country     string           `json:"country"`
	CountryCode string           `json:"countryCode"`
	Locode      string           `json:"locode"`
	Coordinates *coordinatesJSON `json:"coordinates"`
	Timezone    string           `json:"timezone"`
}

func (l *locationJSON) location() *Location {
	if l == nil {
		return nil
	}
	return &Location{Name: l.Name, State: l.State, Country: l.Country, CountryCode: l.CountryCode, Locode: l.Locode,
		Coordinates: l.Coordinates.coordinates(), Timezone: l.Timezone}
}

type coordinatesJSON struct {
	Lat       *float64        `json:"lat"`
	Lng       *float64        `json:"lng"`
	UpdatedAt json.RawMessage `json:"updatedAt"`
}

func (c *coordinatesJSON) coordinates() *Coordinates {
	if c == nil {
		return nil
	}
	out := &Coordinates{Lat: c.Lat, Lng: c.Lng}
	if dt, err := parseDateTime(c.UpdatedAt); err == nil && dt != nil {
		t, _ := dt.in(UTCZone)
		out.UpdatedAt = &t
	}
	return out
}

type facilityJSON struct {
	Name        string           `json:"name"`
	CountryCode string           `json:"countryCode"`
	Locode      *string          `json:"locode"`
	BICCode     *string          `json:"bicCode"`
	SMDGCode    *string          `json:"smdgCode"`
	Coordinates *coordinatesJSON `json:"coordinates"`
}

func (f *facilityJSON) facility() *Facility {
	if f == nil {
		return nil
	}
	return &Facility{Name: f.Name, CountryCode: f.CountryCode, Locode: f.Locode, BICCode: f.BICCode, SMDGCode: f.SMDGCode,
		Coordinates: f.Coordinates.coordinates()}
}

type vesselJSON struct {
	Name     string   `json:"name"`
	IMO      idNumber `json:"imo"`
	CallSign *string  `json:"callSign"`
	MMSI     idNumber `json:"mmsi"`
	Flag     *string  `json:"flag"`
}

func (v *vesselJSON) vessel() *Vessel {
	if v == nil {
		return nil
	}
	return &Vessel{Name: v.Name, IMO: v.IMO.n, CallSign: v.CallSign, MMSI: v.MMSI.n, Flag: v.Flag}
}

// idNumber is an identifying number (IMO, MMSI) sent as a JSON number or a
// string of digits ("9321483", "IMO 9321483"); a string that is not one
// (an empty one, "TBN") or a number that is not whole names no number
// (nil). Any other kind of value is an error.
type idNumber struct{ n *int }

// intType is the Go type an identifying number is wanted as.
var intType = reflect.TypeFor[int]()

func (id *idNumber) UnmarshalJSON(raw []byte) error {
	id.n = nil
	switch raw[0] {
	case 'n':
		return nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		s = strings.TrimSpace(s)
		if len(s) >= 3 && strings.EqualFold(s[:3], "IMO") {
			s = strings.TrimLeft(s[3:], " :")
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			v := int(n)
			id.n = &v
		}
		return nil
	case '{', '[', 't', 'f':
		return &json.UnmarshalTypeError{Value: jsonKind(raw), Type: intType}
	}
	n := json.Number(raw)
	if i, err := n.Int64(); err == nil {
		v := int(i)
		id.n = &v
	} else if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		v := int(f)
		id.n = &v
	}
	return nil
}
