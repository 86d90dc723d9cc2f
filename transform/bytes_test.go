package transform_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// trackingResponse is a tracking response of shipment n with containers
// containers of events events each, all its own.
func trackingResponse(n, containers, events int, at time.Time) response.Landed {
	var cs []string
	for c := 0; c < containers; c++ {
		var es []string
		for e := 0; e < events; e++ {
			es = append(es, fmt.Sprintf(`{"location":{"name":"Port %d","locode":"DEP%02d"},"facility":{"name":"Terminal %d","smdgCode":"T%d"},
 "eventType":"TRANSPORT","eventCode":"ARRI","status":"VAD","date":"2026-03-%02dT%02d:00:00Z","isActual":false,
 "vessel":{"name":"VESSEL %d","imo":%d},"voyage":"V%dW"}`, e%40, e%40, e%40, e%40, 1+e%28, c%24, n%50, 9000000+n%50, n))
		}
		cs = append(cs, fmt.Sprintf(`{"number":"CONT%07d%02d","isoCode":"45G1","status":"IN_TRANSIT","events":[%s]}`, n, c, strings.Join(es, ",")))
	}
	body := fmt.Sprintf(`{"metadata":{"shipmentNumber":"SHIP%07d","shipmentType":"BL","sealine":"MSCU","sealineName":"MSC"},
 "route":{"pol":{"location":{"name":"Ningbo","locode":"CNNGB"},"date":"2026-02-01T00:00:00Z","actual":true},
 "pod":{"location":{"name":"Bremerhaven","locode":"DEBRV"},"date":"2026-03-05T14:00:00Z","actual":false,"predictiveEta":"2026-03-06T02:00:00Z"}},
 "containers":[%s]}`, n, strings.Join(cs, ","))
	return response.Landed{ID: fmt.Sprintf("r%07d", n), ObservedAt: at, Received: response.Received{Product: wire.ProductTracking, Endpoint: wire.EndpointShipment, Request: fmt.Sprintf("/container-tracking/api/v2/shipment?ais=false&route=true&shipmentNumber=SHIP%07d&shipmentType=BL", n), Status: 200, Body: []byte(body)}}
}

// liveHeap is the Go heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The sink loads a batch when Bytes says it holds enough: the estimate
// must follow what the batch really holds, whatever the mix of its rows
// (here: many small events, or the same shipments observed again).
func TestBytesFollowsTheBatchsMemory(t *testing.T) {
	slowtest.Long(t)
	for _, tc := range []struct {
		name                  string
		shipments, containers int
		events, observations  int
	}{
		{"distinct shipments", 1000, 2, 12, 1},
		{"few shipments observed again", 100, 4, 20, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := transform.NewBatch(memory.NewGoAllocator())
			before := liveHeap()
			for o := 0; o < tc.observations; o++ {
				for n := 0; n < tc.shipments; n++ {
					b.Add(trackingResponse(n, tc.containers, tc.events, t0.Add(time.Duration(o)*time.Hour)))
				}
			}
			held := liveHeap() - before
			est := int64(b.Bytes())
			t.Logf("est %d held %d rows %d", est, held, b.Rows())
			if est < held*2/3 || est > held*3/2 {
				t.Errorf("Bytes() = %d for %d rows holding %d bytes of heap: want within 2/3 and 3/2 of it", est, b.Rows(), held)
			}
			release(b.Records())
			if b.Bytes() != 0 {
				t.Errorf("Bytes() = %d after Records, want 0", b.Bytes())
			}
			runtime.KeepAlive(b)
		})
	}
}
