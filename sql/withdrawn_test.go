package sql_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// answer is one night's tracking answer of a hand-made shipment, CNSHA to
// NLRTM on vessel 9321483 voyage 1W: its POD date and whether the carrier
// calls it actual (the box's discharge at NLRTM says the same), and the
// predictive ETA when the service gives one.
type answer struct {
	night      int // days after 2026-03-01, observed at 02:00 UTC
	pod        time.Time
	actual     bool
	predictive time.Time
}

func (a answer) at() time.Time {
	return time.Date(2026, 3, 1, 2, 0, 0, 0, time.UTC).AddDate(0, 0, a.night)
}

// body is the service's answer (spec/service.md §2.4) for shipment number.
func (a answer) body(number string) []byte {
	ts := func(t time.Time) string { return `"` + t.UTC().Format(time.RFC3339) + `"` }
	predictive := "null"
	if !a.predictive.IsZero() {
		predictive = ts(a.predictive)
	}
	loaded := time.Date(2026, 2, 10, 8, 0, 0, 0, time.UTC)
	return fmt.Appendf(nil, `{
  "metadata": {"shipmentType": "CT", "shipmentNumber": %[1]q, "sealine": "MAEU", "sealineName": "Maersk", "shippingStatus": "IN_TRANSIT"},
  "route": {
    "pol": {"location": {"locode": "CNSHA"}, "date": %[2]s, "actual": true},
    "pod": {"location": {"locode": "NLRTM"}, "date": %[3]s, "actual": %[4]t, "predictiveEta": %[5]s},
    "postpod": null
  },
  "containers": [{"number": %[1]q, "isoCode": "42G1", "status": "IN_TRANSIT", "events": [
    {"location": {"locode": "CNSHA"}, "eventType": "EQUIPMENT", "eventCode": "LOAD", "status": "CLL", "date": %[2]s, "isActual": true,
     "isAdditionalEvent": false, "routeType": "SEA", "transportType": "VESSEL", "vessel": {"name": "MAERSK A", "imo": 9321483}, "voyage": "1W"},
    {"location": {"locode": "NLRTM"}, "eventType": "EQUIPMENT", "eventCode": "DISC", "status": "CDT", "date": %[3]s, "isActual": %[4]t,
     "isAdditionalEvent": false, "routeType": "SEA", "transportType": "VESSEL", "vessel": {"name": "MAERSK A", "imo": 9321483}, "voyage": "1W"}
  ]}]
}`, number, ts(loaded), ts(a.pod), a.actual, predictive)
}

// withdrawnWarehouse loads the answers of each shipment, one night at a
// time as nightly jobs would, tracks the shipments, refreshes the
// analytics and returns the database.
func withdrawnWarehouse(t *testing.T, shipments map[string][]answer) *sql.DB {
	t.Helper()
	ctx := context.Background()
	wh, err := load.Open(ctx, t.TempDir(), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	var tracked []load.TrackedShipment
	for number, answers := range shipments {
		tracked = append(tracked, load.TrackedShipment{Number: number, Type: "CT", Sealine: "MAEU",
			AddedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), AddedBy: "test"})
		for _, a := range answers {
			batch := transform.NewBatch(memory.DefaultAllocator)
			res := batch.Add(response.Landed{ID: fmt.Sprintf("%s-n%02d", number, a.night), ObservedAt: a.at(),
				Received: response.Received{Product: wire.ProductTracking, Endpoint: wire.EndpointShipment, Status: 200, Body: a.body(number)}})
			if res.DeadLetters > 0 {
				t.Fatalf("%s night %d: %d dead letters", number, a.night, res.DeadLetters)
			}
			bs := batch.Records()
			for _, r := range bs {
				defer r.Rec.Release()
			}
			if _, err := wh.Load(ctx, bs); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := wh.SaveTracked(ctx, tracked); err != nil {
		t.Fatal(err)
	}
	if err := wh.RefreshAnalytics(ctx); err != nil {
		t.Fatal(err)
	}
	return wh.DB()
}

// estimates are nights before an arrival on 2026-03-10 12:00, those its
// horizons read: the carrier's ETA 10 h early, the predictive ETA 2 h late
// the last two nights.
func estimates() []answer {
	arrival := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var out []answer
	for _, night := range []int{0, 2, 6, 8, 9} {
		a := answer{night: night, pod: arrival.Add(-10 * time.Hour)}
		if night >= 8 {
			a.predictive = arrival.Add(2 * time.Hour)
		}
		out = append(out, a)
	}
	return out
}

// derived are the rows derived from the answers that an analyst reads:
// every analytic view and table, and the latest-state tables (not the
// observation logs, which keep what was seen when).
var derived = []string{
	"shipments", "containers", "container_events",
	"eta_accuracy_known", "eta_accuracy", "eta_accuracy_summary", "eta_accuracy_comparison",
	"event_timeliness", "data_freshness",
}

func derivedRows(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	q := "SELECT * FROM " + table + " ORDER BY ALL"
	if table == "data_freshness" { // hours_since_observed follows the wall clock
		q = "SELECT * EXCLUDE (hours_since_observed) FROM data_freshness ORDER BY ALL"
	}
	return rows(t, db, q)
}

// apart returns the rows of a not in b, and of b not in a.
func apart(a, b []string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		count[r]--
	}
	for _, r := range a {
		if count[r] > 0 {
			onlyA = append(onlyA, r)
			count[r]--
		}
	}
	for _, r := range b {
		if count[r] < 0 {
			onlyB = append(onlyB, r)
			count[r]++
		}
	}
	return onlyA, onlyB
}

// A carrier that reports a box arrived, then takes it back (the POD date
// is an estimate again, the discharge no longer actual), leaves the
// warehouse as if it had never said so: every derived row — the shipment,
// its container's events, its accuracy rows, the summaries, the event
// timeliness, its freshness — is the one a warehouse that never saw the
// withdrawn answer has. WD1 arrived (as far as night 10 said) on
// 2026-03-10 12:00, withdrawn on night 11 (ETA 2026-03-12 00:00); OK1
// arrived on 2026-03-10 12:00 for good, so that the summaries have rows.
// When the actual comes again (night 12, 2026-03-12 03:00), the arrival
// is that one, with nothing of the withdrawn one either.
func TestAnActualArrivalLaterWithdrawnLeavesNoTraceInETAAccuracy(t *testing.T) {
	slowtest.Long(t)
	arrived := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	claimed := answer{night: 10, pod: arrived, actual: true}
	withdrawn := answer{night: 11, pod: time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)}
	again := answer{night: 12, pod: time.Date(2026, 3, 12, 3, 0, 0, 0, time.UTC), actual: true}
	ok := append(estimates(), answer{night: 10, pod: arrived, actual: true}, answer{night: 11, pod: arrived, actual: true})

	for _, c := range []struct {
		name              string
		seen, neverActual []answer
		arrivedAt         time.Time // zero: not arrived
	}{
		{"withdrawn", append(estimates(), claimed, withdrawn), append(estimates(), withdrawn), time.Time{}},
		{"reported again", append(estimates(), claimed, withdrawn, again), append(estimates(), withdrawn, again), again.pod},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := withdrawnWarehouse(t, map[string][]answer{"WD1": c.seen, "OK1": ok})
			want := withdrawnWarehouse(t, map[string][]answer{"WD1": c.neverActual, "OK1": ok})
			var actual sql.NullBool
			var arrivals int
			one(t, got, "SELECT pod_actual FROM shipments WHERE shipment_number = 'WD1'", &actual)
			one(t, got, "SELECT count(*) FROM eta_accuracy_known WHERE shipment_number = 'WD1'", &arrivals)
			if actual.Bool != !c.arrivedAt.IsZero() || (arrivals > 0) != !c.arrivedAt.IsZero() {
				t.Errorf("WD1: pod_actual %v, %d eta_accuracy_known rows; want arrived %v", actual, arrivals, !c.arrivedAt.IsZero())
			}
			if !c.arrivedAt.IsZero() {
				var at time.Time
				one(t, got, "SELECT DISTINCT actual_at FROM eta_accuracy WHERE shipment_number = 'WD1'", &at)
				if !at.Equal(c.arrivedAt) {
					t.Errorf("WD1 arrived at %v, want the actual reported again, %v", at, c.arrivedAt)
				}
			}
			for _, table := range derived {
				if only, never := apart(derivedRows(t, got, table), derivedRows(t, want, table)); len(only)+len(never) > 0 {
					t.Errorf("%s after an actual withdrawn differs from a warehouse that never saw it:\n--- only here\n%s\n--- only where it was never seen\n%s",
						table, strings.Join(only, "\n"), strings.Join(never, "\n"))
				}
			}
		})
	}
}

// postpodBody is the service's answer (spec/service.md §2.4) for WP1,
// CNSHA to DEDUI by way of NLRTM, transhipped at SGSIN from vessel
// 9321483 (voyage 1W) to 9074729 (voyage 2W), which discharged it at
// NLRTM: on night 10 its POD arrival is actual and its POSTPOD an
// estimate; on night 12 the carrier takes the POD arrival back (an
// estimate again, its discharge too) and reports the POSTPOD arrival.
func postpodBody(withdrawn bool) []byte {
	podActual, postpodActual, postpod := "true", "false", "2026-03-13T00:00:00Z"
	if withdrawn {
		podActual, postpodActual, postpod = "false", "true", "2026-03-12T06:00:00Z"
	}
	event := func(locode, code, date, actual, imo, voyage string) string {
		return fmt.Sprintf(`{"location": {"locode": %q}, "eventType": "EQUIPMENT", "eventCode": %q, "date": %q, "isActual": %s,
     "isAdditionalEvent": false, "routeType": "SEA", "transportType": "VESSEL", "vessel": {"name": "V", "imo": %s}, "voyage": %q}`,
			locode, code, date, actual, imo, voyage)
	}
	events := strings.Join([]string{
		event("CNSHA", "LOAD", "2026-02-10T08:00:00Z", "true", "9321483", "1W"),
		event("SGSIN", "DISC", "2026-02-16T08:00:00Z", "true", "9321483", "1W"),
		event("SGSIN", "LOAD", "2026-02-18T08:00:00Z", "true", "9074729", "2W"),
		event("NLRTM", "DISC", "2026-03-10T12:00:00Z", podActual, "9074729", "2W"),
	}, ",\n    ")
	return fmt.Appendf(nil, `{
  "metadata": {"shipmentType": "CT", "shipmentNumber": "WP1", "sealine": "MAEU", "sealineName": "Maersk", "shippingStatus": "IN_TRANSIT"},
  "route": {
    "pol": {"location": {"locode": "CNSHA"}, "date": "2026-02-10T08:00:00Z", "actual": true},
    "pod": {"location": {"locode": "NLRTM"}, "date": "2026-03-10T12:00:00Z", "actual": %s, "predictiveEta": null},
    "postpod": {"location": {"locode": "DEDUI"}, "date": %q, "actual": %s}
  },
  "containers": [{"number": "WP1", "isoCode": "42G1", "status": "IN_TRANSIT", "events": [
    %s
  ]}]
}`, podActual, postpod, postpodActual, events)
}

// A box's transhipment and the vessel call it arrived on at its POD are
// what its container events say, whatever the carrier now says of the
// POD's date: when the POD arrival is taken back and the POSTPOD arrival
// reported, the POSTPOD row of eta_accuracy_known is still transhipped
// (SGSIN, two vessels) and still clustered on the call that discharged it
// at NLRTM, as the whole build and a job's refresh for the shipment both
// compute it.
func TestAPostPODArrivalKeepsItsLegsWhenThePODActualIsWithdrawn(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	wh, err := load.Open(ctx, t.TempDir(), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	// Each night's job publishes, which refreshes eta_accuracy_known for
	// the shipments it changed; then the table is built whole.
	check := func(how string) {
		t.Helper()
		var targets string
		var transhipped sql.NullBool
		var call string
		one(t, wh.DB(), "SELECT string_agg(target, ',' ORDER BY target) FROM eta_accuracy_known WHERE shipment_number = 'WP1' AND source = 'CARRIER'", &targets)
		if targets != "POSTPOD" {
			t.Fatalf("%s: WP1 has eta_accuracy_known rows of %q; want POSTPOD alone (its POD arrival was withdrawn)", how, targets)
		}
		one(t, wh.DB(), "SELECT transhipped, vessel_call FROM eta_accuracy_known WHERE shipment_number = 'WP1' AND source = 'CARRIER'", &transhipped, &call)
		if !transhipped.Valid || !transhipped.Bool || call != "NLRTM 9074729 2W" {
			t.Errorf("%s: WP1 at its POSTPOD: transhipped %v, vessel call %q; want true and NLRTM 9074729 2W", how, transhipped, call)
		}
	}
	for _, night := range []int{10, 12} {
		batch := transform.NewBatch(memory.DefaultAllocator)
		res := batch.Add(response.Landed{ID: fmt.Sprintf("WP1-n%02d", night), ObservedAt: time.Date(2026, 3, 1+night, 2, 0, 0, 0, time.UTC),
			Received: response.Received{Product: wire.ProductTracking, Endpoint: wire.EndpointShipment, Status: 200, Body: postpodBody(night == 12)}})
		if res.DeadLetters > 0 {
			t.Fatalf("night %d: %d dead letters", night, res.DeadLetters)
		}
		bs := batch.Records()
		if _, err := wh.Load(ctx, bs); err != nil {
			t.Fatal(err)
		}
		for _, r := range bs {
			r.Rec.Release()
		}
		if _, err := wh.Publish(ctx); err != nil {
			t.Fatal(err)
		}
	}
	check("refreshed for the shipment by the job")
	if err := wh.RefreshAnalytics(ctx); err != nil {
		t.Fatal(err)
	}
	check("built whole")
}
