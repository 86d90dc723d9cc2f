package transform_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// fuzzRequests are a request of every endpoint, as the client sends them.
var fuzzRequests = []struct {
	endpoint wire.Endpoint
	product  wire.Product
	request  string
}{
	{wire.EndpointShipment, wire.ProductTracking, "/container-tracking/api/v2/shipment?ais=false&route=true&shipmentNumber=MSCU1234566&shipmentType=CT"},
	{wire.EndpointShipment, wire.ProductTracking, "/container-tracking/api/v2/shipment"},
	{wire.EndpointPortSchedule, wire.ProductSchedule, "/schedule/api/v1/schedule/NLRTM"},
	{wire.EndpointP2PSchedule, wire.ProductSchedule, "/schedule/api/v1/schedule/CNSHA/NLRTM"},
	{wire.EndpointVesselSchedule, wire.ProductSchedule, "/schedule/api/v1/schedule/vessel/9321483"},
	{wire.EndpointCurrentPeriod, wire.ProductSchedule, "/schedule/api/v1/consumption/current-period"},
	{wire.EndpointPeriods, wire.ProductTracking, "/container-tracking/api/v2/consumption/periods"},
}

// seedBodies adds every body of testdata/transform and testdata/extract.
func seedBodies(f *testing.F) {
	for _, pattern := range []string{"../testdata/transform/*/body.*", "../testdata/extract/*.json"} {
		paths, _ := filepath.Glob(pattern)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	for _, s := range []string{``, `null`, `{}`, `[]`, `{"data":null}`, `{"data":{"containers":null}}`,
		`{"containers":[null,{"number":"X","events":[null,{"eventType":"A","eventCode":"B"}]}]}`,
		"{\"periodstArt\":\"\xa9\"}",
		// Shapes beyond the contract the wire decoder reads (issue 20).
		`{"containerDetails":{"metadata":{"shipmentNumber":"emcu-859389 3","shipmentType":"ct"},"containers":[]}}`,
		`{"data":{"containerDetails":{"route":{"pod":{"location":{"locode":"nlrtm","timezone":"Europe/Amsterdam"},"date":"2024-01-25 06:00:00","predictiveEta":"2024-01-25T09:30"}}}}}`,
		`{"containers":[{"number":"EMCU 859389 3","events":[{"status":"cll","location":{"locode":"CNSHA","timezone":"Asia/Shanghai"},"date":"2023-12-31T05:39:00","isActual":null,"vessel":{"imo":"9321483","mmsi":"219018271"}}]}]}`,
		`{"containers":[{"number":"X","events":[{"eventCode":"load","eventType":"equipment","routeType":"sea","transportType":"vessel","date":"2021-01-13 01:57:00"},{"eventCode":"LOAD","date":"13/01/2021"},{"status":"XYZ"},{"description":"only"}]}]}`,
		`{"route":{"pol":{"date":"2026-02-01T08:00:00+0800"},"pod":5},"containers":[{"number":{"x":1}},"y",{"number":"Z","events":{}}]}`,
		`{"metadata":{"updatedAt":"soon"},"containers":[{"number":"X","events":[{"eventCode":"ARRI","vessel":{"imo":true}},{"eventCode":"ARRI","vessel":{"imo":9.5,"mmsi":"TBN"}}]}]}`,
	} {
		f.Add([]byte(s))
	}
}

// FuzzTransform feeds arbitrary bodies to every endpoint: no panic, every
// record valid and of its table's schema, and a whole-body dead letter
// comes with no other row of the response.
func FuzzTransform(f *testing.F) {
	seedBodies(f)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		mem := checked(t)
		for _, req := range fuzzRequests {
			b := transform.NewBatch(mem)
			res := b.Add(response.Landed{ID: "r", ObservedAt: at, Received: response.Received{Product: req.product, Endpoint: req.endpoint, Request: req.request, Status: 200, Body: body}})
			recs := b.Records()
			defer release(recs)
			defer b.Release()
			checkRecords(t, recs)
			whole := false
			for _, r := range recs {
				if r.Table == schema.DeadLetters {
					records := r.Rec.Column(1).(*array.String)
					for i := 0; i < records.Len(); i++ {
						whole = whole || records.Value(i) == ""
					}
				}
			}
			if whole && (len(recs) != 1 || recs[0].Rec.NumRows() != 1) {
				t.Errorf("%s: a whole-body dead letter with other rows (%d records)", req.endpoint, len(recs))
			}
			n := res.DeadLetters
			for _, v := range res.Rows {
				n += v
			}
			total := 0
			for _, r := range recs {
				total += int(r.Rec.NumRows())
			}
			if n != total {
				t.Errorf("%s: the result counts %d rows, the records hold %d", req.endpoint, n, total)
			}
		}
	})
}

// FuzzIdentify: no panic, and an identified body's request parses as a
// path of its product with the endpoint's path.
func FuzzIdentify(f *testing.F) {
	seedBodies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		id, err := transform.Identify(body)
		if err != nil {
			return
		}
		u, perr := url.ParseRequestURI(id.Request)
		if perr != nil {
			t.Fatalf("request %q does not parse: %v", id.Request, perr)
		}
		base := wire.ScheduleBasePath
		if id.Product == wire.ProductTracking {
			base = wire.TrackingBasePath
		}
		if !strings.HasPrefix(u.EscapedPath(), base+"/") || id.Endpoint == "" {
			t.Fatalf("identity %+v: request outside its product", id)
		}
		if id.Endpoint == wire.EndpointShipment && u.Query().Get("shipmentNumber") == "" {
			t.Fatalf("shipment request %q without shipmentNumber", id.Request)
		}
	})
}
