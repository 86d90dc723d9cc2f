package load_test

import (
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// TestPendingSurvivesACrash: a job that loaded and died before syncing
// (a child process that exits without closing) leaves its partitions
// pending in DuckDB; the next SyncParquet writes them.
func TestPendingSurvivesACrash(t *testing.T) {
	slowtest.Long(t)
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
