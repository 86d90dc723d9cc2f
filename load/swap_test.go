package load_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A sync swaps a changed table whole: the new tree links the files of the
// partitions that did not change (the same file, no byte copied), holds a
// new file for the one that did, and leaves no temp tree behind.
func TestSyncSwapsATableWholeLinkingWhatDidNotChange(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the swap needs Linux's renameat2; elsewhere the mirror is written partition by partition")
	}
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := checkedMem(t)
	days := []string{"2024-01-01", "2024-01-02", "2024-01-03"}
	for i, d := range days {
		load1(t, w, mem, schema.ETAObservations, etaObs("S1", d+"T10:00:00Z", "2024-01-09T00:00:00Z", fmt.Sprintf("r%d", i)))
	}
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	file := func(d string) string {
		return filepath.Join(dir, "parquet", "eta_observations", "observed_date="+d, "data.parquet")
	}
	before := map[string]os.FileInfo{}
	for _, d := range days {
		fi, err := os.Stat(file(d))
		if err != nil {
			t.Fatal(err)
		}
		before[d] = fi
	}
	load1(t, w, mem, schema.ETAObservations, etaObs("S2", "2024-01-02T11:00:00Z", "2024-01-09T00:00:00Z", "r9"))
	st, err := w.SyncParquet(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 1 || st.Linked != 2 || st.Rows != 2 {
		t.Errorf("sync: %+v; want 1 partition of 2 rows written, 2 files linked", st)
	}
	for _, d := range days {
		fi, err := os.Stat(file(d))
		if err != nil {
			t.Fatal(err)
		}
		if same := os.SameFile(fi, before[d]); same != (d != "2024-01-02") {
			t.Errorf("%s: the same file as before: %v", d, same)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("%s left under parquet/", e.Name())
		}
	}
	equal(t, "mirror", parquetRows(t, w, schema.ETAObservations), query(t, w.DB(), "SELECT "+rendered(schema.ETAObservations)+" FROM eta_observations"))
}

// mirrorWays are the two ways a sync writes the mirror: a table swapped
// whole (Linux) and partition by partition (elsewhere).
var mirrorWays = []struct {
	name  string
	setup func(*load.Warehouse)
}{
	{"swapped", func(*load.Warehouse) {}},
	{"by partition", load.WriteByPartition},
}

// A reader looping over a table of the mirror while syncs rewrite every
// partition of it, one with a row more each time (as a replay's end
// does), never errs and reads the rows of one sync or of the next, never
// fewer, never a table half gone.
func TestAReaderOfTheMirrorNeverSeesAGap(t *testing.T) {
	for _, way := range mirrorWays {
		t.Run(way.name, func(t *testing.T) {
			dir := t.TempDir()
			w := openWarehouse(t, dir)
			way.setup(w)
			mem := checkedMem(t)
			days := []string{"2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"}
			var rows []row
			for i, d := range days {
				rows = append(rows, etaObs("S0", d+"T10:00:00Z", "2024-01-09T00:00:00Z", fmt.Sprintf("r0-%d", i)))
			}
			load1(t, w, mem, schema.ETAObservations, rows...)
			if _, err := w.SyncParquet(t.Context()); err != nil {
				t.Fatal(err)
			}
			base := int64(len(rows))
			var synced atomic.Int64               // rows added by the syncs done
			reader, err := sql.Open("duckdb", "") // a notebook of its own
			if err != nil {
				t.Fatal(err)
			}
			defer reader.Close()
			glob := filepath.Join(dir, "parquet", "eta_observations", "**", "*.parquet")
			ctx, stop := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			var reads int
			var bad []string
			wg.Go(func() {
				for ctx.Err() == nil {
					before := synced.Load()
					var n int64
					err := reader.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s', hive_partitioning=true)", glob)).Scan(&n)
					after := synced.Load()
					switch {
					case ctx.Err() != nil:
					case err != nil:
						bad = append(bad, err.Error())
					case n < base+before || n > base+after+1:
						bad = append(bad, fmt.Sprintf("%d rows between syncs of %d and %d", n, base+before, base+after+1))
					default:
						reads++
					}
				}
			})
			for i := 1; i <= 10; i++ {
				// Every partition pending, as after a replay's reset; the
				// second day's with a row more.
				if err := w.Reset(t.Context(), []*schema.Table{schema.ETAObservations}); err != nil {
					t.Fatal(err)
				}
				rows = append(rows, etaObs(fmt.Sprintf("S%d", i), "2024-01-02T11:00:00Z", "2024-01-09T00:00:00Z", fmt.Sprintf("r%d", i)))
				load1(t, w, mem, schema.ETAObservations, rows...)
				if _, err := w.SyncParquet(t.Context()); err != nil {
					t.Fatal(err)
				}
				synced.Add(1)
			}
			stop()
			wg.Wait()
			if len(bad) > 0 {
				t.Errorf("%d of %d reads saw what no sync left: %s", len(bad), reads+len(bad), strings.Join(bad[:min(5, len(bad))], "; "))
			}
			if reads == 0 {
				t.Error("no read finished during the syncs")
			}
		})
	}
}
