package wire

// Product is a credit type of the service: each has its own base URL and its
// own credits.
type Product string

// The two products etalake buys from.
const (
	ProductSchedule Product = "schedule"
	ProductTracking Product = "tracking"
)

// ProductUnknown is the product of an imported body no shape identifies:
// it is landed, to be dead-lettered, and no request is ever made for it.
const ProductUnknown Product = "unknown"

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
	// EndpointUnidentified is an imported body no shape identifies
	// (transform.Identify): landed as it came, and dead-lettered with the
	// reason.
	EndpointUnidentified Endpoint = "unidentified"
)

// Paid reports whether a successful call to e costs a credit.
func (e Endpoint) Paid() bool {
	switch e {
	case EndpointPortSchedule, EndpointP2PSchedule, EndpointVesselSchedule, EndpointShipment:
		return true
	}
	return false
}
