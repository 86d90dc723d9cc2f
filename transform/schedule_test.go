package transform_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// Codes as providers send them, in any case: "eventTypeCode … enum: ARRI,
// DEPA" and "eventClassifierCode … enum: PLN, EST, ACT" (DCSA Commercial
// Schedules 1.0, Timestamp) load as the standard spells them, the carrier
// and the port upper case; a classifier that is none of the standard's
// is dead-lettered rather than loaded under a value no view counts.
func TestLowerCaseScheduleCodesLoadUpperCase(t *testing.T) {
	port := `{"location":{"locode":"nlrtm"},"vesselSchedules":[{"carrierCode":" maeu","vessel":{"imo":9832614},
	  "carrierImportVoyageNumber":"345W","carrierExportVoyageNumber":"346E","timestamps":[
	  {"eventTypeCode":"arri","eventClassifierCode":"pln","eventDateTime":"2026-03-01T06:00:00Z"},
	  {"eventTypeCode":"Arri","eventClassifierCode":" act ","eventDateTime":"2026-03-01T09:00:00Z"},
	  {"eventTypeCode":"depa","eventClassifierCode":"est","eventDateTime":"2026-03-02T18:00:00Z"},
	  {"eventTypeCode":"arri","eventClassifierCode":"planned","eventDateTime":"2026-03-01T06:00:00Z"}]}]}`
	p2p := `{"placeOfReceipt":{"locode":"CNSHA"},"placeOfDelivery":{"locode":"NLRTM"},"routes":[{"carrierCode":"cmdu","legs":[
	  {"vessel":{"imo":9839179},"carrierVoyageNumber":"0FAL5W1MA",
	   "departure":{"location":{"locode":"cnsha"},"dateTime":"2026-02-05T12:00:00Z","eventClassifierCode":"pln"},
	   "arrival":{"location":{"locode":"NLRTM"},"dateTime":"2026-03-08T06:00:00Z","eventClassifierCode":"Est"}}]}]}`
	for _, tc := range []struct {
		endpoint     wire.Endpoint
		request      string
		body         string
		rows, letter []string
	}{
		{wire.EndpointPortSchedule, "/schedule/api/v1/schedule/NLRTM", port,
			[]string{`"port_locode":"NLRTM","vessel_imo":9832614,"voyage":"345W","event_type_code":"ARRI","classifier":"PLN"`,
				`"event_type_code":"ARRI","classifier":"ACT"`, `"voyage":"346E","event_type_code":"DEPA","classifier":"EST"`, `"carrier":"MAEU"`},
			[]string{`"record":"vesselSchedules[0].timestamps[3]","reason":"timestamp with eventClassifierCode \"planned\": want PLN, EST or ACT"`}},
		{wire.EndpointP2PSchedule, "/schedule/api/v1/schedule/CNSHA/NLRTM", p2p,
			[]string{`"port_locode":"CNSHA","vessel_imo":9839179,"voyage":"0FAL5W1MA","event_type_code":"DEPA","classifier":"PLN"`,
				`"port_locode":"NLRTM","vessel_imo":9839179,"voyage":"0FAL5W1MA","event_type_code":"ARRI","classifier":"EST"`, `"carrier":"CMDU"`},
			nil},
	} {
		res, tables := transformOne(t, response.Landed{ID: "r", ObservedAt: t0, Received: response.Received{Product: wire.ProductSchedule, Endpoint: tc.endpoint, Request: tc.request, Status: 200, Body: []byte(tc.body)}})
		if res.DeadLetters != len(tc.letter) {
			t.Errorf("%s: %d dead letters, want %d: %s", tc.endpoint, res.DeadLetters, len(tc.letter), dump(tables))
		}
		for _, want := range tc.rows {
			mustContain(t, tables, "port_calls", want)
		}
		for _, want := range tc.letter {
			mustContain(t, tables, "dead_letters", want)
		}
	}
}

// The views count what port_calls holds by its codes (classifier = 'PLN',
// event_type_code = 'ARRI'): every schedule of testdata/transform, of
// either profile, lowercase or not, loads its codes as DCSA spells them
// (Timestamp: "eventTypeCode … enum: ARRI, DEPA", "eventClassifierCode …
// enum: PLN, EST, ACT"), and its ports and carriers upper case.
func TestScheduleCodesLoadUpperCase(t *testing.T) {
	n := 0
	for _, c := range loadCases(t) {
		switch c.resp.Endpoint {
		case wire.EndpointPortSchedule, wire.EndpointP2PSchedule, wire.EndpointVesselSchedule:
		default:
			continue
		}
		_, tables := transformOne(t, c.resp)
		if tables["port_calls"] == nil {
			continue
		}
		for _, row := range tables["port_calls"].rows {
			var r struct {
				Port       string `json:"port_locode"`
				Type       string `json:"event_type_code"`
				Classifier string `json:"classifier"`
				Carrier    string `json:"carrier"`
				Facility   string `json:"facility_key"`
			}
			if err := json.Unmarshal([]byte(row), &r); err != nil {
				t.Fatal(err)
			}
			n++
			if (r.Type != "ARRI" && r.Type != "DEPA") || (r.Classifier != "PLN" && r.Classifier != "EST" && r.Classifier != "ACT") {
				t.Errorf("%s: codes %q %q", c.name, r.Type, r.Classifier)
			}
			for _, code := range []string{r.Port, r.Carrier, r.Facility} {
				if code != strings.ToUpper(strings.TrimSpace(code)) {
					t.Errorf("%s: %q is not upper case: %s", c.name, code, row)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no port_calls row in the cases")
	}
}
