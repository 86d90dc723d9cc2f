package sql_test

import (
	"encoding/json"
	"fmt"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

func jsonBody(v any) ([]byte, error) { return json.Marshal(v) }

func responseID(n int) string { return fmt.Sprintf("gt%08d", n) }

func shipmentRef(s sim.ShipmentTruth) wire.ShipmentRef {
	return wire.ShipmentRef{Number: s.Number, Type: wire.ShipmentType(s.Type), Sealine: s.Sealine}
}

// withRequest is the shipment body; the transform takes the shipment's
// identity from its metadata when the response has no request.
func withRequest(s *wire.Shipment, _ wire.ShipmentRef) *wire.Shipment { return s }
