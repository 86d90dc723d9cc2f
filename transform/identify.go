package transform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

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
const looked = "looked for a shipment (route or containers, bare or inside data or containerDetails), a port schedule (location and vesselSchedules), " +
	"a port-to-port schedule (routes and placeOfReceipt or placeOfDelivery), a vessel schedule (vessel and transportCalls), " +
	"a consumption period (credits or creditsInitial) or a list of periods, " +
	"or a DCSA Commercial Schedules 1.0 array or one of its items (a port schedule; a routing: legs and placeOfReceipt or placeOfDelivery; " +
	"a service schedule: carrierServiceCode or carrierServiceName, and vesselSchedules)"

// Identify infers which request a body answers, for importing responses
// saved by other tools: a shipment (route or containers, bare or inside
// {"data": …} or {"containerDetails": …}) answers the shipment request of
// its metadata's shipmentNumber, shipmentType and sealine or, without a
// number, of its first container number as CT, each as the client sends
// them (EMCU-8593893 as EMCU8593893, maeu as MAEU); location and vesselSchedules answer the
// by-port request of location.locode; routes with placeOfReceipt and
// placeOfDelivery the port-to-port request of their locodes;
// transportCalls with vessel the by-vessel request of vessel.imo; a DCSA
// Commercial Schedules array, or one of its items sent bare (a port
// schedule, a routing, a service schedule: wire's decoders tell them from
// the service profile's objects by the members in which they differ), the
// request of its first item's port, places or vessel; a consumption
// period object the schedule product's current period; an array of
// periods (bare or under a member) the schedule product's periods. A body it cannot place (an error body, another shape, invalid
// JSON) is an error matching ErrUnidentified that says what it looked for.
func Identify(body []byte) (Identity, error) {
	trimmed := bytes.TrimSpace(body)
	if !json.Valid(trimmed) {
		return Identity{}, fmt.Errorf("%w: not valid JSON; %s", ErrUnidentified, looked)
	}
	if trimmed[0] == '[' {
		if id, ok, err := identifyDCSA(trimmed); ok {
			return id, err
		}
		return identifyPeriods(trimmed, nil)
	}
	var members map[string]json.RawMessage
	if trimmed[0] != '{' || json.Unmarshal(trimmed, &members) != nil {
		return Identity{}, fmt.Errorf("%w: a JSON %s, not an object or array; %s", ErrUnidentified, kindOf(trimmed), looked)
	}
	has := func(name string) bool { return !isNull(members[name]) }
	switch {
	case has("route") || has("containers") || isShipmentEnvelope(members["data"], 1) || isShipmentEnvelope(members["containerDetails"], 1):
		return identifyShipment(trimmed)
	case has("errorCode") && has("message"):
		var e wire.ErrorBody
		_ = json.Unmarshal(trimmed, &e)
		return Identity{}, fmt.Errorf("%w: an error response (errorCode %d: %q), not a data body", ErrUnidentified, e.ErrorCode, e.Message)
	case has("errors") && has("statusCode"):
		var e struct {
			StatusCode int    `json:"statusCode"`
			Text       string `json:"statusCodeText"`
		}
		_ = json.Unmarshal(trimmed, &e)
		return Identity{}, fmt.Errorf("%w: a DCSA error response (statusCode %d: %q), not a data body", ErrUnidentified, e.StatusCode, e.Text)
	case has("vesselSchedules") && has("location"):
		return identifySchedule(wire.EndpointPortSchedule, trimmed)
	case has("routes") && (has("placeOfReceipt") || has("placeOfDelivery")):
		return identifySchedule(wire.EndpointP2PSchedule, trimmed)
	case has("transportCalls") && has("vessel"):
		return identifySchedule(wire.EndpointVesselSchedule, trimmed)
	// One item of a DCSA answer, not wrapped in its array (a port
	// schedule is the first case).
	case has("legs") && (has("placeOfReceipt") || has("placeOfDelivery")):
		return identifySchedule(wire.EndpointP2PSchedule, trimmed)
	case has("vesselSchedules") && (has("carrierServiceCode") || has("carrierServiceName")):
		return identifySchedule(wire.EndpointVesselSchedule, trimmed)
	}
	if id, err := identifyPeriods(trimmed, members); err == nil {
		return id, nil
	}
	if _, err := wire.DecodeCurrentPeriod(trimmed); err == nil {
		return identity(wire.ProductSchedule, wire.EndpointCurrentPeriod, nil, nil), nil
	}
	return Identity{}, fmt.Errorf("%w: an object with none of the expected members; %s", ErrUnidentified, looked)
}

// identifyDCSA identifies a DCSA Commercial Schedules answer by the members
// of its first item: location and vesselSchedules for port schedules, legs
// and a place of receipt or delivery for point-to-point routes, a service
// with vesselSchedules for vessel schedules. ok is false when the body is
// not one of these.
func identifyDCSA(body []byte) (id Identity, ok bool, err error) {
	var items []map[string]json.RawMessage
	if json.Unmarshal(body, &items) != nil || len(items) == 0 || items[0] == nil {
		return Identity{}, false, nil
	}
	has := func(name string) bool { return !isNull(items[0][name]) }
	switch {
	case has("vesselSchedules") && has("location"):
		id, err = identifySchedule(wire.EndpointPortSchedule, body)
	case has("legs") && (has("placeOfReceipt") || has("placeOfDelivery")):
		id, err = identifySchedule(wire.EndpointP2PSchedule, body)
	case has("vesselSchedules") && (has("carrierServiceCode") || has("carrierServiceName")):
		id, err = identifySchedule(wire.EndpointVesselSchedule, body)
	default:
		return Identity{}, false, nil
	}
	return id, true, err
}

// identifySchedule identifies a schedule of either profile by the port,
// port pair or vessel of its first item.
func identifySchedule(e wire.Endpoint, body []byte) (Identity, error) {
	var (
		vars  map[string]string
		what  string
		err   error
		empty bool
	)
	switch e {
	case wire.EndpointPortSchedule:
		what = "a port schedule"
		var s wire.Schedules[wire.PortSchedule]
		if s, err = wire.DecodePortSchedules(body); err == nil {
			empty = len(s.Items) == 0
			if !empty && s.Items[0].Location != nil && upperCode(s.Items[0].Location.Locode) != "" {
				vars = map[string]string{"port": upperCode(s.Items[0].Location.Locode)}
			}
		}
	case wire.EndpointP2PSchedule:
		what = "a port-to-port schedule"
		var s wire.Schedules[wire.PointToPoint]
		if s, err = wire.DecodePointToPoints(body); err == nil {
			empty = len(s.Items) == 0
			if !empty {
				from, to := s.Items[0].PlaceOfReceipt, s.Items[0].PlaceOfDelivery
				if from != nil && upperCode(from.Locode) != "" && to != nil && upperCode(to.Locode) != "" {
					vars = map[string]string{"pol": upperCode(from.Locode), "pod": upperCode(to.Locode)}
				}
			}
		}
	case wire.EndpointVesselSchedule:
		what = "a vessel schedule"
		var s wire.Schedules[wire.VesselSchedule]
		if s, err = wire.DecodeVesselSchedules(body); err == nil {
			empty = len(s.Items) == 0
			if !empty {
				if imo := vesselIMO(s.Items[0].Vessel); imo > 0 {
					vars = map[string]string{"imo": strconv.FormatInt(imo, 10)}
				}
			}
		}
	}
	switch {
	case err != nil:
		return Identity{}, fmt.Errorf("%w: %s that does not decode: %v", ErrUnidentified, what, err)
	case vars == nil:
		return Identity{}, fmt.Errorf("%w: %s whose first item names no %s", ErrUnidentified, what, map[wire.Endpoint]string{
			wire.EndpointPortSchedule:   "port (location's UN/LOCODE)",
			wire.EndpointP2PSchedule:    "place of receipt and place of delivery (UN/LOCODEs)",
			wire.EndpointVesselSchedule: "vessel (IMO number)",
		}[e])
	}
	return identity(wire.ProductSchedule, e, vars, nil), nil
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

// isShipmentEnvelope reports whether the member of an envelope (data,
// containerDetails) at depth holds a shipment, itself or in an envelope of
// its own, as far as wire.DecodeShipment opens them.
func isShipmentEnvelope(member json.RawMessage, depth int) bool {
	var inner map[string]json.RawMessage
	if json.Unmarshal(member, &inner) != nil || inner == nil {
		return false
	}
	if !isNull(inner["route"]) || !isNull(inner["containers"]) {
		return true
	}
	return depth < shipmentEnvelopes &&
		(isShipmentEnvelope(inner["data"], depth+1) || isShipmentEnvelope(inner["containerDetails"], depth+1))
}

// shipmentEnvelopes is how deep wire.DecodeShipment opens envelopes.
const shipmentEnvelopes = 3

func identifyShipment(body []byte) (Identity, error) {
	s, err := wire.DecodeShipment(body)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: a shipment that does not decode: %v", ErrUnidentified, err)
	}
	var number, typ, sealine string
	if md := s.Metadata; md != nil {
		number, typ, sealine = strings.TrimSpace(md.ShipmentNumber), upperCode(md.ShipmentType), upperCode(deref(md.Sealine))
	}
	if number == "" {
		typ = ""
		for _, c := range s.Containers {
			if number = strings.TrimSpace(c.Number); number != "" {
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
	return identity(wire.ProductTracking, wire.EndpointShipment, nil, wire.ShipmentQuery(shipmentNumber(number, typ), typ, sealine)), nil
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
