package transform_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// simShipments are the tracking responses of every shipment of the default
// world at several times, as the simulator serves them, with the number of
// container events they hold.
func simShipments(tb testing.TB) (rs []response.Landed, events int) {
	tb.Helper()
	w := sim.NewWorld(sim.WorldConfig{Seed: 1})
	for day := 0; day < 30; day += 6 {
		at := sim.DefaultStart.Add(time.Duration(day)*24*time.Hour + 7*time.Hour)
		for _, ref := range w.Shipments() {
			s, err := w.Shipment(ref, at)
			if err != nil {
				continue
			}
			body, err := json.Marshal(s)
			if err != nil {
				tb.Fatal(err)
			}
			for _, c := range s.Containers {
				events += len(c.Events)
			}
			rs = append(rs, response.Landed{ID: ref.String() + "@" + at.Format(time.RFC3339), ObservedAt: at, Received: response.Received{Product: wire.ProductTracking, Endpoint: wire.EndpointShipment, Request: wire.TrackingBasePath + "/shipment?" +
				wire.ShipmentQuery(ref.Number, string(ref.Type), ref.Sealine).Encode(), Status: 200, Body: body}})
		}
	}
	return rs, events
}

// flushRows is when the benchmark takes the records, as a loader would.
const flushRows = 1 << 16

// BenchmarkTransform transforms the tracking responses of a simulated
// world (every shipment at five times), taking the records whenever the
// batch holds flushRows rows, as the loader does. events/s counts the
// container events of the bodies. The wire-decoders run decodes every body
// with wire.DecodeShipment: the baseline of the fast path, in the same run.
func BenchmarkTransform(b *testing.B) {
	rs, events := simShipments(b)
	size := 0
	for _, r := range rs {
		size += len(r.Body)
	}
	b.Logf("%d responses, %d events, %d bytes", len(rs), events, size)
	for _, bench := range []struct {
		name  string
		batch func(memory.Allocator) *transform.Batch
	}{
		{"fast-path", transform.NewBatch},
		{"wire-decoders", func(mem memory.Allocator) *transform.Batch {
			return transform.WithoutFastPath(transform.NewBatch(mem))
		}},
	} {
		b.Run(bench.name, func(b *testing.B) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(b, 0)
			batch := bench.batch(mem)
			defer batch.Release()
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, r := range rs {
					batch.Add(r)
					if batch.Rows() >= flushRows {
						release(batch.Records())
					}
				}
				release(batch.Records())
			}
			b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
