package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/etalake/etalake/schema"
)

// A pull of the lake (etalake lake pull, package lake) is a warehouse of
// its own, built whole from the current snapshots of the lake's tables:
// every writer's rows merged as one warehouse that had landed every
// writer's responses would hold them, with the analytic tables built as
// any publish builds them. It is opened with Options.Pull, which marks it
// (the table lake_pull, what the last pull read): a writer's Open
// refuses a marked warehouse (ErrPull), and a pull's Open refuses an
// unmarked one that exists (ErrNotPull), so that neither ever writes over
// the other. A pull publishes as a job does (publish.go): readers see the
// previous pull or the new one, never one half built; a pull that fails
// publishes nothing (Close does not publish a pull's warehouse) and the
// next one starts over.

// ErrPull: a writer (run, backfill, replay, import, track, demo) was
// given a warehouse that is a pull of the lake.
var ErrPull = errors.New("the warehouse is a pull of the lake")

// ErrNotPull: a pull was given a warehouse that is not one (a worker's).
var ErrNotPull = errors.New("the warehouse is not a pull of the lake")

const pullTable = "lake_pull"

const pullDDL = `
CREATE TABLE IF NOT EXISTS lake_pull (table_name VARCHAR NOT NULL, snapshot_id BIGINT, committed_at TIMESTAMPTZ, writers BIGINT[] NOT NULL,
  rows_read BIGINT NOT NULL, rows_kept BIGINT NOT NULL, lake VARCHAR NOT NULL, pulled_at TIMESTAMPTZ NOT NULL);
COMMENT ON TABLE lake_pull IS 'This warehouse is a pull of the lake (etalake lake pull), and no job writes it: per lake table, the snapshot the last pull read (snapshot_id, committed_at; the next pull reads what changed since), the writers whose rows it read, the rows read and the rows kept once merged.';
`

// IsPull reports whether the warehouse db (a reader's or a writer's
// connection) is a pull of the lake.
func IsPull(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?`, pullTable).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("load: is it a pull of the lake: %w", err)
	}
	return n > 0, nil
}

// checkPull refuses a pull's warehouse to a writer and, to a pull, a
// warehouse that existed (existed) without being one; it marks a pull's
// new warehouse. Open calls it before it migrates or lands anything.
func (w *Warehouse) checkPull(ctx context.Context, existed bool) error {
	pulled, err := IsPull(ctx, w.db)
	switch {
	case err != nil:
		return err
	case pulled && !w.opt.Pull:
		return fmt.Errorf("%s is a pull of the lake (etalake lake pull: every writer's rows merged, rebuilt whole by the next pull); run jobs on a worker's warehouse: %w", w.dir, ErrPull)
	case !pulled && w.opt.Pull && existed:
		return fmt.Errorf("%s is a worker's warehouse: a pull of the lake builds a warehouse of its own and never writes over a worker's; give it another directory: %w", w.dir, ErrNotPull)
	case w.opt.Pull && !pulled:
		if _, err := w.db.ExecContext(ctx, pullDDL); err != nil {
			return fmt.Errorf("load: marking %s as a pull of the lake: %w", w.dir, err)
		}
	}
	return nil
}

// PullRows is what PullTable did.
type PullRows struct {
	Read map[int64]int64 // rows read, per lake writer
	Rows int64           // rows the table holds after the merge
	// Whole: the table was read whole, not what changed since the last
	// pull (PullDelta).
	Whole bool
}

// PullTable replaces the rows of table t with the rows scan adds (each
// record a lake table's: the table's columns, by name, and
// LakeWriterColumn; a column the lake table lacks is null), merged by
// the table's Kind as Load merges the observations they come from, so
// that the table holds what one warehouse that had landed every writer's
// responses would hold:
//   - Append: one row per key, the smaller response_id's;
//   - Latest: per key, the newest row's values (greatest Last, then
//     response_id), the least First and its partition;
//   - Dimension: per key, each attribute from the latest observation that
//     gave it, a row's observation of an attribute being its Kept column,
//     else its latest; First, Last, response_id and Kept as Load leaves
//     them;
//   - Ledger: per key, the first row in the table's PullOrder, then by
//     writer (etl_runs: a run is one writer's; tracked_shipments: see its
//     PullOrder).
//
// The rows are staged in the database first (DuckDB spills them past
// its memory limit), then merged in one statement. Only a warehouse
// opened with Options.Pull takes them. PullTable rebuilds the table
// whole; PullDelta (pulldelta.go) applies what changed in the lake.
func (w *Warehouse) PullTable(ctx context.Context, t *schema.Table, scan func(add func(arrow.RecordBatch) error) error) (PullRows, error) {
	if !w.opt.Pull {
		return PullRows{}, invalidf("%s: the warehouse was not opened for a pull of the lake", t.Name)
	}
	if err := checkMergeable(t); err != nil {
		return PullRows{}, err
	}
	return w.pullFull(ctx, t, func(add func(string, arrow.RecordBatch) error) error {
		return scan(func(rec arrow.RecordBatch) error { return add("", rec) })
	})
}

// pullSourceSQL is the stage (as inView) of t merged into one row per
// key, by t's Kind (see PullTable): the deduplicating source of a Load
// batch, reading for a Dimension the Kept columns each row carries.
func pullSourceSQL(t *schema.Table) string {
	switch t.Kind {
	case schema.Dimension:
		return dimensionSource(t, true, true)
	case schema.Ledger:
		order := ident(LakeWriterColumn)
		if t.PullOrder != "" {
			order = t.PullOrder + ", " + order
		}
		return fmt.Sprintf("(SELECT %s FROM %s QUALIFY row_number() OVER (PARTITION BY %s ORDER BY %s) = 1)",
			list("", stored(t)), ident(inView), list("", t.Key), order)
	}
	return sourceSQL(t, true)
}

// Pulled is what a pull read of one lake table.
type Pulled struct {
	Table string
	// Snapshot is the lake table's snapshot read, committed at At (0 and
	// the zero time: the table has none yet).
	Snapshot int64
	At       time.Time
	PullRows // its PullTable
}

// RecordPull records what the pull read, from the lake lake, at at: the
// table lake_pull, replaced whole.
func (w *Warehouse) RecordPull(ctx context.Context, lake string, at time.Time, tables []Pulled) error {
	if !w.opt.Pull {
		return invalidf("the warehouse was not opened for a pull of the lake")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	var b strings.Builder
	b.WriteString("BEGIN TRANSACTION;\nDELETE FROM lake_pull;\n")
	for _, p := range tables {
		var writers []string
		var read int64
		for wr, n := range p.Read {
			writers = append(writers, fmt.Sprint(wr))
			read += n
		}
		sort.Strings(writers)
		snap, committed := "NULL", "NULL"
		if p.Snapshot != 0 {
			snap, committed = fmt.Sprint(p.Snapshot), literal(p.At.UTC().Format(time.RFC3339Nano))+"::TIMESTAMPTZ"
		}
		fmt.Fprintf(&b, "INSERT INTO lake_pull VALUES (%s, %s, %s, CAST([%s] AS BIGINT[]), %d, %d, %s, %s::TIMESTAMPTZ);\n",
			literal(p.Table), snap, committed, strings.Join(writers, ", "), read, p.Rows, literal(lake), literal(at.UTC().Format(time.RFC3339Nano)))
	}
	b.WriteString("COMMIT;\n")
	if _, err := w.db.ExecContext(ctx, b.String()); err != nil {
		_, _ = w.db.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return fmt.Errorf("load: recording the pull: %w", err)
	}
	return nil
}
