package load_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A pull merges the rows several warehouses hold as one warehouse that
// loaded every observation would hold them: for every split of four
// observations of a place between two writers, the pulled row is the one
// merging all four gives — each attribute from the latest observation
// that gave it, its Kept column naming that observation — though each
// writer's row already merged its own, and keeps in its Kept columns what
// its latest observation did not give. Each split is a place of its own,
// so that two writers hold all sixteen; their rows are read as the lake
// is fed (LakeRows).
func TestPullMergesDimensionRowsAsOneWarehouse(t *testing.T) {
	slowtest.Long(t)
	mem := checkedMem(t)
	pull, err := load.Open(t.Context(), t.TempDir(), load.Options{Now: clock, Pull: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pull.Close() })
	// Bit i of a split is the writer of observation i (r1 at t1, r2 and
	// r9 at t2, r3 at t3): one writer holds all (either one), the two at
	// t2 apart (r9's greater id wins the tie across writers) or together,
	// the latest alone or beside the oldest, …
	var parts [2][]row
	var want []row
	for split := range 16 {
		locode := fmt.Sprintf("S%04b", split)
		for i, r := range fourObservations(locode) {
			parts[split>>i&1] = append(parts[split>>i&1], r)
		}
		want = append(want, fourObserved(locode))
	}
	var writers []*load.Warehouse
	for _, p := range parts {
		w := freshWarehouse(t)
		load1(t, w, mem, schema.Locations, p...)
		writers = append(writers, w)
	}
	got, err := pull.PullTable(t.Context(), schema.Locations, func(add func(arrow.RecordBatch) error) error {
		for i, w := range writers {
			err := w.LakeRows(t.Context(), schema.Locations, load.LakeChange{Whole: partitions(t, w, schema.Locations)}, int64(i+1), func(rr array.RecordReader) error {
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
		t.Fatal(err)
	}
	// Each place's row is rendered with its locode, the split's bits.
	equal(t, "the places of the sixteen splits", query(t, pull.DB(), "SELECT "+rendered(schema.Locations)+" FROM locations"), lines(schema.Locations, want...))
	// Every split but the one that gives all to the other has a row in each.
	if got.Rows != 16 || got.Read[1] != 15 || got.Read[2] != 15 {
		t.Errorf("%d rows kept of %v read, want 16 of 15 rows from each writer", got.Rows, got.Read)
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
