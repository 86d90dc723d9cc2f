package load

import (
	"context"
	"crypto/rand"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/schema"
)

// A warehouse may feed a lake (package lake: Iceberg tables in a shared
// catalog), a projection of its tables like the Parquet mirror. The lake
// is fed at the end of every Publish (Options.Lake) from the partitions
// that changed: the mirror forgets its pending partitions once written,
// so every sync copies them first into lake_pending, which the lake
// forgets only once they are committed. A warehouse that fed a lake once
// keeps recording them even when a job runs without the lake, so the
// next job with it commits what that one changed. lake_inflight holds the
// run whose data files are being written, until its commits are done: a
// writer killed in between leaves the row, and the next one removes the
// files no snapshot references.

// ErrLake: the warehouse was published, but committing its changes to the
// lake failed. The partitions stay pending for the next publish.
var ErrLake = errors.New("committing to the lake failed")

// Lake commits what a publish changed to a lake. Package lake implements
// it; load does not know the table format.
type Lake interface {
	// Commit commits the warehouse's pending lake partitions for the run
	// run (the job whose end the publish carries).
	Commit(ctx context.Context, w *Warehouse, run string) (LakeStats, error)
}

// LakeStats is what a lake commit did.
type LakeStats struct {
	Tables  int   // tables committed (one snapshot each)
	Files   int   // data files written
	Rows    int64 // rows in them
	Bytes   int64
	Retries int // commits retried after a conflict with another writer
	// Deleted counts the rows the commits deleted by position: the
	// lake's rows the night changed, each replaced by one of Rows.
	Deleted int64
	// Compacted counts the data files the upkeep after the commits
	// rewrote (upkeep.go in package lake), CompactedRows their rows.
	Compacted     int
	CompactedRows int64
	// UpkeepError is why a compaction or the writing of a table's
	// version hint failed (the first), when one did: the commits hold
	// the night all the same, and the next one's upkeep compacts what
	// this one left and writes the hint again.
	UpkeepError string
	// Orphans are data files of runs killed before their commit, removed.
	Orphans int
	Took    time.Duration // by Options.Now, set by Publish
}

const lakeDDL = `
CREATE TABLE IF NOT EXISTS lake_state (writer_id BIGINT NOT NULL, attached_at TIMESTAMPTZ NOT NULL);
COMMENT ON TABLE lake_state IS 'The id under which this warehouse writes to its lake (the etalake_writer column and partition of every lake table), since it first fed one.';
CREATE TABLE IF NOT EXISTS lake_pending (table_name VARCHAR NOT NULL, partition_date DATE NOT NULL);
COMMENT ON TABLE lake_pending IS 'Partitions changed since they were last committed to the lake; copied from parquet_pending before the mirror forgets them, removed once the lake table''s commit holds them.';
CREATE TABLE IF NOT EXISTS lake_inflight (run_id VARCHAR NOT NULL);
COMMENT ON TABLE lake_inflight IS 'The run writing data files to the lake, until its commits are done: a row left names a run killed in between, whose files the next commit removes.';
` + lakeKeysDDL

// lakeKeysDDL adds what a lake commit of changed rows needs to a warehouse
// that fed a lake before it: run at every first use of the lake's tables
// (an older lake_pending row has keyed NULL, a partition replaced whole).
const lakeKeysDDL = `
ALTER TABLE lake_pending ADD COLUMN IF NOT EXISTS keyed BOOLEAN;
COMMENT ON COLUMN lake_pending.keyed IS 'as parquet_pending.keyed: true when the rows changed are those of the keys in lake_keys, NULL when the partition is replaced whole.';
CREATE TABLE IF NOT EXISTS lake_keys (table_name VARCHAR NOT NULL, key VARCHAR NOT NULL);
COMMENT ON TABLE lake_keys IS 'The keys (load.LakeKey) of the rows changed since they were last committed to the lake, copied from pending_keys with their partitions: the lake deletes those rows and adds them as they are now.';
`

// lakeAttached reports whether the warehouse fed a lake once. The caller
// holds w.mu.
func (w *Warehouse) lakeAttached(ctx context.Context) (bool, error) {
	var n int
	err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = 'lake_state'`).Scan(&n)
	if err != nil || n == 0 || w.lakeKeysReady {
		return n > 0, err
	}
	if _, err := w.db.ExecContext(ctx, lakeKeysDDL); err != nil {
		return false, fmt.Errorf("load: adding lake_keys to the lake's tables: %w", err)
	}
	w.lakeKeysReady = true
	return true, nil
}

// notePending copies the mirror's pending partitions to lake_pending when
// the warehouse feeds a lake. sync calls it before it writes them. The
// caller holds w.mu.
func (w *Warehouse) notePending(ctx context.Context) error {
	if w.opt.Lake == nil {
		on, err := w.lakeAttached(ctx)
		if err != nil || !on {
			return err
		}
	} else if _, err := w.attachLake(ctx); err != nil {
		return err
	}
	_, err := w.db.ExecContext(ctx, `INSERT INTO lake_pending (table_name, partition_date, keyed)
SELECT DISTINCT p.table_name, p.partition_date, p.keyed FROM parquet_pending AS p
WHERE NOT EXISTS (SELECT 1 FROM lake_pending AS l WHERE l.table_name = p.table_name AND l.partition_date = p.partition_date
	AND l.keyed IS NOT DISTINCT FROM p.keyed);
INSERT INTO lake_keys (table_name, key)
SELECT DISTINCT p.table_name, p.key FROM pending_keys AS p
WHERE NOT EXISTS (SELECT 1 FROM lake_keys AS l WHERE l.table_name = p.table_name AND l.key = p.key)`)
	if err != nil {
		return fmt.Errorf("load: recording the partitions for the lake: %w", err)
	}
	return nil
}

// attachLake creates the lake's tables when absent and returns the
// writer id. The first time, every partition of every mirrored table is
// pending: the lake gets the warehouse whole. The caller holds w.mu.
func (w *Warehouse) attachLake(ctx context.Context) (int64, error) {
	on, err := w.lakeAttached(ctx)
	if err != nil {
		return 0, err
	}
	if on {
		var id int64
		err := w.db.QueryRowContext(ctx, `SELECT writer_id FROM lake_state LIMIT 1`).Scan(&id)
		if err == nil {
			return id, nil
		}
	}
	// A positive 63-bit number: Iceberg partitions by it as a long
	// (iceberg-go v0.7.0 reads string partition values of manifests
	// into reused memory).
	var rb [8]byte
	_, _ = rand.Read(rb[:])
	id := int64(binary.BigEndian.Uint64(rb[:]) >> 1)
	var b strings.Builder
	b.WriteString("BEGIN TRANSACTION;\n" + lakeDDL)
	fmt.Fprintf(&b, "DELETE FROM lake_state;\nINSERT INTO lake_state VALUES (%d, %s);\n", id, literal(w.opt.Now().UTC().Format(time.RFC3339Nano)))
	for _, t := range schema.Tables {
		if Mirrored(t) {
			fmt.Fprintf(&b, "INSERT INTO lake_pending (table_name, partition_date) SELECT DISTINCT %s, %s FROM %s;\n", literal(t.Name), ident(t.Partition), ident(t.Name))
		}
	}
	b.WriteString("COMMIT;\n")
	if _, err := w.db.ExecContext(ctx, b.String()); err != nil {
		_, _ = w.db.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return 0, fmt.Errorf("load: attaching the warehouse to a lake: %w", err)
	}
	return id, nil
}

// LakeWriter is the id under which the warehouse writes to its lake,
// chosen at random the first time it feeds one and kept in the
// warehouse (lake_state): every process writing this warehouse is the
// same lake writer, and two warehouses never are.
func (w *Warehouse) LakeWriter(ctx context.Context) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return 0, errClosed
	}
	return w.attachLake(ctx)
}

// LakeChange is what changed in one table since it was last committed to
// the lake: the partitions changed whole (Whole), and the rows of the
// keys Keys (values of LakeKey, as text) in the partitions Keyed. The lake
// replaces exactly the rows in Whole or of Keys in Keyed, with the
// warehouse's rows of the same selection (LakeRows): the old partitions
// and the new of every row a merge changed are among Keyed, so the
// selection holds every row the lake must change, and no row twice.
type LakeChange struct {
	Whole []time.Time
	Keyed []time.Time
	Keys  []string
	// All: the lake table lacks the writer's history (LakeHistory), so
	// every row of the writer it holds goes, whatever its partition, and
	// Whole lists every partition of the warehouse's table.
	All bool
}

// Empty reports whether nothing changed.
func (c LakeChange) Empty() bool { return !c.All && len(c.Whole) == 0 && len(c.Keyed) == 0 }

// LakePending lists what changed since the last commit to the lake, per
// table, in the order of schema.Tables with etl_runs last (a reader who
// sees a job in the lake's etl_runs sees its tables).
func (w *Warehouse) LakePending(ctx context.Context) ([]*schema.Table, map[*schema.Table]LakeChange, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return nil, nil, errClosed
	}
	if _, err := w.attachLake(ctx); err != nil {
		return nil, nil, err
	}
	// A partition changed whole and by keys is replaced whole.
	rows, err := w.db.QueryContext(ctx, `SELECT table_name, partition_date, bool_and(coalesce(keyed, false))
FROM lake_pending GROUP BY ALL ORDER BY ALL`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	days := map[*schema.Table][]day{}
	out := map[*schema.Table]LakeChange{}
	for rows.Next() {
		var name string
		var d time.Time
		var keyed bool
		if err := rows.Scan(&name, &d, &keyed); err != nil {
			return nil, nil, err
		}
		t, ok := schema.ByName(name)
		if !ok || !Mirrored(t) {
			return nil, nil, fmt.Errorf("load: lake_pending names %q, not a mirrored table of this binary", name)
		}
		days[t] = append(days[t], dayOf(d))
		c := out[t]
		if keyed && Keyed(t) {
			c.Keyed = append(c.Keyed, dayOf(d).Time())
		} else {
			c.Whole = append(c.Whole, dayOf(d).Time())
		}
		out[t] = c
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	for t, c := range out {
		if len(c.Keyed) == 0 {
			continue
		}
		if c.Keys, err = w.lakeKeys(ctx, t); err != nil {
			return nil, nil, err
		}
		out[t] = c
	}
	return syncOrder(days), out, nil
}

// lakeKeys lists the keys of t in lake_keys. The caller holds w.mu.
func (w *Warehouse) lakeKeys(ctx context.Context, t *schema.Table) ([]string, error) {
	rows, err := w.db.QueryContext(ctx, `SELECT key FROM lake_keys WHERE table_name = ? ORDER BY key`, t.Name)
	if err != nil {
		return nil, fmt.Errorf("load: reading the lake's changed keys of %s: %w", t.Name, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// LakeRows calls fn with the rows of table t that change selects (see
// LakeChange), as the lake holds them: every column of the table (the
// partition column included) and then etalake_writer, the writer id,
// sorted by partition and key. The reader is valid only during fn.
func (w *Warehouse) LakeRows(ctx context.Context, t *schema.Table, change LakeChange, writer int64, fn func(array.RecordReader) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	queries := lakeQueries(t, change, writer)
	return w.onArrowConn(ctx, func(_ driver.Conn, ar *duckdb.Arrow) error {
		rr, err := newDayReader(ctx, ar, queries)
		if err != nil {
			return fmt.Errorf("load: reading %s for the lake: %w", t.Name, err)
		}
		defer rr.Release()
		if err := fn(rr); err != nil {
			return err
		}
		if err := rr.Err(); err != nil {
			return fmt.Errorf("load: reading %s for the lake: %w", t.Name, err)
		}
		return nil
	})
}

// lakeSelection is the WHERE condition of the rows of t that change
// selects.
func lakeSelection(t *schema.Table, change LakeChange) string {
	in := func(days []time.Time) string {
		lits := make([]string, len(days))
		for i, d := range days {
			lits[i] = dayOf(d).sqlLiteral()
		}
		return strings.Join(lits, ", ")
	}
	var or []string
	if len(change.Whole) > 0 {
		or = append(or, fmt.Sprintf("%s IN (%s)", ident(t.Partition), in(change.Whole)))
	}
	if len(change.Keyed) > 0 && len(change.Keys) > 0 {
		lits := make([]string, len(change.Keys))
		for i, k := range change.Keys {
			lits[i] = literal(k)
		}
		or = append(or, fmt.Sprintf("(%s IN (%s) AND CAST(%s AS VARCHAR) IN (%s))",
			ident(t.Partition), in(change.Keyed), ident(LakeKey(t)), strings.Join(lits, ", ")))
	}
	if len(or) == 0 {
		return "false"
	}
	return strings.Join(or, " OR ")
}

// LakeWriterColumn is the column, and the first partition field, of every
// lake table that says which warehouse wrote the row (LakeWriter): each
// writer replaces its own partitions only.
const LakeWriterColumn = "etalake_writer"

// LakeDone forgets what changed in table t (change, as LakePending gave
// it): the lake holds it.
func (w *Warehouse) LakeDone(ctx context.Context, t *schema.Table, change LakeChange) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	if change.All {
		// The whole table went: whatever was pending of it too.
		if _, err := w.db.ExecContext(ctx, `DELETE FROM lake_pending WHERE table_name = ?`, t.Name); err != nil {
			return fmt.Errorf("load: forgetting the lake's pending %s: %w", t.Name, err)
		}
	}
	for _, d := range append(append([]time.Time(nil), change.Whole...), change.Keyed...) {
		if _, err := w.db.ExecContext(ctx, `DELETE FROM lake_pending WHERE table_name = ? AND partition_date = CAST(? AS DATE)`, t.Name, dayOf(d).String()); err != nil {
			return fmt.Errorf("load: forgetting the lake's pending %s %s: %w", t.Name, dayOf(d), err)
		}
	}
	if _, err := w.db.ExecContext(ctx, `DELETE FROM lake_keys WHERE table_name = ?`, t.Name); err != nil {
		return fmt.Errorf("load: forgetting the lake's changed keys of %s: %w", t.Name, err)
	}
	return nil
}

// LakeInflight lists the runs that began writing data files to the lake
// and did not end (LakeBegin, LakeEnd): killed in between.
func (w *Warehouse) LakeInflight(ctx context.Context) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return nil, errClosed
	}
	if _, err := w.attachLake(ctx); err != nil {
		return nil, err
	}
	rows, err := w.db.QueryContext(ctx, `SELECT DISTINCT run_id FROM lake_inflight ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// LakeBegin records that run writes data files to the lake, before the
// first is written.
func (w *Warehouse) LakeBegin(ctx context.Context, run string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	_, err := w.db.ExecContext(ctx, `INSERT INTO lake_inflight VALUES (?)`, run)
	return err
}

// LakeEnd forgets the runs whose lake files are committed or removed.
func (w *Warehouse) LakeEnd(ctx context.Context, runs ...string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	for _, r := range runs {
		if _, err := w.db.ExecContext(ctx, `DELETE FROM lake_inflight WHERE run_id = ?`, r); err != nil {
			return err
		}
	}
	return nil
}

// commitLake runs the lake's commit of a publish. It does not hold w.mu:
// the lake calls the Lake methods above.
func (w *Warehouse) commitLake(ctx context.Context) (LakeStats, error) {
	w.mu.Lock()
	run := w.lastRun
	w.mu.Unlock()
	if w.opt.Lake == nil || run == "" {
		return LakeStats{}, nil
	}
	start := w.opt.Now()
	st, err := w.opt.Lake.Commit(ctx, w, run)
	st.Took = w.opt.Now().Sub(start)
	if err != nil {
		return st, fmt.Errorf("%w (the warehouse is published; its changes stay pending for the next job's commit): %w", ErrLake, err)
	}
	return st, nil
}
