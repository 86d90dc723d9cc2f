package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"
)

// ItemError is one item of an answer that did not decode, while its
// siblings did: Path names it as a JSON path without the leading $
// ("vesselSchedules[3]", "[2].legs[0]").
type ItemError struct {
	Path string
	Err  error
}

func (e ItemError) Error() string { return e.Path + ": " + e.Err.Error() }

func itemError(path string, err error) ItemError {
	return ItemError{Path: path, Err: plainJSONError(err)}
}

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
// the service profile's shapes, and the items that did not decode. A
// service-profile body is one item; a DCSA answer (a JSON array) has one
// per array item (one per item and vessel for vessel schedules).
type Schedules[T any] struct {
	Items []T
	Bad   []ItemError
	// DCSA is set when the body was a DCSA Commercial Schedules array.
	DCSA bool
}

// IsArray reports whether a body is a JSON array (after white space): the
// DCSA profile's answers are, the service profile's are objects.
func IsArray(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// DecodePortSchedules decodes a by-port schedule of either profile. The
// service profile's object must have vesselSchedules (an empty list is
// fine; a missing location means the port asked for); a DCSA answer is an
// array of PortSchedule. Each vessel schedule is decoded on its own.
func DecodePortSchedules(body []byte) (Schedules[PortSchedule], error) {
	if IsArray(body) {
		return decodeDCSA(body, "port schedules", func(d *dcsaPortSchedule, path string) ([]PortSchedule, []ItemError) {
			ps, bad := d.portSchedule(path)
			return []PortSchedule{ps}, bad
		})
	}
	var v struct {
		Location        *Location         `json:"location"`
		VesselSchedules []json.RawMessage `json:"vesselSchedules"`
	}
	if err := decodeRequired(body, &v, "port schedule", "vesselSchedules"); err != nil {
		return Schedules[PortSchedule]{}, err
	}
	ps := PortSchedule{Location: v.Location}
	var out Schedules[PortSchedule]
	ps.VesselSchedules, out.Bad = decodeEach[PortVesselSchedule](v.VesselSchedules, "vesselSchedules")
	out.Items = []PortSchedule{ps}
	return out, nil
}

// DecodePointToPoints decodes a port-to-port schedule of either profile:
// the service profile's object with routes (each route decoded on its
// own), or a DCSA array of routings (one PointToPoint of one route each).
func DecodePointToPoints(body []byte) (Schedules[PointToPoint], error) {
	if IsArray(body) {
		return decodeDCSA(body, "point-to-point routes", func(d *dcsaPointToPoint, path string) ([]PointToPoint, []ItemError) {
			p, bad := d.pointToPoint(path)
			return []PointToPoint{p}, bad
		})
	}
	var v struct {
		PlaceOfReceipt  *Location         `json:"placeOfReceipt"`
		PlaceOfDelivery *Location         `json:"placeOfDelivery"`
		Routes          []json.RawMessage `json:"routes"`
	}
	if err := decodeRequired(body, &v, "point-to-point schedule", "routes"); err != nil {
		return Schedules[PointToPoint]{}, err
	}
	p := PointToPoint{PlaceOfReceipt: v.PlaceOfReceipt, PlaceOfDelivery: v.PlaceOfDelivery}
	var out Schedules[PointToPoint]
	p.Routes, out.Bad = decodeEach[P2PRoute](v.Routes, "routes")
	out.Items = []PointToPoint{p}
	return out, nil
}

// DecodeVesselSchedules decodes a by-vessel schedule of either profile:
// the service profile's object with transportCalls (each decoded on its
// own), or a DCSA array of service schedules.
func DecodeVesselSchedules(body []byte) (Schedules[VesselSchedule], error) {
	if IsArray(body) {
		return decodeDCSA(body, "vessel schedules", (*dcsaServiceSchedule).vesselSchedules)
	}
	var v struct {
		Vessel             *Vessel           `json:"vessel"`
		CarrierCode        string            `json:"carrierCode"`
		CarrierServiceCode *string           `json:"carrierServiceCode"`
		CarrierServiceName *string           `json:"carrierServiceName"`
		TransportCalls     []json.RawMessage `json:"transportCalls"`
	}
	if err := decodeRequired(body, &v, "vessel schedule", "transportCalls"); err != nil {
		return Schedules[VesselSchedule]{}, err
	}
	vs := VesselSchedule{Vessel: v.Vessel, CarrierCode: v.CarrierCode, CarrierServiceCode: v.CarrierServiceCode, CarrierServiceName: v.CarrierServiceName}
	var out Schedules[VesselSchedule]
	vs.TransportCalls, out.Bad = decodeEach[TransportCall](v.TransportCalls, "transportCalls")
	out.Items = []VesselSchedule{vs}
	return out, nil
}

// sourced is an item that records where it was found.
type sourced[T any] interface {
	*T
	setSource(string)
}

func (v *PortVesselSchedule) setSource(p string) { v.Source = p }
func (v *P2PRoute) setSource(p string)           { v.Source = p }
func (v *TransportCall) setSource(p string)      { v.Source = p }

// decodeEach decodes the items of a list one by one.
func decodeEach[T any, P sourced[T]](raws []json.RawMessage, member string) ([]T, []ItemError) {
	out := make([]T, 0, len(raws))
	var bad []ItemError
	for i, raw := range raws {
		var v T
		path := indexPath("", member, i)
		if err := json.Unmarshal(raw, &v); err != nil {
			bad = append(bad, itemError(path, err))
			continue
		}
		P(&v).setSource(path)
		out = append(out, v)
	}
	return out, bad
}

// decodeDCSA decodes a DCSA answer: an array whose items are decoded into
// D one by one and converted.
func decodeDCSA[D any, T any](body []byte, what string, convert func(*D, string) ([]T, []ItemError)) (Schedules[T], error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return Schedules[T]{}, decodeError("DCSA "+what, err)
	}
	out := Schedules[T]{DCSA: true}
	for i, raw := range raws {
		path := fmt.Sprintf("[%d]", i)
		var d D
		if err := json.Unmarshal(raw, &d); err != nil || isAbsent(raw) {
			if err == nil {
				err = fmt.Errorf("null, want an object")
			}
			out.Bad = append(out.Bad, itemError(path, err))
			continue
		}
		items, bad := convert(&d, path)
		out.Items = append(out.Items, items...)
		out.Bad = append(out.Bad, bad...)
	}
	return out, nil
}

// decodeRequired decodes body into v after checking that the object has the
// named member, so that an unrelated JSON object is not taken for an empty
// schedule.
func decodeRequired(body []byte, v any, what, member string) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return decodeError(what, err)
	}
	if _, ok := members[member]; !ok {
		return decodeError(what, fmt.Errorf("member %q missing", member))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return decodeError(what, err)
	}
	return nil
}
