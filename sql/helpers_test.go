package sql_test

import (
	"encoding/json"
	"fmt"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/extract/sim"
	"github.com/etalake/etalake/wire"
)

func jsonBody(v any) ([]byte, error) { return json.Marshal(v) }

func responseID(n int) string { return fmt.Sprintf("gt%08d", n) }

func shipmentRef(s sim.ShipmentTruth) extract.ShipmentRef {
	return extract.ShipmentRef{Number: s.Number, Type: extract.ShipmentType(s.Type), Sealine: s.Sealine}
}

// withRequest is the shipment body; the transform takes the shipment's
// identity from its metadata when the response has no request.
func withRequest(s *wire.Shipment, _ extract.ShipmentRef) *wire.Shipment { return s }
