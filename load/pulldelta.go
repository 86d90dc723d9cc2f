package load

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/schema"
)

// A pull keeps, beside each table, the lake's rows it was merged from:
// the stage pull_rows_<table>, every writer's rows as the lake's data
// files hold them, each with the file and the position it was read at.
// The next pull reads only what changed since (PullDelta): the data files
// and delete files added or removed between the snapshot it read last
// (lake_pull) and the current one. The stage loses the rows of the files
// gone and the rows the new delete files name, gains the rows of the new
// files, and the table's rows of every key those rows hold are merged
// again from the stage: a night's pull costs the night's files, not the
// lake. The stage is the pull's own: readers see the tables.

// PullPosColumn is the column of a record a pull adds to the stage: the
// row's position in its data file.
const PullPosColumn = "__pos"

// PullChange is what changed in a lake table since the snapshot the last
// pull read, as files. Full rebuilds the stage and the table from the
// rows the scan adds; else the stage's rows of the files in Drop go, and
// those at the positions Deleted names (by data file).
type PullChange struct {
	Full    bool
	Drop    []string
	Deleted map[string][]int64
}

// pullRows is the stage of table t.
func pullRows(t *schema.Table) string { return "pull_rows_" + t.Name }

// pullAffected holds the keys a delta touched, whose rows are merged
// again; pullDeleted the positions the new delete files delete.
const (
	pullAffected = "__pull_affected"
	pullDeleted  = "__pull_deleted"
)

// positionsRecord is the record (file, pos) of the positions deleted.
func positionsRecord(deleted map[string][]int64) arrow.RecordBatch {
	sch := arrow.NewSchema([]arrow.Field{{Name: "file", Type: arrow.BinaryTypes.String}, {Name: "pos", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
	defer b.Release()
	for file, pos := range deleted {
		for _, p := range pos {
			b.Field(0).(*array.StringBuilder).Append(file)
			b.Field(1).(*array.Int64Builder).Append(p)
		}
	}
	return b.NewRecordBatch()
}

// PullDelta applies change to table t of a pull, and the rows scan adds
// (each record a data file's rows, columns by name as PullTable takes
// them, with LakeWriterColumn and PullPosColumn; file is its data file,
// whose rows in the stage are replaced). A full change is PullTable, the
// stage kept for the next delta; else everything is one transaction, so
// that a pull that fails leaves the table and its stage as the last pull
// left them (and lake_pull saying so).
func (w *Warehouse) PullDelta(ctx context.Context, t *schema.Table, change PullChange, scan func(add func(file string, rec arrow.RecordBatch) error) error) (PullRows, error) {
	if !w.opt.Pull {
		return PullRows{}, invalidf("%s: the warehouse was not opened for a pull of the lake", t.Name)
	}
	if err := checkMergeable(t); err != nil {
		return PullRows{}, err
	}
	if change.Full {
		return w.pullFull(ctx, t, scan)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return PullRows{}, errClosed
	}
	out := PullRows{Read: map[int64]int64{}}
	err := w.inTx(ctx, func(s *session) error {
		d := pullDeltaTx{s: s, t: t, keys: list("", t.Key)}
		if _, err := s.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT %s FROM %s LIMIT 0", ident(pullAffected), d.keys, ident(t.Name))); err != nil {
			return err
		}
		if err := d.dropChanged(ctx, change); err != nil {
			return err
		}
		if err := d.addScanned(ctx, scan, out.Read); err != nil {
			return err
		}
		return d.remerge(ctx)
	})
	if err != nil {
		return PullRows{}, fmt.Errorf("load: pulling what changed in the lake's %s: %w", t.Name, err)
	}
	if err := w.db.QueryRowContext(ctx, "SELECT count(*) FROM "+ident(t.Name)).Scan(&out.Rows); err != nil {
		return PullRows{}, err
	}
	w.stale = true
	return out, nil
}

// pullDeltaTx is a delta of table t applied in session s: the stage's
// rows that go and come, their keys gathered in pullAffected, then the
// table's rows of those keys merged again.
type pullDeltaTx struct {
	s    *session
	t    *schema.Table
	keys string // t's key columns, for SQL
}

// drop moves the keys of the stage's rows of cond to pullAffected and
// removes those rows.
func (d pullDeltaTx) drop(ctx context.Context, cond string) error {
	if _, err := d.s.exec(ctx, fmt.Sprintf("INSERT INTO %s SELECT DISTINCT %s FROM %s WHERE %s", ident(pullAffected), d.keys, ident(pullRows(d.t)), cond)); err != nil {
		return err
	}
	_, err := d.s.exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s", ident(pullRows(d.t)), cond))
	return err
}

// dropChanged drops the stage's rows of the files gone and at the
// positions deleted.
func (d pullDeltaTx) dropChanged(ctx context.Context, change PullChange) error {
	if len(change.Drop) > 0 {
		if err := d.drop(ctx, fmt.Sprintf("__file IN (%s)", literals(change.Drop))); err != nil {
			return err
		}
	}
	if len(change.Deleted) == 0 {
		return nil
	}
	rec := positionsRecord(change.Deleted)
	err := d.s.withView(ctx, rec, func() error {
		_, err := d.s.exec(ctx, fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS SELECT * FROM %s", ident(pullDeleted), ident(inView)))
		return err
	})
	rec.Release()
	if err != nil {
		return err
	}
	if err := d.drop(ctx, fmt.Sprintf("(__file, __pos) IN (SELECT (file, pos) FROM %s)", ident(pullDeleted))); err != nil {
		return err
	}
	_, err = d.s.exec(ctx, "DROP TABLE "+ident(pullDeleted))
	return err
}

// addScanned adds to the stage the rows scan adds, a file read again
// replacing its rows, counting them per writer in read, and gathers
// their keys.
func (d pullDeltaTx) addScanned(ctx context.Context, scan func(add func(string, arrow.RecordBatch) error) error, read map[int64]int64) error {
	added := map[string]bool{}
	err := scan(func(file string, rec arrow.RecordBatch) error {
		if !added[file] {
			added[file] = true
			if err := d.drop(ctx, fmt.Sprintf("__file = %s", literal(file))); err != nil {
				return err
			}
		}
		for i, n := range writersOf(rec) {
			read[i] += n
		}
		return d.s.stage(ctx, d.t, file, rec)
	})
	if err != nil || len(added) == 0 {
		return err
	}
	_, err = d.s.exec(ctx, fmt.Sprintf("INSERT INTO %s SELECT DISTINCT %s FROM %s WHERE __file IN (%s)", ident(pullAffected), d.keys, ident(pullRows(d.t)), literals(mapKeys(added))))
	return err
}

// remerge replaces the table's rows of the keys gathered with the stage's
// rows of them merged, and records their partitions for the mirror.
func (d pullDeltaTx) remerge(ctx context.Context) error {
	t, on := d.t, keyJoin(d.t, "x", "a")
	for _, q := range []string{
		pendingSQL(t, fmt.Sprintf("SELECT DISTINCT x.%s FROM %s AS x SEMI JOIN %s AS a ON %s", ident(t.Partition), ident(t.Name), ident(pullAffected), on)),
		fmt.Sprintf("DELETE FROM %s AS x USING (SELECT DISTINCT * FROM %s) AS a WHERE %s", ident(t.Name), ident(pullAffected), on),
		fmt.Sprintf("CREATE TEMP VIEW %s AS SELECT x.* EXCLUDE (__file, __pos) FROM %s AS x SEMI JOIN %s AS a ON %s", ident(inView), ident(pullRows(t)), ident(pullAffected), on),
		fmt.Sprintf("INSERT INTO %s (%s) SELECT %[2]s FROM %s", ident(t.Name), list("", stored(t)), pullSourceSQL(t)),
		pendingSQL(t, fmt.Sprintf("SELECT DISTINCT %s FROM %s", ident(t.Partition), ident(inView))),
		"DROP VIEW " + ident(inView),
		"DROP TABLE " + ident(pullAffected),
	} {
		if _, err := d.s.exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// stage inserts rec, rows of data file file, into the stage of t.
func (s *session) stage(ctx context.Context, t *schema.Table, file string, rec arrow.RecordBatch) error {
	q, err := pullRowsInsertSQL(t, rec.Schema(), file)
	if err != nil {
		return err
	}
	return s.withView(ctx, rec, func() error {
		_, err := s.exec(ctx, q)
		return err
	})
}

// pullFull rebuilds table t of a pull, and its stage, from the rows scan
// adds: the stage first, a transaction per record (DuckDB spills them
// past its memory limit), then the merge in one. lake_pull forgets the
// table first: a pull that fails midway leaves no snapshot a delta could
// start from, and the next one is full again.
func (w *Warehouse) pullFull(ctx context.Context, t *schema.Table, scan func(add func(file string, rec arrow.RecordBatch) error) error) (PullRows, error) {
	if err := checkDeletable([]*schema.Table{t}); err != nil {
		return PullRows{}, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return PullRows{}, errClosed
	}
	if _, err := w.db.ExecContext(ctx, "DELETE FROM lake_pull WHERE table_name = ?", t.Name); err != nil {
		return PullRows{}, fmt.Errorf("load: pulling %s: %w", t.Name, err)
	}
	if err := w.reset(ctx, t); err != nil {
		return PullRows{}, err
	}
	if _, err := w.db.ExecContext(ctx, pullRowsSQL(t)); err != nil {
		return PullRows{}, fmt.Errorf("load: pulling %s: %w", t.Name, err)
	}
	err := scan(func(file string, rec arrow.RecordBatch) error {
		return w.inTx(ctx, func(s *session) error { return s.stage(ctx, t, file, rec) })
	})
	if err != nil {
		return PullRows{}, fmt.Errorf("load: pulling %s: %w", t.Name, err)
	}
	out := PullRows{Read: map[int64]int64{}, Whole: true}
	err = w.inTx(ctx, func(s *session) error {
		stmts := []string{
			fmt.Sprintf("CREATE TEMP VIEW %s AS SELECT * EXCLUDE (__file, __pos) FROM %s", ident(inView), ident(pullRows(t))),
			fmt.Sprintf("INSERT INTO %s (%s) SELECT %[2]s FROM %s", ident(t.Name), list("", stored(t)), pullSourceSQL(t)),
			pendingSQL(t, fmt.Sprintf("SELECT DISTINCT %s FROM %s", ident(t.Partition), ident(t.Name))),
			"DROP VIEW " + ident(inView),
		}
		for i, q := range stmts {
			n, err := s.exec(ctx, q)
			if err != nil {
				return err
			}
			if i == 1 {
				out.Rows = n
			}
		}
		return nil
	})
	if err != nil {
		return PullRows{}, fmt.Errorf("load: merging the lake's %s: %w", t.Name, err)
	}
	rows, err := w.db.QueryContext(ctx, fmt.Sprintf("SELECT %s, count(*) FROM %s GROUP BY 1", ident(LakeWriterColumn), ident(pullRows(t))))
	if err != nil {
		return PullRows{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var wr, n int64
		if err := rows.Scan(&wr, &n); err != nil {
			return PullRows{}, err
		}
		out.Read[wr] = n
	}
	if err := rows.Err(); err != nil {
		return PullRows{}, err
	}
	w.stale = true
	return out, nil
}

// pullRowsSQL creates the stage of table t: its stored columns, the
// writer's, and the data file and position each row was read at.
func pullRowsSQL(t *schema.Table) string {
	cols := make([]string, 0, len(t.Columns)+3)
	for _, c := range t.Columns {
		cols = append(cols, ident(c.Name)+" "+c.Type.DuckDB())
	}
	cols = append(cols, ident(LakeWriterColumn)+" BIGINT NOT NULL", "__file VARCHAR", "__pos BIGINT")
	return fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", ident(pullRows(t)), strings.Join(cols, ", "))
}

// pullRowsInsertSQL copies the registered record, of schema sc, into the
// stage of t: each column by name, cast to the table's type (the lake's
// Arrow types differ in spelling: strings, time zones), null where the
// lake table lacks it (a column added after the lake's schema), with
// file and the record's PullPosColumn (null when it has none). A column
// the table does not have is refused: a newer etalake wrote it.
func pullRowsInsertSQL(t *schema.Table, sc *arrow.Schema, file string) (string, error) {
	if len(sc.FieldIndices(LakeWriterColumn)) == 0 {
		return "", invalidf("%s: the lake's rows have no %s column", t.Name, LakeWriterColumn)
	}
	for _, f := range sc.Fields() {
		if _, ok := t.Column(f.Name); !ok && f.Name != LakeWriterColumn && f.Name != PullPosColumn {
			return "", invalidf("the lake's %s has a column %s this etalake does not know: pull with the version the writers run", t.Name, f.Name)
		}
	}
	cols := make([]string, 0, len(t.Columns)+3)
	for _, c := range t.Columns {
		v := "NULL"
		if len(sc.FieldIndices(c.Name)) > 0 {
			v = ident(c.Name)
		}
		cols = append(cols, fmt.Sprintf("CAST(%s AS %s)", v, c.Type.DuckDB()))
	}
	pos := "NULL"
	if len(sc.FieldIndices(PullPosColumn)) > 0 {
		pos = ident(PullPosColumn)
	}
	cols = append(cols, ident(LakeWriterColumn), literal(file), pos)
	return fmt.Sprintf("INSERT INTO %s SELECT %s FROM %s", ident(pullRows(t)), strings.Join(cols, ", "), ident(inView)), nil
}

// writersOf counts the rows of rec per lake writer.
func writersOf(rec arrow.RecordBatch) map[int64]int64 {
	out := map[int64]int64{}
	idx := rec.Schema().FieldIndices(LakeWriterColumn)
	if len(idx) == 0 {
		return out
	}
	col, ok := rec.Column(idx[0]).(interface {
		Value(int) int64
		Len() int
	})
	if !ok {
		return out
	}
	for i := range col.Len() {
		out[col.Value(i)]++
	}
	return out
}

// literals renders strings as a list of SQL literals.
func literals(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = literal(s)
	}
	return strings.Join(out, ", ")
}

func mapKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// LastPull is what the last pull read of each lake table, by table name:
// the snapshot (0: none, or a pull that failed midway), when its stage is
// there to apply a delta to, and the lake it read (redacted URL).
func (w *Warehouse) LastPull(ctx context.Context) (map[string]int64, string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return nil, "", errClosed
	}
	rows, err := w.db.QueryContext(ctx, `SELECT p.table_name, coalesce(p.snapshot_id, 0), p.lake FROM lake_pull AS p
WHERE EXISTS (SELECT 1 FROM duckdb_tables() AS d WHERE d.schema_name = 'main' AND d.table_name = 'pull_rows_' || p.table_name)`)
	if err != nil {
		return nil, "", fmt.Errorf("load: reading what the last pull read: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	lake := ""
	for rows.Next() {
		var name string
		var snap int64
		if err := rows.Scan(&name, &snap, &lake); err != nil {
			return nil, "", err
		}
		out[name] = snap
	}
	return out, lake, rows.Err()
}
