package load_test

import (
	stdmaps "maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/etalake/etalake/schema"
)

// estimateRows renders arrival_estimates as readers or the writer see it.
const estimateRows = "SELECT shipment_number || ' ' || observed_at || ' ' || estimate_at FROM arrival_estimates ORDER BY 1"

// publishedRows queries the published database, as a notebook would.
func publishedRows(t *testing.T, dir, q string) []string {
	t.Helper()
	db := openPublished(t, dir)
	defer db.Close()
	return query(t, db, q)
}

// monthFiles stats the published files of arrival_estimates, by name.
func monthFiles(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".current", "analytics", "arrival_estimates"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]os.FileInfo{}
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, ".current", "analytics", "arrival_estimates", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi
	}
	return out
}

// arrival_estimates holds a row per carrier ETA ever observed: written
// whole at each publish, a year-old warehouse paid a year of rows every
// night. It is published a file per month of observed_at, and a publish
// writes only the months from the earliest day the estimate recomputed —
// across jobs (the day is recorded in the warehouse, not in memory) — and
// links the months before; readers see the writer's rows either way.
func TestArrivalEstimatesArePublishedByMonthAndOnlyChangedMonthsWritten(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	publish := func(what string) map[string]os.FileInfo {
		t.Helper()
		if st, err := w.Publish(t.Context()); err != nil || !st.Published {
			t.Fatalf("%s: %+v, %v; want it published", what, st, err)
		}
		equal(t, what+": readers' arrival_estimates", publishedRows(t, dir, estimateRows), query(t, w.DB(), estimateRows))
		return monthFiles(t, dir)
	}
	same := func(what string, before, after map[string]os.FileInfo, linked ...string) {
		t.Helper()
		for name, fi := range after {
			if was := os.SameFile(before[name], fi); was != slices.Contains(linked, name) {
				t.Errorf("%s: %s linked from the version before: %v, want %v", what, name, was, !was)
			}
		}
	}

	load1(t, w, checkedMem(t), schema.ETAObservations,
		etaObs("S1", "2024-01-20T10:00:00Z", "2024-02-10T00:00:00Z", "r1"),
		etaObs("S2", "2024-02-02T10:00:00Z", "2024-02-12T00:00:00Z", "r2"))
	first := publish("the first publish")
	if names := slices.Sorted(stdmaps.Keys(first)); !slices.Equal(names, []string{"2024-01.parquet", "2024-02.parquet"}) {
		t.Fatalf("arrival_estimates published as %v, want a file per month", names)
	}

	// A February observation, in the next job: January is linked.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w = openWarehouse(t, dir)
	load1(t, w, checkedMem(t), schema.ETAObservations, etaObs("S2", "2024-02-05T10:00:00Z", "2024-02-12T06:00:00Z", "r3"))
	second := publish("a February observation")
	same("a February observation", first, second, "2024-01.parquet")

	// A late January observation recomputes from its day: both months.
	load1(t, w, checkedMem(t), schema.ETAObservations, etaObs("S3", "2024-01-25T10:00:00Z", "2024-02-15T00:00:00Z", "r4"))
	third := publish("a late January observation")
	same("a late January observation", second, third)

	// A job that changes a table the analytic tables read, and no
	// estimate: they are rebuilt, and every month linked.
	load1(t, w, checkedMem(t), schema.Shipments, arrivedShipment)
	fourth := publish("a job that changed no estimate")
	same("a job that changed no estimate", third, fourth, "2024-01.parquet", "2024-02.parquet")

	// RefreshAnalytics recomputes the estimate whole: the next publish
	// writes every month, though it rebuilds nothing itself.
	if err := w.RefreshAnalytics(t.Context()); err != nil {
		t.Fatal(err)
	}
	fifth := publish("RefreshAnalytics")
	same("RefreshAnalytics", fourth, fifth)

	// RewriteMirror rewrites every month.
	if err := w.RewriteMirror(t.Context()); err != nil {
		t.Fatal(err)
	}
	same("RewriteMirror", fifth, publish("RewriteMirror"))
}

// RefreshAnalytics's rebuild reaches readers with the next Publish, not
// with a SyncParquet (a job whose publish failed shows readers how it
// ended with it): that one shows the tables as last published, and their
// analytic tables with them, not ones built from tables readers do not
// see yet.
func TestASyncAfterRefreshAnalyticsKeepsTheAnalyticTablesPublished(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	load1(t, w, checkedMem(t), schema.ETAObservations, etaObs("S1", "2024-01-20T10:00:00Z", "2024-02-10T00:00:00Z", "r1"))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	published := query(t, w.DB(), estimateRows)
	load1(t, w, checkedMem(t), schema.ETAObservations, etaObs("S2", "2024-02-02T10:00:00Z", "2024-02-12T00:00:00Z", "r2"))
	if err := w.RefreshAnalytics(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SyncParquet(t.Context(), schema.ETLRuns); err != nil {
		t.Fatal(err)
	}
	equal(t, "readers' arrival_estimates after SyncParquet", publishedRows(t, dir, estimateRows), published)
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	equal(t, "readers' arrival_estimates after Publish", publishedRows(t, dir, estimateRows), query(t, w.DB(), estimateRows))
	equal(t, "readers' eta_observations after Publish", publishedRows(t, dir, "SELECT count(*)::VARCHAR FROM eta_observations"), []string{"2"})
}
