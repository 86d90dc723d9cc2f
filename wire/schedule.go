package wire

import (
	"encoding/json"
	"fmt"
	"time"
)

// The three schedule payloads follow DCSA Commercial Schedules 1.0 naming, as
// fixed in spec/schedules.md.

// Timestamp is a DCSA schedule timestamp: an arrival or departure (ARRI,
// DEPA), planned, estimated or actual (PLN, EST, ACT).
type Timestamp struct {
	EventTypeCode       string    `json:"eventTypeCode"`
	EventClassifierCode string    `json:"eventClassifierCode"`
	EventDateTime       time.Time `json:"eventDateTime"`
}

// PortSchedule answers GET /schedule/{port_code}.
type PortSchedule struct {
	Location        *Location            `json:"location"`
	VesselSchedules []PortVesselSchedule `json:"vesselSchedules"`
}

// PortVesselSchedule is one vessel's call at the port.
type PortVesselSchedule struct {
	CarrierCode               string      `json:"carrierCode"`
	CarrierServiceCode        *string     `json:"carrierServiceCode"`
	CarrierServiceName        *string     `json:"carrierServiceName"`
	Vessel                    *Vessel     `json:"vessel"`
	CarrierImportVoyageNumber *string     `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber *string     `json:"carrierExportVoyageNumber"`
	Facility                  *Facility   `json:"facility"`
	Timestamps                []Timestamp `json:"timestamps"`
}

// PointToPoint answers GET /schedule/{pol}/{pod}.
type PointToPoint struct {
	PlaceOfReceipt  *Location  `json:"placeOfReceipt"`
	PlaceOfDelivery *Location  `json:"placeOfDelivery"`
	Routes          []P2PRoute `json:"routes"`
}

// P2PRoute is one routing offered between the two ports.
type P2PRoute struct {
	CarrierCode string `json:"carrierCode"`
	// TransitTime is in days.
	TransitTime *int  `json:"transitTime"`
	Legs        []Leg `json:"legs"`
}

// Leg is one vessel voyage of a route.
type Leg struct {
	SequenceNumber      int      `json:"sequenceNumber"`
	Vessel              *Vessel  `json:"vessel"`
	CarrierServiceCode  *string  `json:"carrierServiceCode"`
	CarrierVoyageNumber *string  `json:"carrierVoyageNumber"`
	Departure           *LegCall `json:"departure"`
	Arrival             *LegCall `json:"arrival"`
}

// LegCall is the departure or arrival end of a leg.
type LegCall struct {
	Location            *Location `json:"location"`
	Facility            *Facility `json:"facility"`
	DateTime            time.Time `json:"dateTime"`
	EventClassifierCode string    `json:"eventClassifierCode"`
}

// VesselSchedule answers GET /schedule/vessel/{imo}.
type VesselSchedule struct {
	Vessel             *Vessel         `json:"vessel"`
	CarrierCode        string          `json:"carrierCode"`
	CarrierServiceCode *string         `json:"carrierServiceCode"`
	TransportCalls     []TransportCall `json:"transportCalls"`
}

// TransportCall is one call of the vessel at a port.
type TransportCall struct {
	SequenceNumber            int         `json:"sequenceNumber"`
	Location                  *Location   `json:"location"`
	Facility                  *Facility   `json:"facility"`
	CarrierImportVoyageNumber *string     `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber *string     `json:"carrierExportVoyageNumber"`
	Timestamps                []Timestamp `json:"timestamps"`
}

// DecodePortSchedule decodes a by-port schedule; the vesselSchedules member
// must be present (an empty list is fine). A missing location is allowed:
// the port is then the one asked for.
func DecodePortSchedule(body []byte) (*PortSchedule, error) {
	var v PortSchedule
	if err := decodeRequired(body, &v, "port schedule", "vesselSchedules"); err != nil {
		return nil, err
	}
	return &v, nil
}

// DecodePointToPoint decodes a port-to-port schedule; routes must be present.
func DecodePointToPoint(body []byte) (*PointToPoint, error) {
	var v PointToPoint
	if err := decodeRequired(body, &v, "point-to-point schedule", "routes"); err != nil {
		return nil, err
	}
	return &v, nil
}

// DecodeVesselSchedule decodes a by-vessel schedule; transportCalls must be
// present.
func DecodeVesselSchedule(body []byte) (*VesselSchedule, error) {
	var v VesselSchedule
	if err := decodeRequired(body, &v, "vessel schedule", "transportCalls"); err != nil {
		return nil, err
	}
	return &v, nil
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
