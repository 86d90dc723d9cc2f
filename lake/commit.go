package lake

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// The snapshot summary properties of a commit: which run of which writer
// it carries.
const (
	RunIDProperty  = "etalake.run-id"
	WriterProperty = "etalake.writer"
)

// runNamespace makes a run's write id (the uuid in its data files' names)
// from the run id and the table: the files of a run are found by name.
var runNamespace = uuid.MustParse("6f0b7c52-8f6a-4a51-9d3c-2f1c3e7a9b10")

// writeID is the id in the names of the data files run writes to table t.
func writeID(run string, t *schema.Table) uuid.UUID {
	return uuid.NewSHA1(runNamespace, []byte(run+"/"+t.Name))
}

// Commit commits to the lake the partitions of w changed since its last
// commit (load.Warehouse.LakePending), and the whole of each table whose
// lake table lacks w's history (identity.go), one snapshot per table
// carrying run, etl_runs last. A table whose snapshots already carry run for this
// writer is not committed again. Data files a killed run of w left are
// removed first. It is load.Lake's method: Publish calls it.
func (l *Lake) Commit(ctx context.Context, w *load.Warehouse, run string) (_ load.LakeStats, err error) {
	var st load.LakeStats
	writer, err := w.LakeWriter(ctx)
	if err != nil {
		return st, err
	}
	// The lease says to maintain that this writer's files are a commit in
	// flight, from before the first is written (EnsureTables may write a
	// table's metadata) to after the last commit (lease.go).
	ls, err := l.takeLease(ctx, strconv.FormatInt(writer, 10))
	if err != nil {
		return st, err
	}
	defer func() {
		if rerr := ls.release(ctx); err == nil && rerr != nil {
			err = rerr
		}
	}()
	return l.commit(ctx, w, run, writer, ls)
}

// commit is Commit under the lease ls.
func (l *Lake) commit(ctx context.Context, w *load.Warehouse, run string, writer int64, ls *lease) (load.LakeStats, error) {
	var st load.LakeStats
	dead, err := w.LakeInflight(ctx)
	if err != nil {
		return st, err
	}
	if len(dead) > 0 {
		n, err := l.removeOrphans(ctx, writer, ls)
		st.Orphans = n
		if err != nil {
			return st, fmt.Errorf("lake: removing the files of killed runs %s: %w", strings.Join(dead, ", "), err)
		}
		if err := w.LakeEnd(ctx, dead...); err != nil {
			return st, err
		}
	}
	tables, err := l.ensureTables(ctx)
	if err != nil {
		return st, err
	}
	if err := l.resendMended(ctx, w, writer); err != nil {
		return st, err
	}
	_, changes, err := w.LakePending(ctx)
	if err != nil {
		return st, err
	}
	// A table whose lake table lacks the writer's history is committed
	// whole, what was pending of it included.
	whole, err := l.histories(ctx, w, tables, writer)
	if err != nil {
		return st, err
	}
	for t, c := range whole {
		changes[t] = c
	}
	order := commitOrder(changes)
	if len(order) == 0 {
		return st, nil
	}
	if err := w.LakeBegin(ctx, run); err != nil {
		return st, err
	}
	for _, t := range order {
		if err := l.commitTable(ctx, w, t, changes[t], writer, run, ls, &st); err != nil {
			return st, err
		}
		if err := w.LakeDone(ctx, t, changes[t]); err != nil {
			return st, err
		}
		if err := w.SetLakeTable(ctx, t, l.identity(tables[t])); err != nil {
			return st, err
		}
		// The night's rows are committed: a compaction that fails is
		// said, and tried again after the next commit.
		if err := l.upkeep(ctx, t, writer, &st); err != nil && st.UpkeepError == "" {
			st.UpkeepError = err.Error()
		}
		if err := l.hint(ctx, t); err != nil && st.UpkeepError == "" {
			st.UpkeepError = err.Error()
		}
	}
	return st, w.LakeEnd(ctx, run)
}

// commitTable replaces writer's rows of table t that change selects with
// the warehouse's rows of that selection, in one snapshot carrying run:
// the lake's old rows are deleted by position (merge-on-read: the files
// that hold them stay, with a position delete file beside them, unless
// every row of one goes), the new ones added in new files. A night writes
// what it changed, not the partitions it touched.
func (l *Lake) commitTable(ctx context.Context, w *load.Warehouse, t *schema.Table, change load.LakeChange, writer int64, run string, ls *lease, st *load.LakeStats) error {
	tbl, err := l.ensureTable(ctx, t, l.opt.SchemaVersion)
	if err != nil {
		return err
	}
	if committed(tbl, writer, run) {
		return nil
	}
	files, err := l.writeFiles(ctx, w, tbl, t, change, writer, run)
	if err != nil {
		return err
	}
	for _, f := range files {
		st.Files++
		st.Rows += f.Count()
		st.Bytes += f.FileSizeBytes()
	}
	if l.opt.BeforeCommit != nil {
		l.opt.BeforeCommit(t.Name)
	}
	props := iceberg.Properties{RunIDProperty: run, WriterProperty: strconv.FormatInt(writer, 10)}
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if tbl, err = l.cat.LoadTable(ctx, ident(t)); err != nil {
				return fmt.Errorf("lake: reloading %s: %w", t.Name, err)
			}
			if committed(tbl, writer, run) {
				return nil // an earlier try committed, though its answer was lost
			}
		}
		// Maintain spares the files only while the lease lives: one that
		// lapsed may have lost them, and is not committed.
		if err := ls.check(ctx); err != nil {
			return fmt.Errorf("lake: committing %s: %w", t.Name, err)
		}
		err = l.replace(ctx, tbl, t, change, writer, run, files, props, st)
		if err == nil {
			st.Tables++
			return nil
		}
		if !l.conflict(ctx, t, tbl, err) || attempt+1 >= l.opt.MaxAttempts {
			return fmt.Errorf("lake: committing %s (%d tries): %w", t.Name, attempt+1, err)
		}
		st.Retries++
		if err := l.backoff(ctx, attempt); err != nil {
			return err
		}
	}
}

// conflict reports whether err, the failure of a commit on tbl as
// loaded, is another writer's commit meanwhile: iceberg-go says so with
// table.ErrCommitFailed when the catalog's row moved, but only in words
// when the snapshot a requirement expected changed before the catalog
// was asked, so the table is reloaded and compared.
func (l *Lake) conflict(ctx context.Context, t *schema.Table, tbl *table.Table, err error) bool {
	if errors.Is(err, table.ErrCommitFailed) {
		return true
	}
	now, lerr := l.cat.LoadTable(ctx, ident(t))
	return lerr == nil && now.MetadataLocation() != tbl.MetadataLocation()
}

// committed reports whether a snapshot of tbl carries run of writer.
func committed(tbl *table.Table, writer int64, run string) bool {
	w := strconv.FormatInt(writer, 10)
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary != nil && s.Summary.Properties[RunIDProperty] == run && s.Summary.Properties[WriterProperty] == w {
			return true
		}
	}
	return false
}

// replace commits, on tbl as loaded, one snapshot that deletes by
// position writer's rows change selects and adds files (deletes.go).
func (l *Lake) replace(ctx context.Context, tbl *table.Table, t *schema.Table, change load.LakeChange, writer int64, run string, files []iceberg.DataFile, props iceberg.Properties, st *load.LakeStats) error {
	deletes, err := l.positionDeletes(ctx, tbl, t, change, writer, run)
	if err != nil {
		return err
	}
	if len(files) == 0 && len(deletes) == 0 {
		return nil
	}
	txn := tbl.NewTransaction()
	if err := txn.NewRowDelta(props).AddRows(files...).AddDeletes(deletes...).Commit(ctx); err != nil {
		return err
	}
	if err := txn.SetProperties(writerProps(writer, run, time.Now())); err != nil {
		return err
	}
	if _, err := txn.Commit(ctx); err != nil {
		return err
	}
	for _, d := range deletes {
		st.Deleted += d.Count()
	}
	return nil
}

// selection is the filter of writer's rows of t that change selects (as
// load.Warehouse.LakeRows selects the warehouse's; every one of writer's
// rows with change.All), nil when none.
func selection(tbl *table.Table, t *schema.Table, change load.LakeChange, writer int64) (iceberg.BooleanExpression, error) {
	dates := func(days []time.Time) iceberg.BooleanExpression {
		ds := make([]iceberg.Date, len(days))
		for i, d := range days {
			ds[i] = iceberg.Date(d.UTC().Unix() / 86400)
		}
		return iceberg.IsIn(iceberg.Reference(t.Partition), ds...)
	}
	mine := iceberg.EqualTo(iceberg.Reference(load.LakeWriterColumn), writer)
	if change.All {
		return mine, nil
	}
	var or iceberg.BooleanExpression
	if len(change.Whole) > 0 {
		or = dates(change.Whole)
	}
	if len(change.Keyed) > 0 && len(change.Keys) > 0 {
		keys, err := keyIn(tbl, t, change.Keys)
		if err != nil {
			return nil, err
		}
		k := iceberg.NewAnd(dates(change.Keyed), keys)
		if or == nil {
			or = k
		} else {
			or = iceberg.NewOr(or, k)
		}
	}
	if or == nil {
		return nil, nil
	}
	return iceberg.NewAnd(mine, or), nil
}

// keyIn is the filter "load.LakeKey(t) is one of keys", the keys typed as
// the column is.
func keyIn(tbl *table.Table, t *schema.Table, keys []string) (iceberg.BooleanExpression, error) {
	col := load.LakeKey(t)
	f, ok := tbl.Schema().FindFieldByName(col)
	if !ok {
		return nil, fmt.Errorf("lake: %s has no column %s", t.Name, col)
	}
	ref := iceberg.Reference(col)
	switch f.Type {
	case iceberg.PrimitiveTypes.String:
		return iceberg.IsIn(ref, keys...), nil
	case iceberg.PrimitiveTypes.Int64, iceberg.PrimitiveTypes.Int32:
		vs := make([]int64, len(keys))
		for i, k := range keys {
			v, err := strconv.ParseInt(k, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("lake: %s.%s: key %q is not an integer", t.Name, col, k)
			}
			vs[i] = v
		}
		return iceberg.IsIn(ref, vs...), nil
	}
	return nil, fmt.Errorf("lake: %s.%s: keys of type %s are not supported", t.Name, col, f.Type)
}

// eachFile calls fn with every data file of the current snapshot of tbl,
// its writer and its partition's day (YYYY-MM-DD), or month (YYYY-MM) in
// a table partitioned by month.
func eachFile(tbl *table.Table, fn func(f icebergDataFile, writer int64, day string)) error {
	return eachEntry(tbl, iceberg.ManifestContentData, fn)
}

// eachEntry is eachFile for the files of the manifests of content
// (data, or deletes).
func eachEntry(tbl *table.Table, content iceberg.ManifestContent, fn func(f icebergDataFile, writer int64, day string)) error {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return nil
	}
	fs, err := tbl.FS(context.Background())
	if err != nil {
		return err
	}
	manifests, err := snap.Manifests(fs)
	if err != nil {
		return err
	}
	spec := tbl.Spec()
	var writerID, dayID = -1, -1
	month := false
	for _, f := range spec.Fields() {
		switch f.Name {
		case load.LakeWriterColumn:
			writerID = f.FieldID
		default:
			dayID = f.FieldID
			_, month = f.Transform.(iceberg.MonthTransform)
		}
	}
	for _, m := range manifests {
		if m.ManifestContent() != content {
			continue
		}
		for e, err := range m.Entries(fs, true) {
			if err != nil {
				return err
			}
			df := e.DataFile()
			p := df.Partition()
			w, _ := p[writerID].(int64)
			if m, ok := p[dayID].(int32); ok && month {
				fn(df, w, time.Date(1970, time.Month(1+m), 1, 0, 0, 0, 0, time.UTC).Format("2006-01"))
				continue
			}
			fn(df, w, dayString(p[dayID]))
		}
	}
	return nil
}

// dayString renders a date partition value as YYYY-MM-DD.
func dayString(v any) string {
	switch d := v.(type) {
	case iceberg.Date:
		return time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly)
	case int32:
		return time.Unix(int64(d)*86400, 0).UTC().Format(time.DateOnly)
	case time.Time:
		return d.UTC().Format(time.DateOnly)
	}
	return fmt.Sprint(v)
}

// writeFiles writes the warehouse's rows of t that change selects as data
// files of tbl, named by run (writeID), and returns them. Nothing
// references them until the commit.
func (l *Lake) writeFiles(ctx context.Context, w *load.Warehouse, tbl *table.Table, t *schema.Table, change load.LakeChange, writer int64, run string) ([]iceberg.DataFile, error) {
	target, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return nil, err
	}
	var files []iceberg.DataFile
	err = w.LakeRows(ctx, t, change, writer, func(rr array.RecordReader) error {
		records := func(yield func(arrow.RecordBatch, error) bool) {
			for rr.Next() {
				rec, err := conform(rr.RecordBatch(), target)
				if !yield(rec, err) || err != nil {
					return
				}
			}
			if err := rr.Err(); err != nil {
				yield(nil, err)
			}
		}
		for f, err := range table.WriteRecords(ctx, tbl, target, records, table.WithWriteUUID(writeID(run, t)), table.WithClusteredWrite()) {
			if err != nil {
				return err
			}
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lake: writing the data files of %s: %w", t.Name, err)
	}
	return files, nil
}

// icebergDataFile is a data file as a manifest describes it.
type icebergDataFile = iceberg.DataFile
