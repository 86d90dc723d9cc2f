package wire

import "time"

// The three schedule payloads follow DCSA Commercial Schedules 1.0 naming, as
// fixed in spec/schedules.md.

// Timestamp is a DCSA schedule timestamp: an arrival or departure (ARRI,
// DEPA), planned, estimated or actual (PLN, EST, ACT). The decoders keep
// the codes as sent; EventDateTime is zero when none was sent.
type Timestamp struct {
	EventTypeCode       string    `json:"eventTypeCode"`
	EventClassifierCode string    `json:"eventClassifierCode"`
	EventDateTime       time.Time `json:"eventDateTime"`
	// EventDateTimeZone is "" when eventDateTime carried its offset (or
	// is absent), else the zone it was read in, the date having none: the
	// IANA name of the port's zone (see scheduleDecoding.resolve), or
	// UTCZone when no zone is known.
	EventDateTimeZone string `json:"-"`
	// Index is the timestamp's index in its timestamps array, for naming
	// it (timestamps[Index]): the timestamps left out leave gaps.
	Index int `json:"-"`
}

// PortSchedule answers GET /schedule/{port_code}.
type PortSchedule struct {
	Location        *Location            `json:"location"`
	VesselSchedules []PortVesselSchedule `json:"vesselSchedules"`
	// Source is where the decoders found it in the body ("" for the body,
	// "[2]" for a DCSA answer's third item), for reporting.
	Source string `json:"-"`
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
	Source                    string      `json:"-"` // as on PortSchedule
}

// PointToPoint answers GET /schedule/{pol}/{pod}.
type PointToPoint struct {
	PlaceOfReceipt  *Location  `json:"placeOfReceipt"`
	PlaceOfDelivery *Location  `json:"placeOfDelivery"`
	Routes          []P2PRoute `json:"routes"`
	Source          string     `json:"-"` // as on PortSchedule
}

// P2PRoute is one routing offered between the two ports.
type P2PRoute struct {
	CarrierCode string `json:"carrierCode"`
	// TransitTime is in days.
	TransitTime *int   `json:"transitTime"`
	Legs        []Leg  `json:"legs"`
	Source      string `json:"-"` // as on PortSchedule
}

// Leg is one vessel voyage of a route.
type Leg struct {
	SequenceNumber int     `json:"sequenceNumber"`
	Vessel         *Vessel `json:"vessel"`
	// CarrierCode, when set, is the leg's own carrier (DCSA names one per
	// leg); else the route's.
	CarrierCode        *string `json:"carrierCode,omitempty"`
	CarrierServiceCode *string `json:"carrierServiceCode"`
	// CarrierVoyageNumber is the voyage leaving the departure port, and the
	// one reaching the arrival port unless ArrivalVoyageNumber says
	// otherwise (DCSA gives both).
	CarrierVoyageNumber *string  `json:"carrierVoyageNumber"`
	ArrivalVoyageNumber *string  `json:"arrivalVoyageNumber,omitempty"`
	Departure           *LegCall `json:"departure"`
	Arrival             *LegCall `json:"arrival"`
	Source              string   `json:"-"` // as on PortSchedule
	// DepartureLeftOut and ArrivalLeftOut are set when that end did not
	// decode: it is nil, and listed in Schedules.Bad.
	DepartureLeftOut, ArrivalLeftOut bool `json:"-"`
}

// LegCall is the departure or arrival end of a leg. DateTime is zero when
// none was sent.
type LegCall struct {
	Location            *Location `json:"location"`
	Facility            *Facility `json:"facility"`
	DateTime            time.Time `json:"dateTime"`
	EventClassifierCode string    `json:"eventClassifierCode"`
	// DateTimeZone is as Timestamp.EventDateTimeZone, for dateTime.
	DateTimeZone string `json:"-"`
}

// VesselSchedule answers GET /schedule/vessel/{imo}.
type VesselSchedule struct {
	Vessel             *Vessel         `json:"vessel"`
	CarrierCode        string          `json:"carrierCode"`
	CarrierServiceCode *string         `json:"carrierServiceCode"`
	CarrierServiceName *string         `json:"carrierServiceName,omitempty"`
	TransportCalls     []TransportCall `json:"transportCalls"`
	Source             string          `json:"-"` // as on PortSchedule
}

// TransportCall is one call of the vessel at a port.
type TransportCall struct {
	SequenceNumber            int         `json:"sequenceNumber"`
	Location                  *Location   `json:"location"`
	Facility                  *Facility   `json:"facility"`
	CarrierImportVoyageNumber *string     `json:"carrierImportVoyageNumber"`
	CarrierExportVoyageNumber *string     `json:"carrierExportVoyageNumber"`
	Timestamps                []Timestamp `json:"timestamps"`
	Source                    string      `json:"-"` // as on PortSchedule
}
