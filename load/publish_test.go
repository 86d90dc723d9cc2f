package load_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// arrived is a shipment's estimate and then its actual arrival: one row
// of eta_accuracy_known per source of the POD (carrier, predictive,
// etalake's own estimate) once the
// analytic tables are rebuilt, the shipment's latest state saying it
// arrived (arrivedShipment).
var arrived = []row{
	etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1"),
	func() row {
		r := etaObs("S1", "2024-01-09T12:00:00Z", "2024-01-09T06:00:00Z", "r2")
		r["is_actual"] = true
		return r
	}(),
}

// arrivedShipment is the latest state of arrived's shipment: at its POD,
// actually. The analytics take a shipment for arrived by its latest
// answer, so that one later withdrawing the actual leaves no trace.
var arrivedShipment = row{"shipment_number": "S1", "shipment_type": "CT", "pod_locode": "NLRTM", "pod_date": "2024-01-09T06:00:00Z",
	"pod_actual": true, "container_count": 1, "first_observed_at": "2024-01-01T10:00:00Z", "last_observed_at": "2024-01-09T12:00:00Z",
	"response_id": "r2", "first_observed_date": "2024-01-01"}

// publishedCount counts in the published database, as a notebook opening
// it read-only would.
func publishedCount(t *testing.T, dir, q string) int64 {
	t.Helper()
	db := openPublished(t, dir)
	defer db.Close()
	return queryInt(t, db, q)
}

// openPublished opens the published database read-only. The caller
// closes it as soon as it has read: an open reader holds its version,
// which a publish then keeps (TestAReaderKeepsItsVersionUntilItCloses).
func openPublished(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// What a Publish gives readers has its analytic tables built from the
// tables beside them, and its Parquet mirror written: they are rebuilt
// when those tables changed, and only then.
func TestPublishRebuildsTheAnalyticTablesItPublishes(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	load1(t, w, checkedMem(t), schema.ETAObservations, arrived...)
	load1(t, w, checkedMem(t), schema.Shipments, arrivedShipment)
	st, err := w.Publish(t.Context())
	if err != nil || !st.Published || !st.Refreshed || st.Mirror.Written != 3 {
		t.Fatalf("Publish: %+v, %v; want the analytic tables rebuilt and 3 partitions of the mirror written first (2 of eta_observations, 1 of shipments)", st, err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_accuracy_known WHERE shipment_number = 'S1'"); n != 3 {
		t.Errorf("readers see %d rows of eta_accuracy_known for the arrived shipment, want 3", n)
	}
	equal(t, "the mirror", parquetRows(t, w, schema.ETAObservations), query(t, w.DB(), "SELECT "+rendered(schema.ETAObservations)+" FROM eta_observations"))
	if st, err := w.Publish(t.Context()); err != nil || st.Published || st.Refreshed {
		t.Errorf("Publish with nothing changed: %+v, %v; want nothing done", st, err)
	}
	// A change of the tracked set alone: no table the analytics read.
	if err := w.SaveTracked(t.Context(), []load.TrackedShipment{{Number: "S1", Type: "CT", AddedAt: clock(), AddedBy: "test"}}); err != nil {
		t.Fatal(err)
	}
	if st, err := w.Publish(t.Context()); err != nil || !st.Published || st.Refreshed || st.Mirror.Written != 1 {
		t.Errorf("Publish of the tracked set: %+v, %v; want it published with its mirror, nothing rebuilt", st, err)
	}
}

// A working copy a job left unpublished — it died, or its publish failed
// — is one whose analytic tables may lag its tables: the next writer's
// publish rebuilds them, though that writer changed none of them.
func TestTheNextWriterRebuildsWhatADeadJobLeft(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	if out, err := child(t, "load-and-die", dir); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	w := openWarehouse(t, dir)
	st, err := w.Publish(t.Context())
	if err != nil || !st.Refreshed || st.Mirror.Written != 2 {
		t.Fatalf("Publish after a job died: %+v, %v; want the analytic tables rebuilt and the 2 partitions it left written", st, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w = openWarehouse(t, dir)
	if st, err := w.Publish(t.Context()); err != nil || st.Refreshed {
		t.Errorf("Publish after a clean end: %+v, %v; want nothing rebuilt", st, err)
	}
}

// Responses landed and not derived (a job stopped between the two, a
// replay stopped midway) would be published without their rows: Publish
// refuses, and readers keep what they had; once derived, it publishes.
// Close after a Publish publishes nothing of its own.
func TestPublishRefusesLandedResponsesNotDerived(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	r := fetched(t0, `{"a":1}`)
	land(t, w, r)
	if n, err := w.Underived(t.Context()); err != nil || n != 1 {
		t.Fatalf("Underived: %d, %v; want 1", n, err)
	}
	if _, err := w.Publish(t.Context()); !errors.Is(err, load.ErrUnderived) {
		t.Fatalf("Publish with a response not derived: %v; want ErrUnderived", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM raw_responses"); n != 0 {
		t.Errorf("readers see %d responses after the refused Publish and Close, want none", n)
	}
	w = openWarehouse(t, dir)
	if _, err := w.Load(t.Context(), nil, load.ResponseID(&r)); err != nil { // derived: no rows
		t.Fatal(err)
	}
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM raw_responses"); n != 1 {
		t.Errorf("readers see %d responses once it is derived, want 1", n)
	}
}

// A Publish that fails publishes nothing: readers keep the database as
// before and the working copy keeps what the job did, for the next
// Publish, analytic tables included. Here what stands in the way is a
// body segment that cannot be read (a file lost, a disk that fails).
func TestAFailedPublishLeavesReadersTheStateBefore(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	landDerived(t, w, fetched(t0, `{"port":"NLRTM"}`))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	load1(t, w, checkedMem(t), schema.ETAObservations, arrived...)
	load1(t, w, checkedMem(t), schema.Shipments, arrivedShipment)
	segment := filepath.Join(dir, "bodies", "segments", "s000000001.parquet")
	if err := os.Rename(segment, segment+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(t.Context()); err == nil || !strings.Contains(err.Error(), "etalake.duckdb") {
		t.Fatalf("Publish without its segment: %v; want an error naming the database", err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != 0 {
		t.Errorf("readers see %d rows after the failed publish, want the 0 before", n)
	}
	if err := os.Rename(segment+".away", segment); err != nil {
		t.Fatal(err)
	}
	if st, err := w.Publish(t.Context()); err != nil || !st.Published {
		t.Fatalf("Publish once the way is clear: %+v, %v", st, err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_accuracy_known"); n != 3 {
		t.Errorf("readers see %d rows of eta_accuracy_known, want 3", n)
	}
}

// endFailed ends a job as one whose publish failed does (jobs/end.go):
// its Publish fails (segment, a body segment, cannot be read), it shows
// readers its etl_runs row alone, and it closes.
func endFailed(t *testing.T, w *load.Warehouse, segment string) {
	t.Helper()
	if err := os.Rename(segment, segment+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(t.Context()); err == nil {
		t.Fatal("Publish without its segment succeeded")
	}
	if err := os.Rename(segment+".away", segment); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SyncParquet(t.Context(), schema.ETLRuns); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// A job whose publish failed shows readers how it ended — its etl_runs
// row, alone (jobs/end.go) — and leaves the rest to the next job: the
// next job's publish writes the tables' partitions that job left pending
// and rebuilds the analytic tables from them, though it loads nothing
// itself.
func TestTheNextJobPublishesWhatAFailedJobsSyncLeft(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	landDerived(t, w, fetched(t0, `{"port":"NLRTM"}`))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	load1(t, w, checkedMem(t), schema.ETAObservations, arrived...)
	load1(t, w, checkedMem(t), schema.Shipments, arrivedShipment)
	segment := filepath.Join(dir, "bodies", "segments", "s000000001.parquet")
	endFailed(t, w, segment)
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != 0 {
		t.Errorf("readers see %d rows of eta_observations after the failed job, want the 0 before", n)
	}

	w = openWarehouse(t, dir)
	st, err := w.Publish(t.Context())
	if err != nil || !st.Published || !st.Refreshed {
		t.Fatalf("the next job's Publish: %+v, %v; want the analytic tables rebuilt and a version published", st, err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != int64(len(arrived)) {
		t.Errorf("readers see %d rows of eta_observations, want the failed job's %d", n, len(arrived))
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_accuracy_known"); n != 3 {
		t.Errorf("readers see %d rows of eta_accuracy_known, want 3", n)
	}
	if st, err := w.Publish(t.Context()); err != nil || st.Published {
		t.Errorf("a Publish after that with nothing changed: %+v, %v; want nothing done", st, err)
	}

	// A failed job that changed no table the analytics read: the next
	// job publishes its partitions, and rebuilds nothing.
	if err := w.SaveTracked(t.Context(), []load.TrackedShipment{{Number: "S1", Type: "CT", AddedAt: clock(), AddedBy: "test"}}); err != nil {
		t.Fatal(err)
	}
	endFailed(t, w, segment)
	w = openWarehouse(t, dir)
	if st, err := w.Publish(t.Context()); err != nil || !st.Published || st.Refreshed || st.Mirror.Written != 1 {
		t.Errorf("the next job's Publish of the tracked set the failed job left: %+v, %v; want it published with its mirror, nothing rebuilt", st, err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM tracked_shipments"); n != 1 {
		t.Errorf("readers see %d tracked shipments, want the failed job's 1", n)
	}
}

// A SyncParquet of some tables leaves the others' partitions pending: a
// SyncParquet of every table after it writes them, though the working
// copy has not changed since.
func TestASyncOfSomeTablesLeavesTheOthersToTheNext(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	if err := w.SaveTracked(t.Context(), []load.TrackedShipment{{Number: "S1", Type: "CT", AddedAt: clock(), AddedBy: "test"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SyncParquet(t.Context(), schema.ETLRuns); err != nil {
		t.Fatal(err)
	}
	if st, err := w.SyncParquet(t.Context()); err != nil || st.Written != 1 {
		t.Errorf("SyncParquet of every table after one of etl_runs: %+v, %v; want the tracked set's partition written", st, err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM tracked_shipments"); n != 1 {
		t.Errorf("readers see %d tracked shipments, want 1", n)
	}
}
