package wire

import (
	"encoding/json"
	"fmt"
	"time"
)

// Shipment is the tracking response (service.md §2.4). Members we do not use
// (locations[], vessels[], facilities[], routeData, …) are ignored here and
// kept in the raw landing.
type Shipment struct {
	Metadata   *ShipmentMetadata `json:"metadata"`
	Route      *ShipmentRoute    `json:"route"`
	Containers []Container       `json:"containers"`
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
}

// PortOfDischarge is route.pod: a RoutePoint plus the service's own
// predictive ETA, filled only within 3 days of arrival and null otherwise.
type PortOfDischarge struct {
	RoutePoint
	PredictiveETA *time.Time `json:"predictiveEta"`
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

// Vessel is a ship (nullable on an event).
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
}

// DecodeShipment decodes a tracking response. It accepts the bare object of
// service.md and the public API's envelope {"status": …, "data": {…}}; a body
// with neither route nor containers is an error, not an empty shipment.
func DecodeShipment(body []byte) (*Shipment, error) {
	var probe struct {
		Route      json.RawMessage `json:"route"`
		Containers json.RawMessage `json:"containers"`
		Data       json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, decodeError("shipment", err)
	}
	if isAbsent(probe.Route) && isAbsent(probe.Containers) && !isAbsent(probe.Data) {
		body = probe.Data
		probe.Route, probe.Containers = nil, nil
		if err := json.Unmarshal(body, &probe); err != nil {
			return nil, decodeError("shipment data", err)
		}
	}
	if isAbsent(probe.Route) && isAbsent(probe.Containers) {
		return nil, decodeError("shipment", fmt.Errorf("neither route nor containers present"))
	}
	var s Shipment
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, decodeError("shipment", err)
	}
	return &s, nil
}

// isAbsent reports whether a member was missing or null.
func isAbsent(m json.RawMessage) bool {
	return len(m) == 0 || string(m) == "null"
}
