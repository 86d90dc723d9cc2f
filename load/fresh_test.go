package load_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
)

// A warehouse opened fresh (a demo run again over the last one) starts
// from nothing while its readers keep the version published: the
// published database and the mirror show the old runs until the first
// publish, then the new working copy alone — no partition of the old
// warehouse linked into it — and later publishes link from it again.
func TestFreshWarehouseKeepsReadersUntilItsFirstPublish(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	day := func(d int) time.Time { return time.Date(2024, 3, d, 2, 0, 0, 0, time.UTC) }
	save := func(w *load.Warehouse, id string, started time.Time, publish bool) {
		t.Helper()
		if err := w.SaveRun(t.Context(), &load.Run{ID: id, Job: "demo", StartedAt: started, Status: load.StatusOK}); err != nil {
			t.Fatal(err)
		}
		if !publish {
			return
		}
		if _, err := w.Publish(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	open := func(fresh bool) *load.Warehouse {
		t.Helper()
		w, err := load.Open(t.Context(), dir, load.Options{Now: clock, Fresh: fresh})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	w := open(false)
	save(w, "old-1", day(1), false)
	save(w, "old-2", day(2), true)
	closeWarehouse(t, w)

	w = open(true)
	readersSee(t, dir, "opened fresh, before its first publish", "old-1", "old-2")
	save(w, "new-2", day(2), false)
	readersSee(t, dir, "a fresh warehouse's run saved, not published", "old-1", "old-2")
	save(w, "new-3", day(3), true)
	readersSee(t, dir, "a fresh warehouse's first publish", "new-2", "new-3")
	closeWarehouse(t, w)

	w = open(false)
	save(w, "new-4", day(4), true)
	readersSee(t, dir, "the next publish", "new-2", "new-3", "new-4")
	closeWarehouse(t, w)
}

func closeWarehouse(t *testing.T, w *load.Warehouse) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readersSee checks the runs a reader of the published database and one
// of the mirror's files see.
func readersSee(t *testing.T, dir, when string, want ...string) {
	t.Helper()
	db, err := load.OpenReadOnly(t.Context(), dir, load.Options{})
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	got := query(t, db, "SELECT run_id FROM etl_runs")
	db.Close()
	if !slices.Equal(got, want) {
		t.Errorf("%s: the published database shows runs %v, want %v", when, got, want)
	}
	mem, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	glob := filepath.Join(dir, "parquet", "etl_runs", "**", "*.parquet")
	got = query(t, mem, fmt.Sprintf("SELECT run_id FROM read_parquet('%s', hive_partitioning = true)", glob))
	if !slices.Equal(got, want) {
		t.Errorf("%s: the mirror shows runs %v, want %v", when, got, want)
	}
}
