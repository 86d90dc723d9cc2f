package transform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/etalake/etalake/wire"
)

// Identity is the request a body answers.
type Identity struct {
	Product  wire.Product
	Endpoint wire.Endpoint
	// Request is the path and query exactly as the client sends them with
	// the default paths (wire.DefaultPaths).
	Request string
}

// looked lists what Identify looks for, for its errors.
const looked = "looked for a shipment (route or containers, bare or inside data), a port schedule (location and vesselSchedules), " +
	"a port-to-port schedule (routes and placeOfReceipt or placeOfDelivery), a vessel schedule (vessel and transportCalls), " +
	"a consumption period (credits or creditsInitial) or a list of periods"

// Identify infers which request a body answers, for importing responses
// saved by other tools: a shipment (route or containers, bare or inside
// {"data": …}) answers the shipment request of its metadata's
// shipmentNumber, shipmentType and sealine or, without a number, of its
// first container number as CT; location and vesselSchedules answer the
// by-port request of location.locode; routes with placeOfReceipt and
// placeOfDelivery the port-to-port request of their locodes;
// transportCalls with vessel the by-vessel request of vessel.imo; a
// consumption period object the schedule product's current period; an
// array of periods (bare or under a member) the schedule product's
// periods. A body it cannot place (an error body, another shape, invalid
// JSON) is an error matching ErrUnidentified that says what it looked for.
func Identify(body []byte) (Identity, error) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return Identity{}, fmt.Errorf("%w: not valid JSON; %s", ErrUnidentified, looked)
	}
	if trimmed[0] == '[' {
		return identifyPeriods(trimmed, nil)
	}
	var members map[string]json.RawMessage
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &members) != nil {
		return Identity{}, fmt.Errorf("%w: a JSON %s, not an object or array; %s", ErrUnidentified, kindOf(trimmed), looked)
	}
	has := func(name string) bool { return !isNull(members[name]) }
	switch {
	case has("route") || has("containers") || isShipmentEnvelope(members["data"]):
		return identifyShipment(trimmed)
	case has("errorCode") && has("message"):
		var e wire.ErrorBody
		_ = json.Unmarshal(trimmed, &e)
		return Identity{}, fmt.Errorf("%w: an error response (errorCode %d: %q), not a data body", ErrUnidentified, e.ErrorCode, e.Message)
	case has("vesselSchedules") && has("location"):
		s, err := wire.DecodePortSchedule(trimmed)
		if err != nil {
			return Identity{}, fmt.Errorf("%w: a port schedule that does not decode: %v", ErrUnidentified, err)
		}
		if s.Location == nil || s.Location.Locode == "" {
			return Identity{}, fmt.Errorf("%w: a port schedule without location.locode", ErrUnidentified)
		}
		return identity(wire.ProductSchedule, wire.EndpointPortSchedule, map[string]string{"port": s.Location.Locode}, nil), nil
	case has("routes") && (has("placeOfReceipt") || has("placeOfDelivery")):
		s, err := wire.DecodePointToPoint(trimmed)
		if err != nil {
			return Identity{}, fmt.Errorf("%w: a port-to-port schedule that does not decode: %v", ErrUnidentified, err)
		}
		if s.PlaceOfReceipt == nil || s.PlaceOfReceipt.Locode == "" || s.PlaceOfDelivery == nil || s.PlaceOfDelivery.Locode == "" {
			return Identity{}, fmt.Errorf("%w: a port-to-port schedule without placeOfReceipt.locode and placeOfDelivery.locode", ErrUnidentified)
		}
		vars := map[string]string{"pol": s.PlaceOfReceipt.Locode, "pod": s.PlaceOfDelivery.Locode}
		return identity(wire.ProductSchedule, wire.EndpointP2PSchedule, vars, nil), nil
	case has("transportCalls") && has("vessel"):
		s, err := wire.DecodeVesselSchedule(trimmed)
		if err != nil {
			return Identity{}, fmt.Errorf("%w: a vessel schedule that does not decode: %v", ErrUnidentified, err)
		}
		imo := vesselIMO(s.Vessel)
		if imo == 0 {
			return Identity{}, fmt.Errorf("%w: a vessel schedule without a positive vessel.imo", ErrUnidentified)
		}
		return identity(wire.ProductSchedule, wire.EndpointVesselSchedule, map[string]string{"imo": strconv.FormatInt(imo, 10)}, nil), nil
	}
	if id, err := identifyPeriods(trimmed, members); err == nil {
		return id, nil
	}
	if _, err := wire.DecodeCurrentPeriod(trimmed); err == nil {
		return identity(wire.ProductSchedule, wire.EndpointCurrentPeriod, nil, nil), nil
	}
	return Identity{}, fmt.Errorf("%w: an object with none of the expected members; %s", ErrUnidentified, looked)
}

// identity renders the request as the client sends it.
func identity(p wire.Product, e wire.Endpoint, vars map[string]string, q url.Values) Identity {
	base := wire.ScheduleBasePath
	if p == wire.ProductTracking {
		base = wire.TrackingBasePath
	}
	req := base + wire.DefaultPaths().Path(e, vars)
	if enc := q.Encode(); enc != "" {
		req += "?" + enc
	}
	return Identity{Product: p, Endpoint: e, Request: req}
}

// isShipmentEnvelope reports whether data holds a shipment.
func isShipmentEnvelope(data json.RawMessage) bool {
	var inner map[string]json.RawMessage
	if json.Unmarshal(data, &inner) != nil {
		return false
	}
	return !isNull(inner["route"]) || !isNull(inner["containers"])
}

func identifyShipment(body []byte) (Identity, error) {
	s, err := wire.DecodeShipment(body)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: a shipment that does not decode: %v", ErrUnidentified, err)
	}
	var number, typ, sealine string
	if md := s.Metadata; md != nil {
		number, typ, sealine = md.ShipmentNumber, md.ShipmentType, deref(md.Sealine)
	}
	if number == "" {
		typ = ""
		for _, c := range s.Containers {
			if c.Number != "" {
				number = c.Number
				break
			}
		}
	}
	if number == "" {
		return Identity{}, fmt.Errorf("%w: a shipment without metadata.shipmentNumber or a container number", ErrUnidentified)
	}
	if typ == "" {
		typ = "CT"
	}
	return identity(wire.ProductTracking, wire.EndpointShipment, nil, wire.ShipmentQuery(number, typ, sealine)), nil
}

// identifyPeriods identifies a list of periods: body itself when it is an
// array (members nil), else a non-empty array member of the object (or an
// empty one named periods).
func identifyPeriods(body []byte, members map[string]json.RawMessage) (Identity, error) {
	found := false
	if members == nil {
		found, _ = periodList(body)
	}
	for name, raw := range members {
		if ok, n := periodList(raw); ok && (n > 0 || name == "periods") {
			found = true
			break
		}
	}
	if !found {
		return Identity{}, fmt.Errorf("%w: no array of consumption periods; %s", ErrUnidentified, looked)
	}
	return identity(wire.ProductSchedule, wire.EndpointPeriods, nil, nil), nil
}

// periodList reports whether raw is an array of consumption periods, and
// how many.
func periodList(raw json.RawMessage) (bool, int) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return false, 0
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return false, 0
	}
	for _, el := range list {
		var p wire.ConsumptionPeriod
		el = bytes.TrimSpace(el)
		if len(el) == 0 || el[0] != '{' || json.Unmarshal(el, &p) != nil {
			return false, 0
		}
		if p.Credits == nil && p.CreditsInitial == nil && p.PeriodStart == nil {
			return false, 0
		}
	}
	return true, len(list)
}

func isNull(m json.RawMessage) bool {
	m = bytes.TrimSpace(m)
	return len(m) == 0 || string(m) == "null"
}

// kindOf names the JSON kind of a valid value.
func kindOf(v []byte) string {
	switch v[0] {
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
