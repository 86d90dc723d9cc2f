package transform_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

func TestIdentify(t *testing.T) {
	envelope, err := os.ReadFile("../testdata/extract/shipment_envelope.json")
	if err != nil {
		t.Fatal(err)
	}
	const (
		tracking = wire.ProductTracking
		schedule = wire.ProductSchedule
	)
	cases := []struct {
		name     string
		body     string
		product  wire.Product
		endpoint wire.Endpoint
		request  string
		err      string // a fragment of the error, when one is wanted
	}{
		{name: "shipment envelope", body: string(envelope), product: tracking, endpoint: wire.EndpointShipment,
			request: "/container-tracking/api/v2/shipment?ais=false&route=true&sealine=MSCU&shipmentNumber=MSCU1234566&shipmentType=CT"},
		{name: "bare shipment with metadata", product: tracking, endpoint: wire.EndpointShipment,
			body:    `{"metadata":{"shipmentType":"BL","shipmentNumber":"MEDU AB/12&3","sealine":null},"route":{"pod":null},"containers":[]}`,
			request: "/container-tracking/api/v2/shipment?ais=false&route=true&shipmentNumber=MEDU+AB%2F12%263&shipmentType=BL"},
		{name: "shipment without type", product: tracking, endpoint: wire.EndpointShipment,
			body:    `{"metadata":{"shipmentNumber":"MAEU123456789","sealine":"MAEU"},"containers":[{"number":"MSKU1234565"}]}`,
			request: "/container-tracking/api/v2/shipment?ais=false&route=true&sealine=MAEU&shipmentNumber=MAEU123456789&shipmentType=CT"},
		{name: "shipment without metadata: first container", product: tracking, endpoint: wire.EndpointShipment,
			body:    `{"data":{"route":null,"containers":[{"number":""},{"number":"MSKU1234565"},{"number":"MSKU7654321"}]}}`,
			request: "/container-tracking/api/v2/shipment?ais=false&route=true&shipmentNumber=MSKU1234565&shipmentType=CT"},
		{name: "webhook envelope, number with a separator", product: tracking, endpoint: wire.EndpointShipment,
			body:    `{"containerDetails":{"metadata":{"shipmentType":"ct","shipmentNumber":"EMCU-8593893","sealine":"maeu"},"containers":[]}}`,
			request: "/container-tracking/api/v2/shipment?ais=false&route=true&sealine=MAEU&shipmentNumber=EMCU8593893&shipmentType=CT"},
		{name: "webhook envelope in data, first container written with spaces", product: tracking, endpoint: wire.EndpointShipment,
			body:    `{"data":{"containerDetails":{"containers":[{"number":"emcu 859389 3","events":[{"date":"2023-12-31T05:39:00"}]}]}}}`,
			request: "/container-tracking/api/v2/shipment?ais=false&route=true&shipmentNumber=EMCU8593893&shipmentType=CT"},
		{name: "shipment without any number", body: `{"route":{"pod":null},"containers":[]}`,
			err: "without metadata.shipmentNumber or a container number"},
		{name: "port schedule", product: schedule, endpoint: wire.EndpointPortSchedule,
			body:    `{"location":{"name":"Rotterdam","locode":"NLRTM"},"vesselSchedules":[]}`,
			request: "/schedule/api/v1/schedule/NLRTM"},
		{name: "port schedule with an odd locode", product: schedule, endpoint: wire.EndpointPortSchedule,
			body:    `{"location":{"locode":"A B/C"},"vesselSchedules":[]}`,
			request: "/schedule/api/v1/schedule/A%20B%2FC"},
		{name: "port schedule without locode", body: `{"location":{"name":"Rotterdam"},"vesselSchedules":[]}`,
			err: "names no port"},
		{name: "port to port", product: schedule, endpoint: wire.EndpointP2PSchedule,
			body:    `{"placeOfReceipt":{"locode":"CNSHA"},"placeOfDelivery":{"locode":"NLRTM"},"routes":[]}`,
			request: "/schedule/api/v1/schedule/CNSHA/NLRTM"},
		{name: "port to port without delivery", body: `{"placeOfReceipt":{"locode":"CNSHA"},"routes":[]}`,
			err: "names no place of receipt and place of delivery"},
		{name: "vessel schedule", product: schedule, endpoint: wire.EndpointVesselSchedule,
			body:    `{"vessel":{"name":"MSC ÉLOISE","imo":9321483},"carrierCode":"MSCU","transportCalls":[]}`,
			request: "/schedule/api/v1/schedule/vessel/9321483"},
		{name: "vessel schedule without imo", body: `{"vessel":{"name":"X"},"transportCalls":[]}`,
			err: "names no vessel"},
		{name: "port schedule with a lower-case locode", product: schedule, endpoint: wire.EndpointPortSchedule,
			body:    `{"location":{"locode":" nlrtm"},"vesselSchedules":[]}`,
			request: "/schedule/api/v1/schedule/NLRTM"},
		{name: "vessel schedule with an IMO-prefixed number", product: schedule, endpoint: wire.EndpointVesselSchedule,
			body:    `{"vessel":{"imo":"IMO 9321483"},"transportCalls":[]}`,
			request: "/schedule/api/v1/schedule/vessel/9321483"},
		// DCSA answers are arrays; one item sent bare is identified as
		// the array of it would be, and told from the service profile's
		// objects by the members in which they differ.
		{name: "DCSA port schedule sent bare", product: schedule, endpoint: wire.EndpointPortSchedule,
			body:    `{"location":{"locationName":"Port of Amsterdam","UNLocationCode":"nlams"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU"}],"isDummyVessel":false,"timestamps":[]}]}`,
			request: "/schedule/api/v1/schedule/NLAMS"},
		{name: "DCSA service schedule sent bare", product: schedule, endpoint: wire.EndpointVesselSchedule,
			body:    `{"carrierServiceName":"Great Lion Service","carrierServiceCode":"FE1","vesselSchedules":[{"vessel":{"vesselIMONumber":"IMO9321483"},"isDummyVessel":false,"transportCalls":[]}]}`,
			request: "/schedule/api/v1/schedule/vessel/9321483"},
		{name: "DCSA routing sent bare", product: schedule, endpoint: wire.EndpointP2PSchedule,
			body:    `{"placeOfReceipt":{"location":{"UNLocationCode":"NLAMS"}},"placeOfDelivery":{"location":{"UNLocationCode":"sgsin"}},"transitTime":37,"legs":[]}`,
			request: "/schedule/api/v1/schedule/NLAMS/SGSIN"},
		{name: "DCSA vessel schedules with an 8-digit IMO number", product: schedule, endpoint: wire.EndpointVesselSchedule,
			body:    `[{"carrierServiceName":"Rhine Feeder","carrierServiceCode":"RF1","vesselSchedules":[{"vessel":{"vesselIMONumber":"23162713"},"isDummyVessel":false,"transportCalls":[]}]}]`,
			request: "/schedule/api/v1/schedule/vessel/23162713"},
		{name: "DCSA routing sent bare without its places", body: `{"placeOfReceipt":{"location":{"UNLocationCode":"NLAMS"}},"legs":[]}`,
			err: "names no place of receipt and place of delivery"},
		{name: "current period", product: schedule, endpoint: wire.EndpointCurrentPeriod,
			body:    `{"creditsInitial":1000,"credits":842,"periodStart":"2026-02-01T00:00:00Z","periodEnd":"2026-03-01T00:00:00Z","expired":false}`,
			request: "/schedule/api/v1/consumption/current-period"},
		{name: "current period, lenient names", product: schedule, endpoint: wire.EndpointCurrentPeriod,
			body:    `{"credits_initial":"1000"}`,
			request: "/schedule/api/v1/consumption/current-period"},
		{name: "periods array", product: schedule, endpoint: wire.EndpointPeriods,
			body:    ` [{"credits":1,"periodStart":"2026-01-01"},{"creditsInitial":5}] `,
			request: "/schedule/api/v1/consumption/periods"},
		{name: "empty periods array", product: schedule, endpoint: wire.EndpointPeriods, body: `[]`,
			request: "/schedule/api/v1/consumption/periods"},
		{name: "periods under a member", product: schedule, endpoint: wire.EndpointPeriods,
			body:    `{"page":1,"items":[{"credits":1},{"credits":2}]}`,
			request: "/schedule/api/v1/consumption/periods"},
		{name: "empty periods member", product: schedule, endpoint: wire.EndpointPeriods,
			body:    `{"periods":[]}`,
			request: "/schedule/api/v1/consumption/periods"},
		{name: "error body", body: `{"errorCode":404,"message":"no data found","details":[],"time":"2026-02-01T00:00:00Z"}`,
			err: "an error response (errorCode 404"},
		{name: "array of something else", body: `[{"a":1}]`, err: "no array of consumption periods"},
		{name: "unknown object", body: `{"port":"NLRTM","waiting":3}`, err: "looked for a shipment"},
		{name: "string", body: `"hello"`, err: "a JSON string"},
		{name: "invalid JSON", body: `{"route":`, err: "not valid JSON"},
		{name: "empty", body: ``, err: "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, err := transform.Identify([]byte(c.body))
			if c.err != "" {
				if err == nil || !errors.Is(err, transform.ErrUnidentified) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Identify = %+v, %v; want an ErrUnidentified error containing %q", id, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := transform.Identity{Product: c.product, Endpoint: c.endpoint, Request: c.request}
			if id != want {
				t.Errorf("Identify = %+v\nwant       %+v", id, want)
			}
			if _, err := url.ParseRequestURI(id.Request); err != nil {
				t.Errorf("request %q does not parse: %v", id.Request, err)
			}
		})
	}
}

// TestIdentifyMatchesTheClient fetches one body of every kind from the
// simulator with the real client and checks that Identify rebuilds exactly
// the request the client sent.
func TestIdentifyMatchesTheClient(t *testing.T) {
	env := simtest.Start(t, simtest.Options{})
	cfg := env.Config(t, "test")
	c, err := extract.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := env.Service.World()
	at := sim.DefaultStart
	var bl wire.ShipmentRef
	for _, ref := range w.Shipments() {
		if _, err := w.Shipment(ref, at); err == nil && ref.Type == wire.ShipmentBillOfLading {
			bl = ref
			break
		}
	}
	ct := simtest.Shipment(t, w, at)
	lane := w.Lanes()[0]
	calls := []extract.Responses{
		c.Shipment(ctx, bl),
		c.Shipment(ctx, ct),
		c.PortSchedule(ctx, simtest.Port(t, w, at)),
		c.PointToPoint(ctx, lane.POL, lane.POD, extract.P2POptions{}),
		c.VesselSchedule(ctx, simtest.Vessel(t, w, at)),
		c.CurrentPeriod(ctx, wire.ProductSchedule),
		c.Periods(ctx, wire.ProductSchedule),
	}
	var raws []*response.Received
	for i, call := range calls {
		for raw, err := range call {
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			raws = append(raws, raw)
		}
	}
	if len(raws) != len(calls) {
		t.Fatalf("%d responses for %d calls", len(raws), len(calls))
	}
	for _, raw := range raws {
		id, err := transform.Identify(raw.Body)
		if err != nil {
			t.Errorf("%s: %v", raw.Request, err)
			continue
		}
		want := transform.Identity{Product: raw.Product, Endpoint: raw.Endpoint, Request: raw.Request}
		if id != want {
			t.Errorf("Identify = %+v\nthe client sent %+v", id, want)
		}
	}
}
