package sim_test

import (
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/wire"
)

// eventShapes are the allowed (eventType, eventCode, status, routeType)
// combinations: spec/schedules.md's table plus the documented inland and
// inspection events.
var eventShapes = map[string][3]string{
	"CEP": {"EQUIPMENT", "GTOT", "LAND"}, "CGI": {"EQUIPMENT", "GTIN", "LAND"}, "CLL": {"EQUIPMENT", "LOAD", "SEA"},
	"VDL": {"TRANSPORT", "DEPA", "SEA"}, "VAT": {"TRANSPORT", "ARRI", "SEA"}, "CDT": {"EQUIPMENT", "DISC", "SEA"},
	"CLT": {"EQUIPMENT", "LOAD", "SEA"}, "VDT": {"TRANSPORT", "DEPA", "SEA"}, "VAD": {"TRANSPORT", "ARRI", "SEA"},
	"CDD": {"EQUIPMENT", "DISC", "SEA"}, "CGO": {"EQUIPMENT", "GTOT", "LAND"}, "CER": {"EQUIPMENT", "GTIN", "LAND"},
	"LDO": {"TRANSPORT", "DEPA", "LAND"}, "LAP": {"TRANSPORT", "ARRI", "LAND"}, "LDP": {"TRANSPORT", "DEPA", "LAND"},
	"LAD": {"TRANSPORT", "ARRI", "LAND"}, "CUS": {"EQUIPMENT", "INSP", "LAND"},
}

func TestEventShapes(t *testing.T) {
	w, tr := defaultWorld(t)
	at := start.AddDate(0, 0, 10)
	additional, unicodeFacility := 0, false
	for _, s := range tr.Shipments {
		if at.Before(s.BookedAt) {
			continue
		}
		sh := mustShipment(t, w, refOf(s), at)
		for _, c := range sh.Containers {
			for _, e := range c.Events {
				shape, ok := eventShapes[e.Status]
				if !ok || shape != [3]string{e.EventType, e.EventCode, e.RouteType} {
					t.Errorf("%s: event %s/%s/%s/%s", s.Number, e.EventType, e.EventCode, e.Status, e.RouteType)
				}
				if e.Location == nil || e.Date == nil || e.Description == "" || e.Date.Location() != time.UTC {
					t.Errorf("%s: incomplete event %+v", s.Number, e)
				}
				if e.IsAdditionalEvent {
					additional++
				}
				if e.Facility != nil && len([]rune(e.Facility.Name)) != len(e.Facility.Name) {
					unicodeFacility = true
				}
				switch e.RouteType {
				case "SEA":
					if e.Vessel == nil || e.Voyage == nil || e.TransportType == nil || *e.TransportType != "VESSEL" || e.Facility == nil {
						t.Errorf("%s: sea event %s without vessel, voyage or terminal", s.Number, e.Status)
					}
				case "LAND":
					if e.Vessel != nil || e.Voyage != nil {
						t.Errorf("%s: land event %s with a vessel", s.Number, e.Status)
					}
					if e.TransportType != nil && *e.TransportType != "TRUCK" && *e.TransportType != "RAIL" {
						t.Errorf("%s: land event %s by %s", s.Number, e.Status, *e.TransportType)
					}
				}
			}
		}
	}
	if additional == 0 {
		t.Error("no additional event anywhere")
	}
	if !unicodeFacility {
		t.Error("no facility name outside ASCII")
	}
}

// eventKey identifies an event across responses (never by its date).
func eventKey(c string, e wire.Event) string {
	k := c + "/" + e.Status + "/" + e.Location.Locode
	if e.Voyage != nil {
		k += "/" + *e.Voyage
	}
	return k
}

func TestEventsTurnActualAndNeverGoBack(t *testing.T) {
	slowtest.Long(t)
	w, tr := defaultWorld(t)
	type seen struct {
		date   time.Time
		actual bool
	}
	for i, s := range tr.Shipments {
		if i%5 != 0 {
			continue
		}
		ref := refOf(s)
		state := map[string]seen{}
		turned := 0
		for at := start; at.Before(start.AddDate(0, 0, 60)); at = at.Add(7 * time.Hour) {
			if at.Before(s.BookedAt) {
				continue
			}
			sh := mustShipment(t, w, ref, at)
			for _, c := range sh.Containers {
				var lastActual time.Time
				for _, e := range c.Events {
					k := eventKey(c.Number, e)
					prev, ok := state[k]
					if ok && prev.actual && (!e.IsActual || !e.Date.Equal(prev.date)) {
						t.Fatalf("%s %s: was actual at %s, now %s actual=%v (at %s)", s.Number, k, prev.date, e.Date, e.IsActual, at)
					}
					if ok && !prev.actual && e.IsActual {
						turned++
					}
					if e.IsActual {
						if e.Date.After(at) {
							t.Fatalf("%s %s: actual in the future", s.Number, k)
						}
						if e.Date.Before(lastActual) {
							t.Errorf("%s %s: actual events out of order", s.Number, k)
						}
						lastActual = *e.Date
					}
					state[k] = seen{*e.Date, e.IsActual}
				}
			}
		}
		if podArrival(s).After(start.Add(24*time.Hour)) && podArrival(s).Before(start.AddDate(0, 0, 50)) && turned == 0 {
			t.Errorf("%s: no event turned actual during the run", s.Number)
		}
	}
}

func TestStatusesFollowTheJourney(t *testing.T) {
	w, tr := defaultWorld(t)
	late := start.AddDate(0, 0, 60)
	for _, s := range tr.Shipments {
		if s.BookedAt.After(start) {
			continue
		}
		early := mustShipment(t, w, refOf(s), s.BookedAt)
		if *early.Metadata.ShippingStatus != "PLANNED" || early.Containers[0].Status != "BOOKED" {
			t.Errorf("%s at booking: %s / %s", s.Number, *early.Metadata.ShippingStatus, early.Containers[0].Status)
		}
		if !early.Metadata.UpdatedAt.After(s.BookedAt.Add(-24*time.Hour)) || early.Metadata.UpdatedAt.After(s.BookedAt) {
			t.Errorf("%s: updatedAt %s is not the latest revision before %s", s.Number, early.Metadata.UpdatedAt, s.BookedAt)
		}
		if string(early.Metadata.Warnings) != "[]" {
			t.Errorf("%s: warnings %s", s.Number, early.Metadata.Warnings)
		}
		mid := mustShipment(t, w, refOf(s), polDeparture(s).Add(time.Hour))
		if *mid.Metadata.ShippingStatus != "IN_TRANSIT" {
			t.Errorf("%s after departure: %s", s.Number, *mid.Metadata.ShippingStatus)
		}
		end := mustShipment(t, w, refOf(s), late)
		for _, c := range end.Containers {
			last := c.Events[len(c.Events)-1]
			if last.IsActual && (c.Status != "RETURNED" || *end.Metadata.ShippingStatus != "DELIVERED") {
				t.Errorf("%s: all done but status %s / %s", s.Number, c.Status, *end.Metadata.ShippingStatus)
			}
		}
	}
}

func TestDuplicateEventsAreRare(t *testing.T) {
	w, tr := defaultWorld(t)
	responses, dups := 0, 0
	for _, s := range tr.Shipments {
		for d := 0; d < 30; d++ {
			at := start.AddDate(0, 0, d).Add(11 * time.Hour)
			if at.Before(s.BookedAt) {
				continue
			}
			sh := mustShipment(t, w, refOf(s), at)
			responses++
			for _, c := range sh.Containers {
				keys := map[string]bool{}
				for _, e := range c.Events {
					k := eventKey(c.Number, e)
					if keys[k] {
						dups++
					}
					keys[k] = true
				}
			}
		}
	}
	share := float64(dups) / float64(responses)
	t.Logf("%d of %d responses repeat an event", dups, responses)
	if share < 0.005 || share > 0.04 {
		t.Errorf("%.1f %% of responses repeat an event, want about 2 %%", 100*share)
	}
}
