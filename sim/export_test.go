package sim

import (
	"net/url"

	"github.com/etalake/etalake/wire"
)

// The service's own request checks, for the tests of package sim_test
// (validate_test.go and the differential tests against the client).
var (
	CheckPortCode       = portCode
	CheckIMO            = imoNumber
	ContainerCheckDigit = containerCheckDigit
)

// CheckShipmentQuery reports the reference the service reads from a
// tracking query, or false where it answers 400.
func CheckShipmentQuery(q url.Values) (wire.ShipmentRef, bool) {
	ref, bad := shipmentQuery(q)
	return ref, bad == nil
}
