package extract

import "time"

// Product is a credit type of the service: each has its own base URL and its
// own credits.
type Product string

// The two products etalake buys from.
const (
	ProductSchedule Product = "schedule"
	ProductTracking Product = "tracking"
)

// Products lists every product in a stable order.
var Products = []Product{ProductSchedule, ProductTracking}

// Endpoint names one kind of request.
type Endpoint string

// The endpoints of the service (service.md §4 and spec/schedules.md).
const (
	EndpointPortSchedule   Endpoint = "schedule_port"
	EndpointP2PSchedule    Endpoint = "schedule_p2p"
	EndpointVesselSchedule Endpoint = "schedule_vessel"
	EndpointCurrentPeriod  Endpoint = "consumption_current_period"
	EndpointPeriods        Endpoint = "consumption_periods"
	EndpointShipment       Endpoint = "shipment"
)

// Paid reports whether a successful call to e costs a credit.
func (e Endpoint) Paid() bool {
	switch e {
	case EndpointPortSchedule, EndpointP2PSchedule, EndpointVesselSchedule, EndpointShipment:
		return true
	}
	return false
}

// Raw is one HTTP response as it arrived, with what is needed to land it
// before any parsing. It never holds the API key.
type Raw struct {
	Product  Product
	Endpoint Endpoint
	// Request is the path and query of the request (no scheme, host or key),
	// e.g. "/schedule/api/v1/schedule/NLRTM".
	Request string
	Status  int
	// Date is the response's HTTP Date header; zero when absent or unparsable.
	Date time.Time
	// ReceivedAt is our clock when the body had been read.
	ReceivedAt time.Time
	Body       []byte
	// Attempt counts from 1; a retried request yields one Raw per attempt.
	Attempt int
}

// ObservedAt is when the answer was true: the server's Date header when it
// sent one, else our clock at receipt.
func (r *Raw) ObservedAt() time.Time {
	if !r.Date.IsZero() {
		return r.Date.UTC()
	}
	return r.ReceivedAt.UTC()
}
