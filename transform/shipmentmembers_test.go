package transform_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// memberCase is a body in which one member of one object is set, and the
// one field it must fill.
type memberCase struct {
	object, member string
	body           string
	want           *wire.Shipment
}

func ptr[T any](v T) *T { return &v }

// at is a distinct time per member, so a time routed to another time field
// does not compare equal.
func at(hour int) *time.Time { return ptr(time.Date(2026, 3, 1, hour, 0, 0, 0, time.UTC)) }

func atJSON(hour int) string { return at(hour).Format(`"2006-01-02T15:04:05Z"`) }

// memberCases sets each member alone, inside the smallest body that gets to
// its object, with a value no other member of the object has.
func memberCases() []memberCase {
	none := []wire.Container{}
	var cs []memberCase
	add := func(object, member, body string, want *wire.Shipment) {
		cs = append(cs, memberCase{object, member, body, want})
	}

	add("shipment", "metadata", `{"metadata":{},"containers":[]}`, &wire.Shipment{Metadata: &wire.ShipmentMetadata{}, Containers: none})
	add("shipment", "route", `{"route":{}}`, &wire.Shipment{Route: &wire.ShipmentRoute{}})
	add("shipment", "containers", `{"containers":[]}`, &wire.Shipment{Containers: none})
	add("shipment", "data", `{"data":{"route":{}}}`, &wire.Shipment{Route: &wire.ShipmentRoute{}})

	metadata := func(member, value string, md wire.ShipmentMetadata) {
		add("metadata", member, `{"containers":[],"metadata":{"`+member+`":`+value+`}}`, &wire.Shipment{Metadata: &md, Containers: none})
	}
	metadata("shipmentType", `"BL"`, wire.ShipmentMetadata{ShipmentType: "BL"})
	metadata("shipmentNumber", `"MAEU1"`, wire.ShipmentMetadata{ShipmentNumber: "MAEU1"})
	metadata("sealine", `"MAEU"`, wire.ShipmentMetadata{Sealine: ptr("MAEU")})
	metadata("sealineName", `"Maersk"`, wire.ShipmentMetadata{SealineName: ptr("Maersk")})
	metadata("shippingStatus", `"IN_TRANSIT"`, wire.ShipmentMetadata{ShippingStatus: ptr("IN_TRANSIT")})
	metadata("updatedAt", atJSON(1), wire.ShipmentMetadata{UpdatedAt: at(1)})
	metadata("warnings", `["w"]`, wire.ShipmentMetadata{Warnings: json.RawMessage(`["w"]`)})

	route := func(member string, r wire.ShipmentRoute) {
		add("route", member, `{"route":{"`+member+`":{}}}`, &wire.Shipment{Route: &r})
	}
	route("prepol", wire.ShipmentRoute{Prepol: &wire.RoutePoint{}})
	route("pol", wire.ShipmentRoute{Pol: &wire.RoutePoint{}})
	route("pod", wire.ShipmentRoute{Pod: &wire.PortOfDischarge{}})
	route("postpod", wire.ShipmentRoute{Postpod: &wire.RoutePoint{}})

	// A route point's members, in pol (routePointFields) and in pod
	// (podFields, its own field set).
	points := []struct {
		member, value string
		p             wire.RoutePoint
	}{
		{"location", `{}`, wire.RoutePoint{Location: &wire.Location{}}},
		{"date", atJSON(2), wire.RoutePoint{Date: at(2)}},
		{"actual", `true`, wire.RoutePoint{Actual: ptr(true)}},
	}
	for _, p := range points {
		add("route point", p.member, `{"route":{"pol":{"`+p.member+`":`+p.value+`}}}`, &wire.Shipment{Route: &wire.ShipmentRoute{Pol: &p.p}})
		add("pod", p.member, `{"route":{"pod":{"`+p.member+`":`+p.value+`}}}`, &wire.Shipment{Route: &wire.ShipmentRoute{Pod: &wire.PortOfDischarge{RoutePoint: p.p}}})
	}
	add("pod", "predictiveEta", `{"route":{"pod":{"predictiveEta":`+atJSON(3)+`}}}`, &wire.Shipment{Route: &wire.ShipmentRoute{Pod: &wire.PortOfDischarge{PredictiveETA: at(3)}}})

	location := func(member, value string, l wire.Location) {
		add("location", member, `{"route":{"pol":{"location":{"`+member+`":`+value+`}}}}`, &wire.Shipment{Route: &wire.ShipmentRoute{Pol: &wire.RoutePoint{Location: &l}}})
	}
	location("name", `"Rotterdam"`, wire.Location{Name: "Rotterdam"})
	location("state", `"Zuid-Holland"`, wire.Location{State: ptr("Zuid-Holland")})
	location("country", `"Netherlands"`, wire.Location{Country: "Netherlands"})
	location("countryCode", `"NL"`, wire.Location{CountryCode: "NL"})
	location("locode", `"NLRTM"`, wire.Location{Locode: "NLRTM"})
	location("coordinates", `{}`, wire.Location{Coordinates: &wire.Coordinates{}})
	location("timezone", `"Europe/Amsterdam"`, wire.Location{Timezone: "Europe/Amsterdam"})

	coordinates := func(member, value string, c wire.Coordinates) {
		add("coordinates", member, `{"route":{"pol":{"location":{"coordinates":{"`+member+`":`+value+`}}}}}`,
			&wire.Shipment{Route: &wire.ShipmentRoute{Pol: &wire.RoutePoint{Location: &wire.Location{Coordinates: &c}}}})
	}
	coordinates("lat", `51.9`, wire.Coordinates{Lat: ptr(51.9)})
	coordinates("lng", `4.1`, wire.Coordinates{Lng: ptr(4.1)})
	coordinates("updatedAt", atJSON(4), wire.Coordinates{UpdatedAt: at(4)})

	inEvent := func(object, member, eventMembers string, e wire.Event) {
		e.ActualUnknown = member != "isActual" // an event without isActual does not say
		add(object, member, `{"containers":[{"events":[{`+eventMembers+`}]}]}`,
			&wire.Shipment{Containers: []wire.Container{{Events: []wire.Event{e}}}})
	}
	event := func(object, member, value string, e wire.Event) {
		inEvent(object, member, `"`+member+`":`+value, e)
	}
	event("event", "location", `{}`, wire.Event{Location: &wire.Location{}})
	event("event", "facility", `{}`, wire.Event{Facility: &wire.Facility{}})
	event("event", "description", `"Gate out"`, wire.Event{Description: "Gate out"})
	event("event", "eventType", `"EQUIPMENT"`, wire.Event{EventType: "EQUIPMENT"})
	event("event", "eventCode", `"GTOT"`, wire.Event{EventCode: "GTOT"})
	event("event", "status", `"CEP"`, wire.Event{Status: "CEP"})
	event("event", "date", atJSON(5), wire.Event{Date: at(5)})
	event("event", "isActual", `true`, wire.Event{IsActual: true})
	event("event", "isAdditionalEvent", `true`, wire.Event{IsAdditionalEvent: true})
	event("event", "routeType", `"LAND"`, wire.Event{RouteType: "LAND"})
	event("event", "transportType", `"VESSEL"`, wire.Event{TransportType: ptr("VESSEL")})
	event("event", "vessel", `{}`, wire.Event{Vessel: &wire.Vessel{}})
	event("event", "voyage", `"345W"`, wire.Event{Voyage: ptr("345W")})

	facility := func(member, value string, f wire.Facility) {
		inEvent("facility", member, `"facility":{"`+member+`":`+value+`}`, wire.Event{Facility: &f})
	}
	facility("name", `"APM Terminals"`, wire.Facility{Name: "APM Terminals"})
	facility("countryCode", `"NL"`, wire.Facility{CountryCode: "NL"})
	facility("locode", `"NLRTM"`, wire.Facility{Locode: ptr("NLRTM")})
	facility("bicCode", `"NLRTMAPMT"`, wire.Facility{BICCode: ptr("NLRTMAPMT")})
	facility("smdgCode", `"APMII"`, wire.Facility{SMDGCode: ptr("APMII")})
	facility("coordinates", `{"lat":52.0}`, wire.Facility{Coordinates: &wire.Coordinates{Lat: ptr(52.0)}})

	vessel := func(member, value string, v wire.Vessel) {
		inEvent("vessel", member, `"vessel":{"`+member+`":`+value+`}`, wire.Event{Vessel: &v})
	}
	vessel("name", `"Maersk Essen"`, wire.Vessel{Name: "Maersk Essen"})
	vessel("imo", `9321483`, wire.Vessel{IMO: ptr(9321483)})
	vessel("callSign", `"OZDU2"`, wire.Vessel{CallSign: ptr("OZDU2")})
	vessel("mmsi", `219000000`, wire.Vessel{MMSI: ptr(219000000)})
	vessel("flag", `"DK"`, wire.Vessel{Flag: ptr("DK")})

	container := func(member, value string, c wire.Container) {
		add("container", member, `{"containers":[{"`+member+`":`+value+`}]}`, &wire.Shipment{Containers: []wire.Container{c}})
	}
	container("number", `"CSQU3054383"`, wire.Container{Number: "CSQU3054383"})
	container("isoCode", `"45G1"`, wire.Container{ISOCode: "45G1"})
	container("status", `"IN_TRANSIT"`, wire.Container{Status: "IN_TRANSIT"})
	container("events", `[]`, wire.Container{Events: []wire.Event{}})
	return cs
}

// TestFastPathDispatchesEachMemberToItsField sets every member the fast
// path knows, alone, and expects exactly its field set: a member routed to
// another member's decoder fills the wrong field (or gives up), and fails
// here. The expectations are checked against wire.DecodeShipment too, so
// the table itself is the reference decoder's reading.
func TestFastPathDispatchesEachMemberToItsField(t *testing.T) {
	cases := memberCases()
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.object+"."+c.member] = true
	}
	for object, members := range transform.FastPathMembers() {
		for _, m := range members {
			if !covered[object+"."+m] {
				t.Errorf("member %s of %s has no case here: add one", m, object)
			}
			delete(covered, object+"."+m)
		}
	}
	for name := range covered {
		t.Errorf("case %s is not a member the fast path dispatches", name)
	}

	b := transform.NewBatch(checked(t))
	defer b.Release()
	for _, c := range cases {
		t.Run(c.object+"."+c.member, func(t *testing.T) {
			ref, err := wire.DecodeShipment([]byte(c.body))
			if err != nil || !reflect.DeepEqual(ref, c.want) {
				t.Fatalf("the case is wrong: wire.DecodeShipment(%s) =\n%s, %v\nwant\n%s", c.body, show(ref), err, show(c.want))
			}
			got, ok := transform.DecodeShipmentFast(b, []byte(c.body))
			if !ok {
				t.Fatalf("fast path gives up on %s", c.body)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("fast path decodes %s to\n%s\nwant\n%s", c.body, show(got), show(c.want))
			}
		})
	}
}

// show renders a shipment as JSON with its nil pointers, which is where a
// misrouted member shows.
func show(s *wire.Shipment) string {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return fmt.Sprintf("%#v", s)
	}
	return strings.TrimSpace(string(b))
}
