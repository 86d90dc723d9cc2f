package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"
)

// ItemError is one element of an answer that did not decode, while its
// siblings did: Path names what failed in it as a JSON path without the
// leading $ ("vesselSchedules[3].vessel",
// "[2].legs[0].departure.dateTime"), and Err says why and which element
// was left out.
type ItemError struct {
	Path string
	Err  error
}

func (e ItemError) Error() string { return e.Path + ": " + e.Err.Error() }

// plainJSONError says what encoding/json found wrong in the body's terms
// (member, JSON kind, the value that is not a date-time) rather than in
// Go's (struct fields and types).
func plainJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "a value of another kind"
		switch te.Type.Kind() {
		case reflect.Slice, reflect.Array:
			want = "an array"
		case reflect.Struct, reflect.Map, reflect.Pointer:
			want = "an object"
		case reflect.String:
			want = "a string"
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
			want = "a number"
		case reflect.Bool:
			want = "true or false"
		}
		if te.Field == "" {
			return fmt.Errorf("a JSON %s where %s is wanted", te.Value, want)
		}
		return fmt.Errorf("%s: a JSON %s where %s is wanted", te.Field, te.Value, want)
	}
	var pe *time.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%q is not an RFC 3339 date-time with an offset (as 2025-01-14T09:21:00+01:00)", pe.Value)
	}
	return err
}

// Schedules is a decoded schedule answer of either profile: its items in
// the service profile's shapes, and the elements that did not decode. A
// service-profile body is one item; a DCSA answer (a JSON array, or one of
// its items bare) has one per item (one per item and vessel for vessel
// schedules).
type Schedules[T any] struct {
	Items []T
	Bad   []ItemError
	// DCSA is set when the body was a DCSA Commercial Schedules answer.
	DCSA bool
}

// IsArray reports whether a body is a JSON array (after white space): the
// DCSA profile's answers are, the service profile's are objects.
func IsArray(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// The three schedule decoders read both profiles element by element, as
// DecodeShipment reads a tracking answer: each vessel schedule, route,
// leg, leg end, transport call and timestamp is decoded on its own, and
// one that does not decode is left out and listed in Bad with the path of
// what failed in it ([0].vesselSchedules[1].timestamps[2].eventDateTime)
// while its siblings decode. Beyond either contract they read date-times
// without an offset (parseDateTime; the zone assumed is in the element's
// …Zone field, see scheduleDecoding.resolve), IMO and MMSI numbers as
// numbers or strings, with or without an IMO prefix (idNumber), and a
// DCSA item sent bare where the standard wants an array of them. Codes
// are kept as sent: the transform upper-cases them.

// DecodePortSchedules decodes a by-port schedule of either profile. The
// service profile's object must have vesselSchedules (an empty list is
// fine; a missing location means the port asked for); a DCSA answer is an
// array of PortSchedule, or one PortSchedule (location with
// UNLocationCode, and vesselSchedules).
func DecodePortSchedules(body []byte) (Schedules[PortSchedule], error) {
	d := &scheduleDecoding{}
	out := Schedules[PortSchedule]{}
	shape, err := shapeOf(body, isDCSAPortSchedule)
	switch {
	case err != nil:
		return out, decodeError("port schedule", err)
	case shape != serviceShape:
		out.DCSA = true
		err = d.dcsaItems(body, shape, "port schedules", "the port schedule", func(raw json.RawMessage, path string) error {
			ps, err := d.dcsaPortSchedule(raw, path)
			if err == nil {
				out.Items = append(out.Items, ps)
			}
			return err
		})
		if err != nil {
			return Schedules[PortSchedule]{}, err
		}
	default:
		var v struct {
			Location        *locationJSON     `json:"location"`
			VesselSchedules []json.RawMessage `json:"vesselSchedules"`
		}
		if err := decodeRequired(body, &v, "port schedule", "vesselSchedules"); err != nil {
			return out, err
		}
		ps := PortSchedule{Location: v.Location.location()}
		d.place(ps.Location)
		ps.VesselSchedules = make([]PortVesselSchedule, 0, len(v.VesselSchedules))
		for i, raw := range v.VesselSchedules {
			if vs, ok := d.portVesselSchedule(raw, indexPath("", "vesselSchedules", i), ps.Location); ok {
				ps.VesselSchedules = append(ps.VesselSchedules, vs)
			}
		}
		out.Items = []PortSchedule{ps}
	}
	d.resolve()
	out.Bad = d.bad
	return out, nil
}

// DecodePointToPoints decodes a port-to-port schedule of either profile:
// the service profile's object with routes, or a DCSA array of routings
// (one PointToPoint of one route each), or one routing bare
// (placeOfReceipt or placeOfDelivery, and legs).
func DecodePointToPoints(body []byte) (Schedules[PointToPoint], error) {
	d := &scheduleDecoding{}
	out := Schedules[PointToPoint]{}
	shape, err := shapeOf(body, isDCSAPointToPoint)
	switch {
	case err != nil:
		return out, decodeError("point-to-point schedule", err)
	case shape != serviceShape:
		out.DCSA = true
		err = d.dcsaItems(body, shape, "point-to-point routes", "the routing", func(raw json.RawMessage, path string) error {
			p, err := d.dcsaPointToPoint(raw, path)
			if err == nil {
				out.Items = append(out.Items, p)
			}
			return err
		})
		if err != nil {
			return Schedules[PointToPoint]{}, err
		}
	default:
		var v struct {
			PlaceOfReceipt  *locationJSON     `json:"placeOfReceipt"`
			PlaceOfDelivery *locationJSON     `json:"placeOfDelivery"`
			Routes          []json.RawMessage `json:"routes"`
		}
		if err := decodeRequired(body, &v, "point-to-point schedule", "routes"); err != nil {
			return out, err
		}
		p := PointToPoint{PlaceOfReceipt: v.PlaceOfReceipt.location(), PlaceOfDelivery: v.PlaceOfDelivery.location()}
		d.place(p.PlaceOfReceipt)
		d.place(p.PlaceOfDelivery)
		p.Routes = make([]P2PRoute, 0, len(v.Routes))
		for i, raw := range v.Routes {
			if r, ok := d.route(raw, indexPath("", "routes", i)); ok {
				p.Routes = append(p.Routes, r)
			}
		}
		out.Items = []PointToPoint{p}
	}
	d.resolve()
	out.Bad = d.bad
	return out, nil
}

// DecodeVesselSchedules decodes a by-vessel schedule of either profile:
// the service profile's object with transportCalls, or a DCSA array of
// service schedules, or one service schedule bare (vesselSchedules, with
// neither a port schedule's location nor the service profile's
// transportCalls).
func DecodeVesselSchedules(body []byte) (Schedules[VesselSchedule], error) {
	d := &scheduleDecoding{}
	out := Schedules[VesselSchedule]{}
	shape, err := shapeOf(body, isDCSAServiceSchedule)
	switch {
	case err != nil:
		return out, decodeError("vessel schedule", err)
	case shape != serviceShape:
		out.DCSA = true
		err = d.dcsaItems(body, shape, "vessel schedules", "the service schedule", func(raw json.RawMessage, path string) error {
			vs, err := d.dcsaVesselSchedules(raw, path)
			out.Items = append(out.Items, vs...)
			return err
		})
		if err != nil {
			return Schedules[VesselSchedule]{}, err
		}
	default:
		var v struct {
			Vessel             *vesselJSON       `json:"vessel"`
			CarrierCode        string            `json:"carrierCode"`
			CarrierServiceCode *string           `json:"carrierServiceCode"`
			CarrierServiceName *string           `json:"carrierServiceName"`
			TransportCalls     []json.RawMessage `json:"transportCalls"`
		}
		if err := decodeRequired(body, &v, "vessel schedule", "transportCalls"); err != nil {
			return out, err
		}
		vs := VesselSchedule{Vessel: v.Vessel.vessel(), CarrierCode: v.CarrierCode, CarrierServiceCode: v.CarrierServiceCode, CarrierServiceName: v.CarrierServiceName}
		vs.TransportCalls = make([]TransportCall, 0, len(v.TransportCalls))
		for i, raw := range v.TransportCalls {
			if tc, ok := d.transportCall(raw, indexPath("", "transportCalls", i)); ok {
				vs.TransportCalls = append(vs.TransportCalls, tc)
			}
		}
		out.Items = []VesselSchedule{vs}
	}
	d.resolve()
	out.Bad = d.bad
	return out, nil
}

// scheduleShape is which profile's shape a schedule body has.
type scheduleShape int

const (
	serviceShape scheduleShape = iota // the service profile's object
	dcsaArray                         // a DCSA answer: an array of items
	dcsaItem                          // one DCSA item, not wrapped in an array
)

// shapeOf tells a schedule body's shape: a JSON array is a DCSA answer; an
// object is one DCSA item when isDCSA says so by its members, else the
// service profile's answer. A body that is neither (invalid JSON, a
// string) is an error.
func shapeOf(body []byte, isDCSA func(map[string]json.RawMessage) bool) (scheduleShape, error) {
	if IsArray(body) {
		return dcsaArray, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return serviceShape, plainJSONError(err)
	}
	if members != nil && isDCSA(members) {
		return dcsaItem, nil
	}
	return serviceShape, nil
}

// The DCSA items bare are told from the service profile's objects by the
// members in which the two differ.

// isDCSAPortSchedule: a location with UNLocationCode and no locode, or,
// when the location names neither, vessel schedules with DCSA's
// servicePartners or isDummyVessel.
func isDCSAPortSchedule(m map[string]json.RawMessage) bool {
	if isAbsent(m["vesselSchedules"]) {
		return false
	}
	var loc map[string]json.RawMessage
	if json.Unmarshal(m["location"], &loc) == nil && loc != nil {
		if !isAbsent(loc["locode"]) {
			return false
		}
		if !isAbsent(loc["UNLocationCode"]) {
			return true
		}
	}
	var list []json.RawMessage
	_ = json.Unmarshal(m["vesselSchedules"], &list)
	for _, raw := range list {
		var s map[string]json.RawMessage
		if json.Unmarshal(raw, &s) == nil && s != nil {
			return !isAbsent(s["servicePartners"]) || !isAbsent(s["isDummyVessel"])
		}
	}
	return false
}

// isDCSAPointToPoint: legs at the top, where the service profile has
// routes.
func isDCSAPointToPoint(m map[string]json.RawMessage) bool {
	_, routes := m["routes"]
	return !isAbsent(m["legs"]) && !routes
}

// isDCSAServiceSchedule: vesselSchedules without a location (a port
// schedule) or transportCalls (the service profile's vessel schedule).
func isDCSAServiceSchedule(m map[string]json.RawMessage) bool {
	_, calls := m["transportCalls"]
	_, loc := m["location"]
	return !isAbsent(m["vesselSchedules"]) && !calls && !loc
}

// decodeRequired decodes body into v after checking that the object has the
// named member, so that an unrelated JSON object is not taken for an empty
// schedule.
func decodeRequired(body []byte, v any, what, member string) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return decodeError(what, plainJSONError(err))
	}
	if _, ok := members[member]; !ok {
		return decodeError(what, fmt.Errorf("member %q missing", member))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return decodeError(what, plainJSONError(err))
	}
	return nil
}

// indexPath is the path of member[i] inside the element at path ("" for
// the body itself).
func indexPath(path, member string, i int) string {
	return memberPath(path, member) + "[" + strconv.Itoa(i) + "]"
}

// memberPath is the path of a member of the element at path.
func memberPath(path, member string) string {
	if path == "" {
		return member
	}
	return path + "." + member
}
