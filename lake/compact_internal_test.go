package lake

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// A partition whose rows lie in several small files — what another
// engine's appends, or a commit split by a writer's batches, leave — is
// compacted by Maintain into one file in one snapshot, with the same rows;
// the partitions of one file each are left as they are.
func TestMaintainCompactsAPartitionOfSmallFiles(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	l := openLocal(t, dir)
	demoInto(t, l, filepath.Join(dir, "wh"), 2)
	// Settle what the demo's commits left for maintain (the deletes of
	// its second night, when the upkeep let them be): the test is of a
	// split alone.
	if _, err := l.Maintain(ctx, MaintainOptions{KeepDays: 7, OrphanGrace: 24 * time.Hour, Now: time.Now}); err != nil {
		t.Fatal(err)
	}
	tbl := schema.ContainerEvents
	it, err := l.cat.LoadTable(ctx, ident(tbl))
	if err != nil {
		t.Fatal(err)
	}
	// The partition with the most rows, split in two files.
	var big iceberg.DataFile
	var key partKey
	files := 0
	if err := eachFile(it, func(f icebergDataFile, w int64, day string) {
		files++
		if big == nil || f.Count() > big.Count() {
			big, key = f, partKey{w, day}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if big == nil || big.Count() < 2 {
		t.Fatalf("no partition of %s with 2 rows or more to split", tbl.Name)
	}
	rowsBefore := rowsOf(t, it)
	split(t, ctx, it, tbl, key, big)
	if it, err = l.cat.LoadTable(ctx, ident(tbl)); err != nil {
		t.Fatal(err)
	}
	if n := filesIn(t, it, key); n != 2 {
		t.Fatalf("the split left %d files in partition %v, want 2", n, key)
	}

	up, err := l.Maintain(ctx, MaintainOptions{KeepDays: 7, OrphanGrace: 24 * time.Hour, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range up {
		switch {
		case u.Name == tbl.Name && (u.Compacted != 1 || u.Rewritten != 2):
			t.Errorf("%s: %d partitions compacted, %d files rewritten; want 1 and 2", u.Name, u.Compacted, u.Rewritten)
		case u.Name != tbl.Name && u.Compacted != 0:
			t.Errorf("%s: %d partitions compacted, none of two files or more", u.Name, u.Compacted)
		}
	}
	if it, err = l.cat.LoadTable(ctx, ident(tbl)); err != nil {
		t.Fatal(err)
	}
	if n := filesIn(t, it, key); n != 1 {
		t.Errorf("after maintain partition %v has %d files, want 1", key, n)
	}
	if got := rowsOf(t, it); got != rowsBefore {
		t.Errorf("%s: %d rows after the split and the compaction, %d before", tbl.Name, got, rowsBefore)
	}
	if got := countFiles(t, it); got != files {
		t.Errorf("%s: %d files after the compaction, %d before the split", tbl.Name, got, files)
	}
}

// partKey is a partition: a writer's day, or month.
type partKey struct {
	writer int64
	day    string
}

// split replaces file f, the only one of partition k, with two files,
// each half its rows.
func split(t *testing.T, ctx context.Context, it *table.Table, tbl *schema.Table, k partKey, f iceberg.DataFile) {
	t.Helper()
	from, err := time.Parse(time.DateOnly, k.day)
	to := from.AddDate(0, 0, 1)
	if err != nil {
		if from, err = time.Parse("2006-01", k.day); err != nil {
			t.Fatal(err)
		}
		to = from.AddDate(0, 1, 0)
	}
	col := iceberg.Reference(tbl.Partition)
	filter := iceberg.NewAnd(iceberg.EqualTo(iceberg.Reference(load.LakeWriterColumn), k.writer),
		iceberg.NewAnd(iceberg.GreaterThanEqual(col, iceberg.Date(from.Unix()/86400)), iceberg.LessThan(col, iceberg.Date(to.Unix()/86400))))
	sc, records, err := it.Scan(table.WithRowFilter(filter)).ToArrowRecords(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for rec, err := range records {
		if err != nil {
			t.Fatal(err)
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	var all []arrow.RecordBatch
	for _, r := range recs {
		n := r.NumRows()
		all = append(all, r.NewSlice(0, n/2), r.NewSlice(n/2, n))
	}
	var halves []iceberg.DataFile
	for _, part := range [][]arrow.RecordBatch{all[:len(all)/2], all[len(all)/2:]} {
		seq := func(yield func(arrow.RecordBatch, error) bool) {
			for _, r := range part {
				if !yield(r, nil) {
					return
				}
			}
		}
		for df, err := range table.WriteRecords(ctx, it, sc, seq, table.WithClusteredWrite()) {
			if err != nil {
				t.Fatal(err)
			}
			halves = append(halves, df)
		}
	}
	txn := it.NewTransaction()
	if err := txn.ReplaceDataFilesWithDataFiles(ctx, []iceberg.DataFile{f}, halves, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func filesIn(t *testing.T, it *table.Table, k partKey) int {
	t.Helper()
	n := 0
	if err := eachFile(it, func(_ icebergDataFile, w int64, day string) {
		if (partKey{w, day}) == k {
			n++
		}
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func countFiles(t *testing.T, it *table.Table) int {
	t.Helper()
	n := 0
	if err := eachFile(it, func(icebergDataFile, int64, string) { n++ }); err != nil {
		t.Fatal(err)
	}
	return n
}

func rowsOf(t *testing.T, it *table.Table) int64 {
	t.Helper()
	var n int64
	if err := eachFile(it, func(f icebergDataFile, _ int64, _ string) { n += f.Count() }); err != nil {
		t.Fatal(err)
	}
	return n
}
