package jobs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
)

// A DCSA Commercial Schedules answer saved by another tool — a JSON array
// of port schedules, built from the standard's own example values — is
// recognised by import and loads its port calls; the item the standard's
// shapes do not fit is dead-lettered under its path, the rest load; the dummy vessel (no IMO yet) is left out.
func TestImportOfADCSAPortScheduleLoadsItsPortCalls(t *testing.T) {
	slowtest.Long(t)
	body, err := os.ReadFile("../testdata/transform/dcsa_port_schedules/body.json")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "port-schedules-NLAMS.json")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wh, err := load.Open(ctx, loadtest.Fresh(t, nil), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	st, err := jobs.Import(ctx, wh, []string{file}, jobs.ImportOptions{ObservedAt: time.Date(2025, 1, 13, 6, 0, 0, 0, time.UTC)})
	if st.Unidentified != 0 || st.Landed != 1 {
		t.Fatalf("import: %+v, %v: want the array identified and landed", st, err)
	}
	var calls, vessels, carriers int
	var resource, records string
	if err := wh.DB().QueryRow(`SELECT count(*), count(DISTINCT vessel_imo), count(DISTINCT carrier) FROM port_calls WHERE port_locode = 'NLAMS'`).Scan(&calls, &vessels, &carriers); err != nil {
		t.Fatal(err)
	}
	if calls != 5 || vessels != 2 || carriers != 2 {
		t.Errorf("port_calls: %d rows of %d vessels and %d carriers, want 5 of 2 and 2 (MAEU, CMDU)", calls, vessels, carriers)
	}
	if err := wh.DB().QueryRow(`SELECT resource FROM raw_responses`).Scan(&resource); err != nil || resource != "port:NLAMS" {
		t.Errorf("landed as %q, %v: want port:NLAMS", resource, err)
	}
	if err := wh.DB().QueryRow(`SELECT string_agg(record, ',' ORDER BY record) FROM dead_letters`).Scan(&records); err != nil || records != "[1].vesselSchedules[1].timestamps" {
		t.Errorf("dead letters %q, %v", records, err)
	}
}
