package sql_test

import (
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
)

// The outlook lists what is still on its way, each from its latest
// estimate: S3 (never arrived) at its ETA observed on 03-11, not the one
// of 03-01; S10, whose arrival was reported and taken back, is on its way
// again. S1, S2 and S4 arrived and are not there. Once S4's final place is
// no longer said to be reached, its POSTPOD is there and its POD, reached,
// is not.
func TestArrivalOutlookListsOnlyWhatIsOnItsWayFromItsLatestEstimate(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	got := map[string]bool{}
	rs, err := db.Query("SELECT shipment_number || ' ' || target FROM arrival_outlook")
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var k string
		if err := rs.Scan(&k); err != nil {
			t.Fatal(err)
		}
		got[k] = true
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	rs.Close()
	for _, k := range []string{"S3 POD", "S10 POD"} {
		if !got[k] {
			t.Errorf("%s is on its way and not in arrival_outlook (%v)", k, got)
		}
	}
	for _, k := range []string{"S1 POD", "S2 POD", "S4 POD", "S4 POSTPOD", "S8 POD"} {
		if got[k] {
			t.Errorf("%s arrived and is in arrival_outlook", k)
		}
	}

	var observed, eta, estimate, latest, latestEstimate time.Time
	var shift, wantShift float64
	one(t, db, `SELECT observed_at, eta, estimate_at, estimate_minus_eta_hours FROM arrival_outlook WHERE shipment_number = 'S3'`,
		&observed, &eta, &estimate, &shift)
	one(t, db, `SELECT observed_at, estimate_at, (epoch(estimate_at) - epoch(eta)) / 3600 FROM arrival_estimates
		WHERE shipment_number = 'S3' ORDER BY observed_at DESC LIMIT 1`, &latest, &latestEstimate, &wantShift)
	if !observed.Equal(time.Date(2026, 3, 11, 2, 0, 0, 0, time.UTC)) || !observed.Equal(latest) {
		t.Errorf("S3's outlook was observed at %v, want its latest estimate's, 2026-03-11 02:00", observed)
	}
	if !eta.Equal(time.Date(2026, 3, 25, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("S3's carrier ETA in the outlook is %v, want the latest, 2026-03-25 00:00 (not 03-24's of 03-01)", eta)
	}
	if !estimate.Equal(latestEstimate) || shift != wantShift {
		t.Errorf("S3's outlook: estimate %v, %v h from the ETA; its latest estimate is %v, %v h", estimate, shift, latestEstimate, wantShift)
	}

	if _, err := db.Exec("UPDATE shipments SET postpod_actual = false WHERE shipment_number = 'S4'"); err != nil {
		t.Fatal(err)
	}
	var target string
	var n int
	one(t, db, "SELECT count(*), min(target) FROM arrival_outlook WHERE shipment_number = 'S4'", &n, &target)
	if n != 1 || target != "POSTPOD" {
		t.Errorf("S4 with its POD reached and its POSTPOD not: %d rows in the outlook, target %q; want its POSTPOD only", n, target)
	}
	one(t, db, "SELECT eta FROM arrival_outlook WHERE shipment_number = 'S4'", &eta)
	if !eta.Equal(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)) {
		t.Errorf("S4's POSTPOD ETA in the outlook is %v, want 2026-03-10 18:00", eta)
	}
}
