package lake

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
)

// What a pull reads of one table, as files: a pull that read snapshot
// prev reads, of the current one,
//   - the data files added since, whole, each but the rows its delete
//     files delete (and the data files whose delete files went without
//     them: their rows come back);
//   - the data files gone since (a compaction, a partition replaced), to
//     drop their rows;
//   - the position delete files added since, to drop the rows they name.
//
// Data and delete files are told apart from the manifests of the two
// snapshots, not from the folder. A compaction's files are read again
// (their rows unchanged): what the upkeep rewrote, a fraction of what the
// nights wrote.

// pullPlan is what a pull reads of one table.
type pullPlan struct {
	change load.PullChange
	files  []iceberg.DataFile        // data files to read whole
	skip   map[string]map[int64]bool // positions deleted, by data file
}

// snapshotFiles lists the data files and the delete files of snapshot
// snap of tbl, by path.
func snapshotFiles(tbl *table.Table, snap *table.Snapshot) (data, deletes map[string]iceberg.DataFile, err error) {
	data, deletes = map[string]iceberg.DataFile{}, map[string]iceberg.DataFile{}
	fsys, err := tbl.FS(context.Background())
	if err != nil {
		return nil, nil, err
	}
	manifests, err := snap.Manifests(fsys)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range manifests {
		into := data
		if m.ManifestContent() == iceberg.ManifestContentDeletes {
			into = deletes
		}
		for e, err := range m.Entries(fsys, true) {
			if err != nil {
				return nil, nil, err
			}
			into[e.DataFile().FilePath()] = e.DataFile()
		}
	}
	return data, deletes, nil
}

// isAncestor reports whether snapshot id is cur or one of its ancestors
// in tbl's history.
func isAncestor(tbl *table.Table, cur *table.Snapshot, id int64) bool {
	for s := cur; s != nil; {
		if s.SnapshotID == id {
			return true
		}
		if s.ParentSnapshotID == nil {
			return false
		}
		s = tbl.Metadata().SnapshotByID(*s.ParentSnapshotID)
	}
	return false
}

// referenced is the data file a position delete file deletes from, ""
// when it may delete from any of its partition: its referenced_data_file,
// or equal bounds of its file_path column (deletes.go writes both).
func referenced(d iceberg.DataFile) string {
	if r, ok := d.(interface{ ReferencedDataFile() *string }); ok {
		if p := r.ReferencedDataFile(); p != nil && *p != "" {
			return *p
		}
	}
	lo, hi := d.LowerBoundValues()[filePathID], d.UpperBoundValues()[filePathID]
	if len(lo) > 0 && bytes.Equal(lo, hi) {
		return string(lo)
	}
	return ""
}

// planPull plans the pull of cur, a snapshot of tbl, after one of prev (0:
// none, read it whole).
func planPull(ctx context.Context, tbl *table.Table, cur *table.Snapshot, prev int64) (*pullPlan, error) {
	data, deletes, err := snapshotFiles(tbl, cur)
	if err != nil {
		return nil, err
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return nil, err
	}
	plan := &pullPlan{skip: map[string]map[int64]bool{}}
	read := map[string]bool{}
	var beforeDeletes map[string]iceberg.DataFile
	if prev != 0 && isAncestor(tbl, cur, prev) {
		var before map[string]iceberg.DataFile
		if before, beforeDeletes, err = snapshotFiles(tbl, tbl.Metadata().SnapshotByID(prev)); err != nil {
			return nil, err
		}
		read = plan.since(before, beforeDeletes, data, deletes)
	} else {
		plan.change.Full = true
		for p := range data {
			read[p] = true
		}
	}
	if err := plan.positionDeletes(ctx, fsys, data, deletes, beforeDeletes, read); err != nil {
		return nil, err
	}
	for p := range read {
		plan.files = append(plan.files, data[p])
	}
	slices.SortFunc(plan.files, func(a, b iceberg.DataFile) int { return strings.Compare(a.FilePath(), b.FilePath()) })
	return plan, nil
}

// since plans the pull after an ancestor snapshot of the files before
// and beforeDeletes: the data files gone are dropped; it returns the data
// files to read, those new and those a delete file gone no longer
// deletes rows of.
func (plan *pullPlan) since(before, beforeDeletes, data, deletes map[string]iceberg.DataFile) map[string]bool {
	read := map[string]bool{}
	for p := range before {
		if _, ok := data[p]; !ok {
			plan.change.Drop = append(plan.change.Drop, p)
		}
	}
	for p := range data {
		if _, ok := before[p]; !ok {
			read[p] = true
		}
	}
	// A delete file gone, its data file kept: the rows it deleted
	// are back.
	for p, d := range beforeDeletes {
		if _, ok := deletes[p]; ok {
			continue
		}
		for dp, df := range data {
			if ref := referenced(d); (ref == "" && samePartition(df, d)) || ref == dp {
				read[dp] = true
			}
		}
	}
	return read
}

// positionDeletes reads the position delete files that matter to this
// pull (those new, and those of a data file read again): the positions
// of a file read are skipped, those of a file the pull holds dropped.
func (plan *pullPlan) positionDeletes(ctx context.Context, fsys iceio.IO, data, deletes, beforeDeletes map[string]iceberg.DataFile, read map[string]bool) error {
	plan.change.Deleted = map[string][]int64{}
	for p, d := range deletes {
		_, old := beforeDeletes[p]
		if old && !deletesRead(d, data, read) {
			continue // applied by an earlier pull, and no file of it read again
		}
		pos := map[string]map[int64]bool{}
		if err := readPositionDeletes(ctx, fsys, p, pos); err != nil {
			return fmt.Errorf("reading the position deletes %s: %w", p, err)
		}
		for file, ps := range pos {
			if _, ok := data[file]; !ok {
				continue
			}
			if read[file] {
				if plan.skip[file] == nil {
					plan.skip[file] = map[int64]bool{}
				}
				for x := range ps {
					plan.skip[file][x] = true
				}
				continue
			}
			for x := range ps {
				plan.change.Deleted[file] = append(plan.change.Deleted[file], x)
			}
		}
	}
	return nil
}

// deletesRead reports whether position delete file d may delete rows of
// a data file read again.
func deletesRead(d iceberg.DataFile, data map[string]iceberg.DataFile, read map[string]bool) bool {
	if ref := referenced(d); ref != "" {
		return read[ref]
	}
	for p := range read {
		if samePartition(data[p], d) {
			return true
		}
	}
	return false
}

// samePartition reports whether data file f and delete file d are of one
// partition (and spec).
func samePartition(f, d iceberg.DataFile) bool {
	return partitionKey(f) == partitionKey(d)
}

// read adds the rows of the plan's data files, each with its position,
// but those deleted.
func (p *pullPlan) read(ctx context.Context, tbl *table.Table, add func(string, arrow.RecordBatch) error) error {
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return err
	}
	for _, f := range p.files {
		if err := readRows(ctx, fsys, f.FilePath(), p.skip[f.FilePath()], add); err != nil {
			return fmt.Errorf("reading %s: %w", f.FilePath(), err)
		}
	}
	return nil
}

// readRows adds every row of a data file with its position (the column
// load.PullPosColumn), but those at the positions skip.
func readRows(ctx context.Context, fsys iceio.IO, path string, skip map[int64]bool, add func(string, arrow.RecordBatch) error) error {
	var at int64
	return readColumns(ctx, fsys, path, nil, func(rec arrow.RecordBatch) error {
		n := rec.NumRows()
		pb := array.NewInt64Builder(memory.DefaultAllocator)
		keep := array.NewBooleanBuilder(memory.DefaultAllocator)
		dropped := false
		for i := range n {
			pb.Append(at + i)
			keep.Append(!skip[at+i])
			dropped = dropped || skip[at+i]
		}
		at += n
		pos, mask := pb.NewArray(), keep.NewArray()
		pb.Release()
		keep.Release()
		defer mask.Release()
		cols := append(append([]arrow.Array(nil), rec.Columns()...), pos)
		fields := append(append([]arrow.Field(nil), rec.Schema().Fields()...), arrow.Field{Name: load.PullPosColumn, Type: arrow.PrimitiveTypes.Int64})
		out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, n)
		pos.Release()
		if dropped {
			filtered, err := compute.FilterRecordBatch(ctx, out, mask, compute.DefaultFilterOptions())
			out.Release()
			if err != nil {
				return err
			}
			out = filtered
		}
		defer out.Release()
		return add(path, out)
	})
}
