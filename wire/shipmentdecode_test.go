package wire_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/wire"
)

// bad renders the elements a decode left out, one "path: reason" a line.
func bad(s *wire.Shipment) string {
	var lines []string
	for _, e := range s.Bad {
		lines = append(lines, e.Path+": "+e.Err.Error())
	}
	return strings.Join(lines, "\n")
}

func decode(t *testing.T, body string) *wire.Shipment {
	t.Helper()
	s, err := wire.DecodeShipment([]byte(body))
	if err != nil {
		t.Fatalf("DecodeShipment: %v", err)
	}
	return s
}

// An element that does not decode is left out alone, named by the path of
// what failed in it, and its siblings decode: the route's other members,
// the container's other events, the other containers.
func TestDecodeShipmentLeavesOutOnlyWhatFails(t *testing.T) {
	s := decode(t, `{
	  "metadata": {"shipmentNumber": "MSCU1234566", "updatedAt": "last tuesday"},
	  "route": {"pol": {"date": "2026-02-01T08:00:00Z"}, "pod": {"date": "2026-03-05T14:00:00Z", "predictiveEta": 5}, "postpod": []},
	  "containers": [
	    {"number": "MSCU1234566", "events": [
	      {"eventCode": "GTOT", "date": "2026-01-28T10:30:00Z"},
	      {"eventCode": "LOAD", "date": "31/12/2023"},
	      {"eventCode": "DEPA", "vessel": {"imo": true}},
	      {"eventCode": "ARRI", "description": 7},
	      null,
	      {"eventCode": "DISC", "isActual": "yes"},
	      {"eventCode": "GTIN"}
	    ]},
	    "MSCU7654321",
	    {"number": {"x": 1}},
	    {"number": "TGHU1234560", "events": {}}
	  ]}`)
	want := strings.Join([]string{
		`metadata.updatedAt: "last tuesday" is not a date-time: want RFC 3339 (2026-03-01T06:00:00Z) or a date and time without an offset (2026-03-01T06:00:00, 2026-03-01 06:00:00); updatedAt is left out`,
		`route.postpod: a JSON array where an object is wanted; route.postpod is left out`,
		`route.pod.predictiveEta: a JSON number where a date-time string is wanted; route.pod is left out`,
		`containers[0].events[1].date: "31/12/2023" is not a date-time: want RFC 3339 (2026-03-01T06:00:00Z) or a date and time without an offset (2026-03-01T06:00:00, 2026-03-01 06:00:00); the event is left out`,
		`containers[0].events[2].vessel.imo: a JSON boolean where a number is wanted; the event is left out`,
		`containers[0].events[3].description: a JSON number where a string is wanted; the event is left out`,
		`containers[0].events[5].isActual: a JSON string where true or false is wanted; the event is left out`,
		`containers[1]: a JSON string where an object is wanted; the container is left out`,
		`containers[2].number: a JSON object where a string is wanted; the container is left out`,
		`containers[3].events: a JSON object where an array is wanted; every event of the container is left out`,
	}, "\n")
	if got := bad(s); got != want {
		t.Errorf("left out:\n%s\nwant:\n%s", got, want)
	}
	if s.Metadata == nil || s.Metadata.ShipmentNumber != "MSCU1234566" || s.Metadata.UpdatedAt != nil {
		t.Errorf("metadata = %+v, want its number without updatedAt", s.Metadata)
	}
	if s.Route.Pol == nil || s.Route.Pol.Date == nil || s.Route.Pod != nil || s.Route.Postpod != nil {
		t.Errorf("route = %+v, want pol only", s.Route)
	}
	var got []string
	for _, c := range s.Containers {
		for _, e := range c.Events {
			got = append(got, fmt.Sprintf("containers[%d].events[%d] %s", c.Index, e.Index, e.EventCode))
		}
		got = append(got, fmt.Sprintf("containers[%d] %s", c.Index, c.Number))
	}
	if w := "containers[0].events[0] GTOT|containers[0].events[4] |containers[0].events[6] GTIN|containers[0] MSCU1234566|containers[3] TGHU1234560"; strings.Join(got, "|") != w {
		t.Errorf("decoded %s\nwant    %s", strings.Join(got, "|"), w)
	}
}

// A date-time without an offset is read in the zone of its place: the
// event's location, else another place of the body with the same
// UN/LOCODE, else UTC; the zone assumed is told, and a date with its
// offset tells none.
func TestDecodeShipmentReadsNaiveDateTimesInTheirPlacesZone(t *testing.T) {
	s := decode(t, `{
	  "metadata": {"updatedAt": "2026-01-02 03:04:05"},
	  "route": {
	    "pol": {"location": {"locode": "CNSHA", "timezone": "Asia/Shanghai"}, "date": "2023-12-31T05:39:00"},
	    "pod": {"location": {"locode": "DEBRV", "timezone": "Europe/Berlin"}, "date": "2021-07-13 01:57:00", "predictiveEta": "2021-07-12T23:00:00.5"}
	  },
	  "containers": [{"number": "MSCU1234566", "events": [
	    {"eventCode": "LOAD", "location": {"locode": "CNSHA"}, "date": "2023-12-31T05:39:00"},
	    {"eventCode": "DEPA", "location": {"locode": "cnsha", "timezone": " "}, "date": "2023-12-31 07:00"},
	    {"eventCode": "ARRI", "location": {"locode": "USNYC", "timezone": "America/New_York"}, "date": "2024-01-20T10:00:00"},
	    {"eventCode": "DISC", "location": {"locode": "XXXXX", "timezone": "Mars/Olympus"}, "date": "2024-01-21T10:00:00"},
	    {"eventCode": "GTOT", "location": null, "date": "2024-01-22T10:00:00"},
	    {"eventCode": "GTIN", "location": {"locode": "USNYC", "timezone": "America/New_York"}, "date": "2024-01-23T10:00:00-05:00"},
	    {"eventCode": "GTIN", "location": {"locode": "USNYC", "timezone": "Local"}, "date": "2024-01-24T10:00:00"},
	    {"eventCode": "GTIN", "date": "  "}
	  ]}]}`)
	if len(s.Bad) != 0 {
		t.Fatalf("left out: %s", bad(s))
	}
	utc := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return t
	}
	check := func(what string, got *time.Time, zone string, want time.Time, wantZone string) {
		t.Helper()
		if got == nil || !got.Equal(want) || zone != wantZone {
			t.Errorf("%s = %v in %q, want %v in %q", what, got, zone, want, wantZone)
		}
	}
	check("metadata.updatedAt", s.Metadata.UpdatedAt, s.Metadata.UpdatedAtZone, utc("2026-01-02T03:04:05Z"), "UTC")
	check("route.pol.date", s.Route.Pol.Date, s.Route.Pol.DateZone, utc("2023-12-30T21:39:00Z"), "Asia/Shanghai")
	check("route.pod.date", s.Route.Pod.Date, s.Route.Pod.DateZone, utc("2021-07-12T23:57:00Z"), "Europe/Berlin")
	check("route.pod.predictiveEta", s.Route.Pod.PredictiveETA, s.Route.Pod.PredictiveETAZone, utc("2021-07-12T21:00:00.5Z"), "Europe/Berlin")
	ev := s.Containers[0].Events
	check("LOAD (zone of CNSHA from the route)", ev[0].Date, ev[0].DateZone, utc("2023-12-30T21:39:00Z"), "Asia/Shanghai")
	check("DEPA (blank zone, locode in lower case)", ev[1].Date, ev[1].DateZone, utc("2023-12-30T23:00:00Z"), "Asia/Shanghai")
	check("ARRI (winter in New York)", ev[2].Date, ev[2].DateZone, utc("2024-01-20T15:00:00Z"), "America/New_York")
	check("DISC (no such zone)", ev[3].Date, ev[3].DateZone, utc("2024-01-21T10:00:00Z"), "UTC")
	check("GTOT (no place)", ev[4].Date, ev[4].DateZone, utc("2024-01-22T10:00:00Z"), "UTC")
	check("GTIN (its own offset)", ev[5].Date, ev[5].DateZone, utc("2024-01-23T15:00:00Z"), "")
	check("GTIN (Local is no zone)", ev[6].Date, ev[6].DateZone, utc("2024-01-24T10:00:00Z"), "UTC")
	if ev[7].Date != nil || ev[7].DateZone != "" {
		t.Errorf("a blank date decoded as %v in %q, want none", ev[7].Date, ev[7].DateZone)
	}
}

// IMO and MMSI numbers come as numbers or strings; isActual null or
// absent is unknown, not false.
func TestDecodeShipmentVesselNumbersAndUnknownActual(t *testing.T) {
	s := decode(t, `{"containers": [{"number": "X", "events": [
	    {"vessel": {"imo": "9321483", "mmsi": "636091234"}, "isActual": null},
	    {"vessel": {"imo": "IMO 9321483", "mmsi": 636091234}},
	    {"vessel": {"imo": 9321483.0, "mmsi": ""}, "isActual": false},
	    {"vessel": {"imo": "TBN", "mmsi": 1.5}, "isActual": true}
	  ]}]}`)
	if len(s.Bad) != 0 {
		t.Fatalf("left out: %s", bad(s))
	}
	var got []string
	for _, e := range s.Containers[0].Events {
		got = append(got, fmt.Sprintf("%v/%v actual=%v unknown=%v", show(e.Vessel.IMO), show(e.Vessel.MMSI), e.IsActual, e.ActualUnknown))
	}
	want := []string{
		"9321483/636091234 actual=false unknown=true",
		"9321483/636091234 actual=false unknown=true",
		"9321483/nil actual=false unknown=false",
		"nil/nil actual=true unknown=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("decoded\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func show(p *int) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// The envelopes providers wrap a shipment in are opened: the public API's
// data and the webhooks' containerDetails, also one inside the other.
func TestDecodeShipmentEnvelopes(t *testing.T) {
	for _, body := range []string{
		`{"containerDetails": {"metadata": {"shipmentNumber": "EMCU-8593893"}, "containers": []}}`,
		`{"status": "success", "data": {"metadata": {"shipmentNumber": "EMCU-8593893"}, "containers": []}}`,
		`{"event": "updated", "data": {"containerDetails": {"metadata": {"shipmentNumber": "EMCU-8593893"}, "containers": []}}}`,
		`{"data": "none", "containerDetails": {"metadata": {"shipmentNumber": "EMCU-8593893"}, "containers": []}}`,
	} {
		s := decode(t, body)
		if s.Metadata == nil || s.Metadata.ShipmentNumber != "EMCU-8593893" || s.Containers == nil {
			t.Errorf("%s decoded as %+v", body, s)
		}
	}
}

// What a decode tells besides the values is never encoded.
func TestShipmentEncodesWithoutWhatTheDecoderTells(t *testing.T) {
	s := decode(t, `{"containers": [{"number": "X", "events": [{"date": "2024-01-22T10:00:00"}, 5]}]}`)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Bad", "Index", "DateZone", "ActualUnknown"} {
		if strings.Contains(string(b), name) {
			t.Errorf("%s encoded: %s", name, b)
		}
	}
}
