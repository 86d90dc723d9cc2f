package load_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// TestOpenSweepsTempFiles: temp files a crashed sync left are invisible to
// readers (the mirror's glob does not match them) and removed by Open.
func TestOpenSweepsTempFiles(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := checkedMem(t)
	load1(t, w, mem, schema.ETAObservations, crashRows...)
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := parquetRows(t, w, schema.ETAObservations)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "parquet", "eta_observations", "observed_date=2024-01-01")
	orphans := []string{
		filepath.Join(part, ".tmp-3f2a9c"),
		filepath.Join(dir, "parquet", ".tmp-0b1d", "observed_date=2024-01-01", "data.parquet"),
	}
	for _, o := range orphans {
		if err := os.MkdirAll(filepath.Dir(o), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(o, []byte("PAR1 half a file"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := query(t, r, "SELECT "+rendered(schema.ETAObservations)+" FROM read_parquet('"+filepath.Join(dir, "parquet", "eta_observations", "**", "*.parquet")+"', hive_partitioning=true)")
	equal(t, "rows with orphans present", got, want)
	r.Close()

	openWarehouse(t, dir)
	for _, o := range orphans {
		if _, err := os.Stat(o); !os.IsNotExist(err) {
			t.Errorf("%s survived Open: %v", o, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "parquet", ".tmp-0b1d")); !os.IsNotExist(err) {
		t.Errorf("temp directory survived Open: %v", err)
	}
	if _, err := os.Stat(filepath.Join(part, "data.parquet")); err != nil {
		t.Errorf("the partition file went with the orphans: %v", err)
	}
}

// TestPendingSurvivesACrash: a job that loaded and died before syncing
// (a child process that exits without closing) leaves its partitions
// pending in DuckDB; the next SyncParquet writes them.
func TestPendingSurvivesACrash(t *testing.T) {
	dir := t.TempDir()
	if out, err := child(t, "load-and-die", dir); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	w := openWarehouse(t, dir)
	if files := parquetFiles(t, w, schema.ETAObservations); len(files) != 0 {
		t.Fatalf("files before the sync: %v", files)
	}
	st, err := w.SyncParquet(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 2 || st.Rows != 2 || st.Bytes == 0 {
		t.Errorf("sync: %+v, want 2 partitions of 1 row", st)
	}
	equal(t, "mirror", parquetRows(t, w, schema.ETAObservations), lines(schema.ETAObservations, crashRows...))
	if st, err := w.SyncParquet(t.Context()); err != nil || st != (load.SyncStats{}) {
		t.Errorf("second sync: %+v, %v: want nothing to do", st, err)
	}
}

// TestFailedSyncChangesNothing: a sync that fails (cancelled, or unable to
// put its file in place) leaves the previous file whole, no temp file, and
// the partition pending for the next sync.
func TestFailedSyncChangesNothing(t *testing.T) {
	for _, way := range mirrorWays {
		t.Run(way.name, func(t *testing.T) { failedSyncChangesNothing(t, way.setup) })
	}
}

func failedSyncChangesNothing(t *testing.T, setup func(*load.Warehouse)) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	setup(w)
	mem := checkedMem(t)
	v1 := etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1")
	v2 := etaObs("S2", "2024-01-01T11:00:00Z", "2024-01-09T00:00:00Z", "r2")
	load1(t, w, mem, schema.ETAObservations, v1)
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	load1(t, w, mem, schema.ETAObservations, v2)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := w.SyncParquet(ctx); err == nil {
		t.Fatal("a cancelled sync succeeded")
	}
	equal(t, "after a cancelled sync", parquetRows(t, w, schema.ETAObservations), lines(schema.ETAObservations, v1))

	// A directory where the file should go: the rename fails.
	part := filepath.Join(dir, "parquet", "eta_observations", "observed_date=2024-01-01")
	file := filepath.Join(part, "data.parquet")
	if err := os.Rename(file, file+".keep"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(file, "blocker"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SyncParquet(t.Context()); err == nil {
		t.Fatal("a sync that could not rename succeeded")
	}
	entries, err := os.ReadDir(part)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("temp file %s left after a failed sync", e.Name())
		}
	}
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM parquet_pending"); n != 1 {
		t.Errorf("%d partitions pending, want 1", n)
	}
	if err := os.RemoveAll(file); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	equal(t, "after the sync", parquetRows(t, w, schema.ETAObservations), lines(schema.ETAObservations, v1, v2))
	os.Remove(file + ".keep")
	entries, _ = os.ReadDir(part)
	if len(entries) != 1 || entries[0].Name() != "data.parquet" {
		t.Errorf("partition directory holds %v, want data.parquet alone", entries)
	}
}
