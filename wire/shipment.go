package wire

import (
	"encoding/json"
	"time"
)

// Shipment is the tracking response (service.md §2.4). Members we do not use
// (locations[], vessels[], facilities[], routeData, …) are ignored here and
// kept in the raw landing.
//
// The fields tagged json:"-" are what DecodeShipment tells about the body
// besides its values: the elements it left out, where each element was,
// and which time zone it assumed for a date-time written without an
// offset. Encoding a Shipment leaves them out.
type Shipment struct {
	Metadata   *ShipmentMetadata `json:"metadata"`
	Route      *ShipmentRoute    `json:"route"`
	Containers []Container       `json:"containers"`
	// Bad lists the elements that did not decode (metadata, route,
	// route.pod, containers[2], containers[0].events[3].date, …), each
	// left out while its siblings decoded.
	Bad []ItemError `json:"-"`
}

// AtPOD reports whether the shipment's route says it arrived at its port
// of discharge (route.pod.actual).
func (s *Shipment) AtPOD() bool {
	return s.Route != nil && s.Route.Pod != nil && s.Route.Pod.Actual != nil && *s.Route.Pod.Actual
}

// Delivered reports whether the shipment arrived at its final place: its
// POSTPOD when the route has one, else its port of discharge.
func (s *Shipment) Delivered() bool {
	if s.Route != nil && s.Route.Postpod != nil {
		p := s.Route.Postpod
		return p.Actual != nil && *p.Actual
	}
	return s.AtPOD()
}

// ShipmentMetadata is the public tracking API's metadata block.
type ShipmentMetadata struct {
	ShipmentType   string     `json:"shipmentType"`
	ShipmentNumber string     `json:"shipmentNumber"`
	Sealine        *string    `json:"sealine"`
	SealineName    *string    `json:"sealineName"`
	ShippingStatus *string    `json:"shippingStatus"`
	UpdatedAt      *time.Time `json:"updatedAt"`
	// Warnings is kept undecoded: its element shape is not documented.
	Warnings json.RawMessage `json:"warnings,omitempty"`
	// UpdatedAtZone is "" when updatedAt carried its offset, else the
	// zone it was read in: UTCZone (metadata names no place).
	UpdatedAtZone string `json:"-"`
}

// ShipmentRoute holds the key locations of a journey. Any member may be null.
type ShipmentRoute struct {
	Prepol  *RoutePoint      `json:"prepol"`
	Pol     *RoutePoint      `json:"pol"`
	Pod     *PortOfDischarge `json:"pod"`
	Postpod *RoutePoint      `json:"postpod"`
}

// RoutePoint is a key location with the date of the container's arrival
// there; Actual tells whether Date is estimated (false) or actual (true).
type RoutePoint struct {
	Location *Location  `json:"location"`
	Date     *time.Time `json:"date"`
	Actual   *bool      `json:"actual"`
	// DateZone is "" when date carried its offset, else the zone it was
	// read in (see Event.DateZone).
	DateZone string `json:"-"`
}

// PortOfDischarge is route.pod: a RoutePoint plus the service's own
// predictive ETA, filled only within 3 days of arrival and null otherwise.
type PortOfDischarge struct {
	RoutePoint
	PredictiveETA *time.Time `json:"predictiveEta"`
	// PredictiveETAZone is "" when predictiveEta carried its offset, else
	// the zone it was read in, that of the port (see Event.DateZone).
	PredictiveETAZone string `json:"-"`
}

// Location is a place (service.md §2.4).
type Location struct {
	Name        string       `json:"name"`
	State       *string      `json:"state"`
	Country     string       `json:"country"`
	CountryCode string       `json:"countryCode"`
	Locode      string       `json:"locode"`
	Coordinates *Coordinates `json:"coordinates"`
	Timezone    string       `json:"timezone"`
}

// Coordinates are a position; every member may be null.
type Coordinates struct {
	Lat       *float64   `json:"lat"`
	Lng       *float64   `json:"lng"`
	UpdatedAt *time.Time `json:"updatedAt"`
}

// Facility is a terminal or depot (nullable on an event).
type Facility struct {
	Name        string       `json:"name"`
	CountryCode string       `json:"countryCode"`
	Locode      *string      `json:"locode"`
	BICCode     *string      `json:"bicCode"`
	SMDGCode    *string      `json:"smdgCode"`
	Coordinates *Coordinates `json:"coordinates"`
}

// Vessel is a ship (nullable on an event). DecodeShipment reads its IMO
// and MMSI numbers from JSON numbers or strings.
type Vessel struct {
	Name     string  `json:"name"`
	IMO      *int    `json:"imo"`
	CallSign *string `json:"callSign"`
	MMSI     *int    `json:"mmsi"`
	Flag     *string `json:"flag"`
}

// Container is one box of a shipment with its events.
type Container struct {
	Number  string  `json:"number"`
	ISOCode string  `json:"isoCode"`
	Status  string  `json:"status"`
	Events  []Event `json:"events"`
	// Index is the container's index in the body's containers array, for
	// naming it (containers[Index]): the containers left out leave gaps.
	Index int `json:"-"`
}

// Event is a container event (service.md §6). Date is estimated while
// IsActual is false.
type Event struct {
	Location          *Location  `json:"location"`
	Facility          *Facility  `json:"facility"`
	Description       string     `json:"description"`
	EventType         string     `json:"eventType"`
	EventCode         string     `json:"eventCode"`
	Status            string     `json:"status"`
	Date              *time.Time `json:"date"`
	IsActual          bool       `json:"isActual"`
	IsAdditionalEvent bool       `json:"isAdditionalEvent"`
	RouteType         string     `json:"routeType"`
	TransportType     *string    `json:"transportType"`
	Vessel            *Vessel    `json:"vessel"`
	Voyage            *string    `json:"voyage"`
	// ActualUnknown is set when isActual was null or absent: the service
	// did not say whether Date is actual, and IsActual (false) means
	// nothing.
	ActualUnknown bool `json:"-"`
	// DateZone is "" when date carried its offset (or is null), else the
	// zone it was read in, the date having none: the IANA name of the
	// event's place (location.timezone, else that of the same UN/LOCODE
	// elsewhere in the body), or UTCZone when no zone is known.
	DateZone string `json:"-"`
	// Index is the event's index in its container's events array, for
	// naming it (containers[i].events[Index]).
	Index int `json:"-"`
}
