package load_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A pull merges the rows several warehouses hold as one warehouse that
// loaded every observation would hold them: for splits of four
// observations of a place between two writers, the pulled row is the one merging all four gives — each attribute
// from the latest observation that gave it, its Kept column naming that
// observation — though each writer's row already merged its own, and
// keeps in its Kept columns what its latest observation did not give.
// The writers' rows are read as the lake is fed (LakeRows).
func TestPullMergesDimensionRowsAsOneWarehouse(t *testing.T) {
	mem := checkedMem(t)
	obs := fourObservations("NLRTM")
	want := lines(schema.Locations, fourObserved("NLRTM"))
	pull, err := load.Open(t.Context(), t.TempDir(), load.Options{Now: clock, Pull: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pull.Close() })
	// Bit i of a split is the writer of observation i (r1 at t1, r2 and
	// r9 at t2, r3 at t3). Seven of the sixteen splits, as each takes two
	// new warehouses: one writer holds all (either one), the two at t2
	// apart (r9's greater id wins the tie across writers) or together,
	// the latest alone or beside the oldest, the tie's winner alone.
	for _, split := range []int{0b0000, 0b1111, 0b1001, 0b0101, 0b0110, 0b0011, 0b1000} {
		var parts [2][]row
		for i, r := range obs {
			parts[split>>i&1] = append(parts[split>>i&1], r)
		}
		var writers []*load.Warehouse
		for _, p := range parts {
			w := openWarehouse(t, t.TempDir())
			if len(p) > 0 {
				load1(t, w, mem, schema.Locations, p...)
			}
			writers = append(writers, w)
		}
		got, err := pull.PullTable(t.Context(), schema.Locations, func(add func(arrow.RecordBatch) error) error {
			for i, w := range writers {
				err := w.LakeRows(t.Context(), schema.Locations, partitions(t, w, schema.Locations), int64(i+1), func(rr array.RecordReader) error {
					for rr.Next() {
						if err := add(rr.RecordBatch()); err != nil {
							return err
						}
					}
					return rr.Err()
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("split %04b: %v", split, err)
		}
		what := fmt.Sprintf("split %04b", split)
		equal(t, what, query(t, pull.DB(), "SELECT "+rendered(schema.Locations)+" FROM locations"), want)
		if got.Rows != 1 || got.Read[1] != int64(min(len(parts[0]), 1)) || got.Read[2] != int64(min(len(parts[1]), 1)) {
			t.Errorf("%s: %d rows kept of %v read, want 1 of a row per writer that saw the place", what, got.Rows, got.Read)
		}
	}
}

// partitions lists the partitions of tbl the warehouse w holds.
func partitions(t *testing.T, w *load.Warehouse, tbl *schema.Table) []time.Time {
	t.Helper()
	rows, err := w.DB().QueryContext(t.Context(), fmt.Sprintf("SELECT DISTINCT %s FROM %s", schema.Ident(tbl.Partition), schema.Ident(tbl.Name)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var d time.Time
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}
