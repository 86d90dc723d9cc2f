package transform_test

import (
	"reflect"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// FuzzShipmentFastPath holds the shipment fast path to the wire decoder on
// arbitrary input: when it decodes a body, wire.DecodeShipment decodes it
// to an equal value, and a batch with the fast path yields exactly the rows
// of a batch without it (also when the body is overwritten after Add: the
// batch keeps no view of it).
func FuzzShipmentFastPath(f *testing.F) {
	seedBodies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		mem := checked(t)
		probe := transform.NewBatch(mem)
		fast, ok := transform.DecodeShipmentFast(probe, body)
		slow, err := wire.DecodeShipment(body)
		if ok {
			if err != nil {
				t.Fatalf("fast path decodes what wire.DecodeShipment refuses (%v)", err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fast path decodes\n%#v\nwire.DecodeShipment\n%#v", fast, slow)
			}
		}
		probe.Release()
		for _, req := range fuzzRequests[:2] {
			r := response.Landed{ID: "r", ObservedAt: t0, Received: response.Received{Product: req.product, Endpoint: req.endpoint, Request: req.request, Status: 200, Body: body}}
			want := batchRows(t, transform.WithoutFastPath(transform.NewBatch(mem)), r)
			got := batchRows(t, transform.NewBatch(mem), r)
			if got != want {
				t.Fatalf("fast path rows differ:\n%s", lineDiff(got, want))
			}
		}
	})
}

// batchRows adds r twice (the second time from memos) to b, overwrites its
// body, and renders the records.
func batchRows(t *testing.T, b *transform.Batch, r response.Landed) string {
	t.Helper()
	defer b.Release()
	r.Body = append([]byte(nil), r.Body...)
	b.Add(r)
	r.ID = "r2"
	b.Add(r)
	for i := range r.Body {
		r.Body[i] = 'X'
	}
	recs := b.Records()
	defer release(recs)
	return dump(render(t, recs))
}

// TestFastPathTakesTheSimulatorBodies checks that the fast path does not
// give up on what the service really sends.
func TestFastPathTakesTheSimulatorBodies(t *testing.T) {
	slowtest.Long(t)
	rs, _ := simShipments(t)
	b := transform.NewBatch(checked(t))
	defer b.Release()
	for _, r := range rs[:300] {
		if _, ok := transform.DecodeShipmentFast(b, r.Body); !ok {
			t.Fatalf("fast path gives up on %s", r.ID)
		}
	}
	for _, c := range loadCases(t) {
		if c.resp.Endpoint != wire.EndpointShipment {
			continue
		}
		_, ok := transform.DecodeShipmentFast(b, c.resp.Body)
		switch {
		case slowPathCases[c.name] && ok:
			t.Errorf("fast path takes case %s: its golden rows do not test the wire decoder", c.name)
		case !slowPathCases[c.name] && !ok:
			t.Errorf("fast path gives up on case %s", c.name)
		}
	}
}

// slowPathCases are the tracking cases of testdata/transform the fast path
// gives up on, so that wire.DecodeShipment derives them: bodies that are
// not a shipment, and shapes beyond the contract.
var slowPathCases = map[string]bool{
	"shipment_truncated":     true,
	"shipment_not_object":    true,
	"shipment_vendor_shapes": true, // containerDetails, naive dates, an IMO as a string
	"shipment_one_bad_event": true, // a date that does not read
}
