package wire_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/etalake/etalake/wire"
)

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/extract/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeShipmentEnvelopeNullsUnicodeAndUnknownFields(t *testing.T) {
	s, err := wire.DecodeShipment(readFixture(t, "shipment_envelope.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Metadata == nil || s.Metadata.ShipmentNumber != "MSCU1234566" || *s.Metadata.Sealine != "MSCU" {
		t.Fatalf("metadata = %+v", s.Metadata)
	}
	r := s.Route
	if r.Prepol != nil || r.Postpod != nil {
		t.Errorf("null prepol/postpod decoded as %v, %v", r.Prepol, r.Postpod)
	}
	if r.Pod.PredictiveETA != nil {
		t.Errorf("predictiveEta null decoded as %v", r.Pod.PredictiveETA)
	}
	if r.Pod.Actual == nil || *r.Pod.Actual {
		t.Errorf("pod.actual = %v, want false (present)", r.Pod.Actual)
	}
	if want := time.Date(2026, 3, 5, 14, 0, 0, 0, time.UTC); !r.Pod.Date.Equal(want) {
		t.Errorf("pod.date = %v, want %v", r.Pod.Date, want)
	}
	if r.Pod.Location.Coordinates.Lat != nil {
		t.Errorf("null lat decoded as %v", *r.Pod.Location.Coordinates.Lat)
	}
	if r.Pol.Location.State != nil {
		t.Errorf("null state decoded as %q", *r.Pol.Location.State)
	}
	ev := s.Containers[0].Events
	if ev[0].Facility != nil || ev[0].Vessel != nil || ev[0].Voyage != nil || ev[0].TransportType != nil {
		t.Errorf("null facility/vessel/voyage/transportType decoded as non-nil: %+v", ev[0])
	}
	if ev[1].Location.Name != "Thành phố Hồ Chí Minh" || ev[1].Vessel.Name != "MSC ÉLOISE" {
		t.Errorf("unicode not preserved: %q, %q", ev[1].Location.Name, ev[1].Vessel.Name)
	}
	if *ev[1].Vessel.IMO != 9321483 || ev[1].Facility.BICCode != nil || *ev[1].Facility.SMDGCode != "CLT" {
		t.Errorf("vessel/facility = %+v / %+v", ev[1].Vessel, ev[1].Facility)
	}
}

func TestDecodeShipmentBareObject(t *testing.T) {
	body := `{"route":{"pod":{"location":null,"date":"2026-03-05T14:00:00Z","actual":true,"predictiveEta":"2026-03-05T12:00:00Z"}},"containers":[]}`
	s, err := wire.DecodeShipment([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if s.Route.Pod.PredictiveETA == nil || s.Route.Pod.PredictiveETA.Hour() != 12 {
		t.Fatalf("predictiveEta = %v", s.Route.Pod.PredictiveETA)
	}
}

func TestDecodeRejectsWhatIsNotTheDocumentedShape(t *testing.T) {
	cases := []struct {
		name   string
		decode func([]byte) error
		body   string
	}{
		{"truncated shipment", func(b []byte) error { _, err := wire.DecodeShipment(b); return err }, `{"route":{"pod":{"date":"2026-03-0`},
		{"shipment without route or containers", func(b []byte) error { _, err := wire.DecodeShipment(b); return err }, `{"status":"ok"}`},
		{"shipment that is not an object", func(b []byte) error { _, err := wire.DecodeShipment(b); return err }, `[{"route":{}}]`},
		{"shipment envelope without a shipment", func(b []byte) error { _, err := wire.DecodeShipment(b); return err }, `{"containerDetails":{"data":{"x":1}}}`},
		{"port schedule without vesselSchedules", func(b []byte) error { _, err := wire.DecodePortSchedules(b); return err }, `{"location":{}}`},
		{"p2p without routes", func(b []byte) error { _, err := wire.DecodePointToPoints(b); return err }, `{"placeOfReceipt":{}}`},
		{"vessel schedule without calls", func(b []byte) error { _, err := wire.DecodeVesselSchedules(b); return err }, `{"vessel":{}}`},
		{"DCSA port schedules not an array of objects", func(b []byte) error { _, err := wire.DecodePortSchedules(b); return err }, `[1,`},
		{"period without credits", func(b []byte) error { _, err := wire.DecodeCurrentPeriod(b); return err }, `{"expired":false}`},
		{"periods as a string", func(b []byte) error { _, err := wire.DecodePeriods(b); return err }, `"none"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.decode([]byte(tc.body))
			if !errors.Is(err, wire.ErrDecode) {
				t.Fatalf("err = %v, want ErrDecode", err)
			}
		})
	}
}

func TestDecodeSchedules(t *testing.T) {
	port := `{"location":{"locode":"NLRTM","name":"Rotterdam"},"vesselSchedules":[{"carrierCode":"MAEU","carrierServiceCode":"AE7",
	  "vessel":{"name":"MAERSK ESSEN","imo":9321483},"carrierImportVoyageNumber":"345W","carrierExportVoyageNumber":"346E","facility":null,
	  "timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-03-01T06:00:00Z"},
	                {"eventTypeCode":"ARRI","eventClassifierCode":"ACT","eventDateTime":"2026-03-02T07:30:00Z"}]}]}`
	pss, err := wire.DecodePortSchedules([]byte(port))
	if err != nil || len(pss.Items) != 1 || len(pss.Bad) != 0 {
		t.Fatal(pss, err)
	}
	vs := pss.Items[0].VesselSchedules[0]
	if vs.CarrierCode != "MAEU" || *vs.CarrierImportVoyageNumber != "345W" || vs.Facility != nil || len(vs.Timestamps) != 2 || vs.Timestamps[1].EventClassifierCode != "ACT" {
		t.Fatalf("port schedule = %+v", vs)
	}
	p2p := `{"placeOfReceipt":{"locode":"CNSHA"},"placeOfDelivery":{"locode":"NLRTM"},"routes":[{"carrierCode":"CMDU","transitTime":31,
	  "legs":[{"sequenceNumber":1,"vessel":{"name":"CMA CGM X","imo":9321483},"carrierServiceCode":"FAL1","carrierVoyageNumber":"0FAL5W1MA",
	  "departure":{"location":{"locode":"CNSHA"},"facility":null,"dateTime":"2026-03-01T06:00:00Z","eventClassifierCode":"PLN"},
	  "arrival":{"location":{"locode":"NLRTM"},"facility":null,"dateTime":"2026-04-01T06:00:00Z","eventClassifierCode":"EST"}}]}]}`
	pps, err := wire.DecodePointToPoints([]byte(p2p))
	if err != nil || len(pps.Items) != 1 {
		t.Fatal(pps, err)
	}
	pp := pps.Items[0]
	if leg := pp.Routes[0].Legs[0]; *pp.Routes[0].TransitTime != 31 || leg.Arrival.EventClassifierCode != "EST" || leg.Departure.Location.Locode != "CNSHA" {
		t.Fatalf("p2p = %+v", pp.Routes[0])
	}
	vessel := `{"vessel":{"name":"MSC X","imo":9321483},"carrierCode":"MSCU","carrierServiceCode":"SWAN","transportCalls":[{"sequenceNumber":1,
	  "location":{"locode":"SGSIN"},"facility":null,"carrierImportVoyageNumber":"FL512W","carrierExportVoyageNumber":"FL513E","timestamps":[]}]}`
	vvs, err := wire.DecodeVesselSchedules([]byte(vessel))
	if err != nil || len(vvs.Items) != 1 {
		t.Fatal(vvs, err)
	}
	vv := vvs.Items[0]
	if vv.CarrierCode != "MSCU" || vv.TransportCalls[0].Location.Locode != "SGSIN" {
		t.Fatalf("vessel schedule = %+v", vv)
	}
}

func TestDecodeConsumptionIsLenient(t *testing.T) {
	cases := []struct{ name, body string }{
		{"spec names, numbers", `{"creditsInitial":500,"credits":377,"periodStart":"2026-11-01T00:00:00Z","periodEnd":"2026-12-01T00:00:00Z","expired":false}`},
		{"strings and dates", `{"creditsInitial":"500","credits":"377","periodStart":"2026-11-01","periodEnd":"2026-12-01","expired":"false"}`},
		{"snake case, epoch millis, 0/1", `{"credits_initial":500.0,"CREDITS":377,"period_start":1793491200000,"period_end":1796083200,"expired":0,"plan":"pro"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := wire.DecodeCurrentPeriod([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if used, ok := p.Used(); !ok || used != 123 {
				t.Errorf("used = %d, %v; want 123", used, ok)
			}
			if p.PeriodStart.Format(time.DateOnly) != "2026-11-01" || p.PeriodEnd.Format(time.DateOnly) != "2026-12-01" {
				t.Errorf("period = %v … %v", p.PeriodStart, p.PeriodEnd)
			}
			if p.Expired == nil || *p.Expired {
				t.Errorf("expired = %v, want false", p.Expired)
			}
		})
	}
}

func TestDecodePeriodsShapes(t *testing.T) {
	older := `{"creditsInitial":500,"credits":20,"periodStart":"2026-10-01T00:00:00Z","periodEnd":"2026-11-01T00:00:00Z","expired":true}`
	newer := `{"creditsInitial":500,"credits":377,"periodStart":"2026-11-01T00:00:00Z","periodEnd":"2026-12-01T00:00:00Z","expired":false}`
	for _, body := range []string{
		"[" + newer + "," + older + "]",
		`{"total":2,"periods":[` + older + "," + newer + "]}",
		`{"data":[` + newer + "," + older + "]}",
	} {
		ps, err := wire.DecodePeriods([]byte(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if len(ps) != 2 || *ps[0].Credits != 20 || *ps[1].Credits != 377 {
			t.Fatalf("%s: periods not oldest first: %+v", body, ps)
		}
	}
	// Among several arrays, the one of periods; an error body is no period.
	mixed := `{"details":[],"notes":["x"],"periods":[` + older + `]}`
	if ps, err := wire.DecodePeriods([]byte(mixed)); err != nil || len(ps) != 1 || *ps[0].Credits != 20 {
		t.Fatalf("mixed arrays: %+v, %v", ps, err)
	}
	if ps, err := wire.DecodePeriods([]byte(`{"periods":[]}`)); err != nil || len(ps) != 0 {
		t.Fatalf("no period yet: %+v, %v", ps, err)
	}
	if _, err := wire.DecodePeriods([]byte(`{"errorCode":500,"message":"x","details":[],"time":"2026-01-01T00:00:00Z"}`)); !errors.Is(err, wire.ErrDecode) {
		t.Fatalf("error body: %v", err)
	}
	single, err := wire.DecodePeriods([]byte(newer))
	if err != nil || len(single) != 1 {
		t.Fatalf("single period: %v, %v", single, err)
	}
}

func TestConsumptionPeriodEncodesCanonically(t *testing.T) {
	p, err := wire.DecodeCurrentPeriod([]byte(`{"creditsInitial":"3","credits":"1","periodStart":"2026-11-01","expired":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	want := `{"creditsInitial":3,"credits":1,"periodStart":"2026-11-01T00:00:00Z","periodEnd":null,"expired":true}`
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}
