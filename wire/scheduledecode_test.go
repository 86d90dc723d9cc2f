package wire_test

import (
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/wire"
)

// badPaths lists the paths of what a decoder left out, and checks that
// each reason names the element left out.
func badPaths(t *testing.T, bad []wire.ItemError) []string {
	t.Helper()
	var out []string
	for _, b := range bad {
		if !strings.Contains(b.Err.Error(), " is left out") {
			t.Errorf("%s: reason %q does not say what is left out", b.Path, b.Err)
		}
		out = append(out, b.Path)
	}
	return out
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// One timestamp whose date does not read is left out alone, under its
// full path; its siblings, and the vessel schedule, decode. The codes are
// kept as sent (the transform upper-cases them).
func TestAScheduleTimestampThatDoesNotReadIsLeftOutAlone(t *testing.T) {
	body := `{"location":{"locode":"NLRTM","timezone":"Europe/Amsterdam"},"vesselSchedules":[
	  {"carrierCode":"maeu","vessel":{"name":"MAERSK ESSEN","imo":9832614},"timestamps":[
	    {"eventTypeCode":"arri","eventClassifierCode":"pln","eventDateTime":"2026-03-01T06:00:00Z"},
	    {"eventTypeCode":"ARRI","eventClassifierCode":"EST","eventDateTime":"01/03/2026 09:00"},
	    {"eventTypeCode":"DEPA","eventClassifierCode":"PLN","eventDateTime":"2026-03-02T18:00:00Z"},
	    {"eventTypeCode":7}]}]}`
	s, err := wire.DecodePortSchedules([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	got := badPaths(t, s.Bad)
	want := []string{"vesselSchedules[0].timestamps[1].eventDateTime", "vesselSchedules[0].timestamps[3].eventTypeCode"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("left out %v, want %v (%v)", got, want, s.Bad)
	}
	if !strings.Contains(s.Bad[0].Err.Error(), `"01/03/2026 09:00" is not a date-time`) {
		t.Errorf("reason %q", s.Bad[0].Err)
	}
	ts := s.Items[0].VesselSchedules[0].Timestamps
	if len(ts) != 2 || ts[0].Index != 0 || ts[1].Index != 2 || ts[0].EventTypeCode != "arri" || ts[0].EventClassifierCode != "pln" {
		t.Fatalf("timestamps %+v: want the first and the third, codes as sent", ts)
	}
}

// DCSA: "eventDateTime: The local date and time, when the event takes
// place." A date-time without its offset is read in the port's zone: the
// location's timezone in the service profile (else that of another place
// of the answer with the same UN/LOCODE), the zone of the UN/LOCODE's
// country in a DCSA answer, whose locations name none; UTC when the
// country has several. Which zone was assumed is kept; none for a date
// with its offset.
func TestANaiveScheduleDateIsReadInThePortsZone(t *testing.T) {
	dcsa := `[{"location":{"UNLocationCode":"%s"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU"}],
	  "vessel":{"vesselIMONumber":"9321483"},"isDummyVessel":false,"timestamps":[
	  {"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2025-01-14T09:21:00"},
	  {"eventTypeCode":"DEPA","eventClassifierCode":"PLN","eventDateTime":"2025-01-15 18:00"},
	  {"eventTypeCode":"ARRI","eventClassifierCode":"EST","eventDateTime":"2025-01-14T09:21:00+01:00"}]}]}]`
	for _, tc := range []struct{ port, zone, arri, depa string }{
		{"NLAMS", "Europe/Amsterdam", "2025-01-14T08:21:00Z", "2025-01-15T17:00:00Z"},
		{"cnsha", "Asia/Shanghai", "2025-01-14T01:21:00Z", "2025-01-15T10:00:00Z"},
		{"DEHAM", "Europe/Berlin", "2025-01-14T08:21:00Z", "2025-01-15T17:00:00Z"},
		{"SGSIN", "Asia/Singapore", "2025-01-14T01:21:00Z", "2025-01-15T10:00:00Z"},
		{"USLAX", "UTC", "2025-01-14T09:21:00Z", "2025-01-15T18:00:00Z"},
	} {
		s, err := wire.DecodePortSchedules([]byte(strings.Replace(dcsa, "%s", tc.port, 1)))
		if err != nil || len(s.Bad) != 0 {
			t.Fatalf("%s: %v, %v", tc.port, err, s.Bad)
		}
		ts := s.Items[0].VesselSchedules[0].Timestamps
		if !ts[0].EventDateTime.Equal(utc(tc.arri)) || ts[0].EventDateTimeZone != tc.zone ||
			!ts[1].EventDateTime.Equal(utc(tc.depa)) || ts[1].EventDateTimeZone != tc.zone {
			t.Errorf("%s: %s in %q, %s in %q; want %s and %s in %s", tc.port, ts[0].EventDateTime, ts[0].EventDateTimeZone,
				ts[1].EventDateTime, ts[1].EventDateTimeZone, tc.arri, tc.depa, tc.zone)
		}
		if !ts[2].EventDateTime.Equal(utc("2025-01-14T08:21:00Z")) || ts[2].EventDateTimeZone != "" {
			t.Errorf("%s: a date with its offset is %s, assumed %q", tc.port, ts[2].EventDateTime, ts[2].EventDateTimeZone)
		}
	}

	// The service profile: the leg's places name no zone; the places of
	// receipt and delivery, with the same UN/LOCODEs, do.
	p2p := `{"placeOfReceipt":{"locode":"CNSHA","timezone":"Asia/Shanghai"},"placeOfDelivery":{"locode":"USLAX","timezone":"America/Los_Angeles"},
	  "routes":[{"carrierCode":"CMDU","legs":[{"vessel":{"imo":"9839179"},
	  "departure":{"location":{"locode":"cnsha"},"dateTime":"2026-03-01T08:00:00","eventClassifierCode":"PLN"},
	  "arrival":{"location":{"locode":"USLAX"},"dateTime":"2026-03-15 06:00","eventClassifierCode":"EST"}}]}]}`
	ps, err := wire.DecodePointToPoints([]byte(p2p))
	if err != nil || len(ps.Bad) != 0 {
		t.Fatal(err, ps.Bad)
	}
	leg := ps.Items[0].Routes[0].Legs[0]
	if !leg.Departure.DateTime.Equal(utc("2026-03-01T00:00:00Z")) || leg.Departure.DateTimeZone != "Asia/Shanghai" ||
		!leg.Arrival.DateTime.Equal(utc("2026-03-15T13:00:00Z")) || leg.Arrival.DateTimeZone != "America/Los_Angeles" {
		t.Errorf("leg %+v → %+v", leg.Departure, leg.Arrival)
	}
}

// DCSA: vesselIMONumber "pattern: ^\d{7,8}$", a string ("example:
// '9321483'"). Providers also send it with an IMO prefix, in any case, or
// as a JSON number; the service profile's imo (an integer) comes as
// strings too. Each is the number; a value that names no number is none,
// and the transform dead-letters the call.
func TestIMONumbersAreReadInTheFormsProvidersSend(t *testing.T) {
	for _, tc := range []struct {
		sent string
		want int
	}{
		{`"9321483"`, 9321483}, {`9321483`, 9321483}, {`"IMO9321483"`, 9321483}, {`"IMO 9321483"`, 9321483},
		{`"imo9321483"`, 9321483}, {`" IMO: 9321483 "`, 9321483}, {`"23162713"`, 23162713}, {`9321483.0`, 9321483},
		{`"TBN"`, 0}, {`""`, 0}, {`null`, 0},
	} {
		dcsa := `[{"location":{"UNLocationCode":"NLAMS"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU"}],
		  "vessel":{"vesselIMONumber":` + tc.sent + `},"isDummyVessel":false,"timestamps":[]}]}]`
		service := `{"vessel":{"name":"X","imo":` + tc.sent + `},"carrierCode":"MSCU","transportCalls":[]}`
		d, err := wire.DecodePortSchedules([]byte(dcsa))
		if err != nil || len(d.Items[0].VesselSchedules) != 1 {
			t.Fatalf("%s: %v %+v", tc.sent, err, d)
		}
		s, err := wire.DecodeVesselSchedules([]byte(service))
		if err != nil {
			t.Fatalf("%s: %v", tc.sent, err)
		}
		for profile, v := range map[string]*wire.Vessel{"dcsa": d.Items[0].VesselSchedules[0].Vessel, "service": s.Items[0].Vessel} {
			got := 0
			if v.IMO != nil {
				got = *v.IMO
			}
			if got != tc.want {
				t.Errorf("%s %s: IMO %d, want %d", profile, tc.sent, got, tc.want)
			}
		}
	}
}

// Each leg, each end of a leg, each transport call and each vessel
// schedule is decoded on its own, in both profiles.
func TestEachLegCallAndScheduleIsLeftOutAlone(t *testing.T) {
	p2p := `[{"placeOfReceipt":{"location":{"UNLocationCode":"NLAMS"}},"placeOfDelivery":{"location":{"UNLocationCode":"SGSIN"}},"legs":[
	  {"transport":{"modeOfTransport":"vessel","vessel":{"vesselIMONumber":"9321483"}},
	   "departure":{"location":{"UNLocationCode":"NLAMS"},"dateTime":"next week"},
	   "arrival":{"location":{"UNLocationCode":"EGPSD"},"dateTime":"2025-01-30T08:00:00+02:00"}},
	  {"transport":{"modeOfTransport":"VESSEL","vessel":{"vesselIMONumber":true}}},
	  {"transport":{"modeOfTransport":"VESSEL","vessel":{"vesselIMONumber":"9832614"}},
	   "departure":{"location":{"UNLocationCode":"EGPSD"},"dateTime":"2025-02-02T10:00:00"},
	   "arrival":{"location":5}}]}]`
	ps, err := wire.DecodePointToPoints([]byte(p2p))
	if err != nil {
		t.Fatal(err)
	}
	want := "[0].legs[0].departure.dateTime [0].legs[1].transport.vessel.vesselIMONumber [0].legs[2].arrival.location"
	if got := strings.Join(badPaths(t, ps.Bad), " "); got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
	legs := ps.Items[0].Routes[0].Legs
	if len(legs) != 2 || legs[0].Departure != nil || !legs[0].DepartureLeftOut || legs[0].Arrival == nil ||
		legs[1].Departure == nil || legs[1].Departure.DateTimeZone != "Africa/Cairo" || legs[1].Arrival != nil || !legs[1].ArrivalLeftOut {
		t.Errorf("legs %+v", legs)
	}

	vessel := `[{"carrierServiceName":"Great Lion Service","carrierServiceCode":"FE1","vesselSchedules":[
	  {"vessel":{"vesselIMONumber":"9321483","operatorCarrierCode":"maeu"},"isDummyVessel":false,"transportCalls":[
	    {"carrierImportVoyageNumber":"2103S","location":{"UNLocationCode":"NLAMS"},"timestamps":[
	      {"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2025-01-14T09:21:00+01:00"},
	      {"eventTypeCode":"ARRI","eventClassifierCode":"ACT","eventDateTime":"yesterday"}]},
	    {"carrierImportVoyageNumber":2103,"location":{"UNLocationCode":"DEHAM"}},
	    {"carrierImportVoyageNumber":"2103N","location":{"UNLocationCode":"DEHAM"},"timestamps":[
	      {"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2025-01-17T06:00:00"}]}]},
	  {"vessel":[],"isDummyVessel":false}]}]`
	vs, err := wire.DecodeVesselSchedules([]byte(vessel))
	if err != nil {
		t.Fatal(err)
	}
	want = "[0].vesselSchedules[0].transportCalls[0].timestamps[1].eventDateTime [0].vesselSchedules[0].transportCalls[1].carrierImportVoyageNumber [0].vesselSchedules[1].vessel"
	if got := strings.Join(badPaths(t, vs.Bad), " "); got != want {
		t.Errorf("left out %s, want %s", got, want)
	}
	calls := vs.Items[0].TransportCalls
	if len(vs.Items) != 1 || len(calls) != 2 || len(calls[0].Timestamps) != 1 || calls[1].Source != "[0].vesselSchedules[0].transportCalls[2]" ||
		calls[1].Timestamps[0].EventDateTimeZone != "Europe/Berlin" {
		t.Errorf("vessel schedules %+v", vs.Items)
	}
}

// DCSA answers are arrays ("type: array, items: $ref PortSchedule"); a
// provider that sends one item bare is read as sending an array of one,
// its paths without an index. The service profile's objects, which share
// member names with the DCSA items, are told apart by the members in
// which they differ (locode or UNLocationCode, routes or legs,
// transportCalls or vesselSchedules) and still read as the service's.
func TestADCSAItemSentBareIsReadAsAnArrayOfOne(t *testing.T) {
	port := `{"location":{"UNLocationCode":"NLAMS"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU"}],
	  "vessel":{"vesselIMONumber":"IMO9321483"},"isDummyVessel":false,"timestamps":[
	  {"eventTypeCode":"arri","eventClassifierCode":"pln","eventDateTime":"2025-01-14T09:21:00"},{"eventDateTime":"soon"}]}]}`
	ps, err := wire.DecodePortSchedules([]byte(port))
	if err != nil || !ps.DCSA || len(ps.Items) != 1 || ps.Items[0].Location.Locode != "NLAMS" || len(ps.Items[0].VesselSchedules) != 1 {
		t.Fatalf("bare port schedule: %+v, %v", ps, err)
	}
	if got := strings.Join(badPaths(t, ps.Bad), " "); got != "vesselSchedules[0].timestamps[1].eventDateTime" {
		t.Errorf("left out %s", got)
	}
	p2p := `{"placeOfReceipt":{"location":{"UNLocationCode":"NLAMS"}},"placeOfDelivery":{"location":{"UNLocationCode":"SGSIN"}},"transitTime":37,
	  "legs":[{"transport":{"modeOfTransport":"VESSEL","vessel":{"vesselIMONumber":"9321483"}},
	  "departure":{"location":{"UNLocationCode":"NLAMS"},"dateTime":"2025-01-15T18:00:00+01:00"},"arrival":{"location":{"UNLocationCode":"SGSIN"},"dateTime":"2025-02-19T20:00:00+08:00"}}]}`
	pp, err := wire.DecodePointToPoints([]byte(p2p))
	if err != nil || !pp.DCSA || len(pp.Items) != 1 || pp.Items[0].PlaceOfDelivery.Locode != "SGSIN" || len(pp.Items[0].Routes[0].Legs) != 1 ||
		pp.Items[0].Routes[0].Legs[0].Source != "legs[0]" {
		t.Fatalf("bare routing: %+v, %v", pp, err)
	}
	service := `{"carrierServiceName":"Great Lion Service","carrierServiceCode":"FE1","vesselSchedules":[
	  {"vessel":{"vesselIMONumber":"9321483","operatorCarrierCode":"MAEU"},"isDummyVessel":false,"transportCalls":[
	  {"location":{"UNLocationCode":"NLAMS"},"timestamps":[]}]}]}`
	vs, err := wire.DecodeVesselSchedules([]byte(service))
	if err != nil || !vs.DCSA || len(vs.Items) != 1 || vs.Items[0].CarrierCode != "MAEU" || vs.Items[0].TransportCalls[0].Source != "vesselSchedules[0].transportCalls[0]" {
		t.Fatalf("bare service schedule: %+v, %v", vs, err)
	}
	if _, err := wire.DecodeVesselSchedules([]byte(`{"carrierServiceCode":"FE1","vesselSchedules":7}`)); err != nil {
		t.Errorf("a bare service schedule whose vesselSchedules is no array: %v; want it read, the member left out", err)
	}
	if _, err := wire.DecodePortSchedules([]byte(`{"location":5,"vesselSchedules":[{"isDummyVessel":false}]}`)); err == nil {
		t.Errorf("a bare port schedule whose location is a number decodes")
	}

	// The service profile's objects.
	for name, decode := range map[string]func() (bool, error){
		"port": func() (bool, error) {
			s, err := wire.DecodePortSchedules([]byte(`{"location":{"locode":"NLRTM","UNLocationCode":"NLRTM"},"vesselSchedules":[]}`))
			return s.DCSA, err
		},
		"port without a location": func() (bool, error) {
			s, err := wire.DecodePortSchedules([]byte(`{"location":null,"vesselSchedules":[{"carrierCode":"MAEU","timestamps":[]}]}`))
			return s.DCSA, err
		},
		"p2p": func() (bool, error) {
			s, err := wire.DecodePointToPoints([]byte(`{"placeOfReceipt":{"locode":"CNSHA"},"routes":[],"legs":[]}`))
			return s.DCSA, err
		},
		"vessel": func() (bool, error) {
			s, err := wire.DecodeVesselSchedules([]byte(`{"vessel":{"imo":9321483},"carrierServiceCode":"FE1","transportCalls":[],"vesselSchedules":[]}`))
			return s.DCSA, err
		},
	} {
		if dcsa, err := decode(); err != nil || dcsa {
			t.Errorf("%s: read as DCSA %v, %v; want the service profile's", name, dcsa, err)
		}
	}
}
