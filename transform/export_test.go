package transform

import "github.com/etalake/etalake/wire"

// BufferColumns lists, per table a Batch writes, the columns its rows fill,
// in the order they fill them.
func BufferColumns(b *Batch) map[string][]string {
	out := map[string][]string{}
	for _, buf := range b.buffers {
		out[buf.table().Name] = buf.columnNames()
	}
	return out
}

// WithoutFastPath makes b decode every tracking body with
// wire.DecodeShipment, the reference of the fast path.
func WithoutFastPath(b *Batch) *Batch {
	b.noFast = true
	return b
}

// DecodeShipmentFast decodes body with b's fast path; ok is false when the
// fast path gives up.
func DecodeShipmentFast(b *Batch, body []byte) (*wire.Shipment, bool) {
	return b.fast.decode(body)
}

// FastPathMembers lists, per object the shipment fast path decodes, the
// JSON names of the members it dispatches.
func FastPathMembers() map[string][]string {
	return map[string][]string{
		"shipment":    shipmentFields.names,
		"metadata":    metadataFields.names,
		"route":       routeFields.names,
		"route point": routePointFields.names,
		"pod":         podFields.names,
		"location":    locationFields.names,
		"coordinates": coordinatesFields.names,
		"facility":    facilityFields.names,
		"vessel":      vesselFields.names,
		"container":   containerFields.names,
		"event":       eventFields.names,
	}
}
