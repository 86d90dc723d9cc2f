package load

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/etalake/etalake/schema"
)

// LoadStats counts, per table name, the rows a Load inserted or changed;
// loading rows already present counts nothing.
type LoadStats struct {
	Rows map[string]int64
}

// Load merges every batch of rows (each of one table: the transform's, or
// a ledger's) into its table in one transaction: all of them
// or none. The merge follows the table's schema.Kind and is idempotent and
// order-independent (loading the same rows again, or in another order, in
// one batch or in several, gives the same tables):
//   - Append: one row per key; between two rows of one key the smaller
//     response_id is kept.
//   - Latest: per key, the values of the newest observation (greatest
//     Last, then greatest response_id), the least First, and the partition
//     of that First.
//   - Dimension: per key, attribute by attribute, the value of the newest
//     observation that gave one (a null or an empty string gives none), so
//     that an observation that leaves an attribute out never wipes what an
//     earlier one gave, and a later one that gives it replaces it; of two
//     observations at the same Last, the greater response_id's. Last and
//     response_id are the newest observation's, First and the partition
//     as for Latest. The attribute's Kept column (schema.KeptColumn) is
//     null when the newest observation gave the value, else the
//     observation (Last, response_id) it is kept from: what makes the rule
//     order-independent, as a backfill older than the row's Last still
//     gives the attributes that nothing newer gave, and what tells an
//     analyst which values the latest answer did not confirm.
//   - Ledger (etl_runs): the last write of a key wins; a batch may not hold
//     a key twice.
//
// Within a batch, rows are deduplicated by the same rules first. Two rows
// of one key that the rules cannot tell apart (the same response_id, and
// for Latest and Dimension the same Last) are the transform's to avoid:
// which one is kept is not defined (for a Dimension, which value of an
// attribute both give). The
// partitions of the Parquet mirror that change are recorded in the same
// transaction and written by SyncParquet. raw_responses is written by Land.
// etl_runs rows go through Load like any table: a job loads its run's row
// when it starts and again when it ends.
//
// An error matching ErrRefused says the warehouse refused the rows for
// what they hold: nothing was written, and loading fewer of them may
// succeed.
//
// derived names the landed responses these batches were derived from: they
// are recorded as derived in the same transaction, so that a response
// landed but never loaded (a crash in between) is found by
// RawFilter.Underived, and one loaded is never derived twice by a catch-up.
func (w *Warehouse) Load(ctx context.Context, batches []schema.Rows, derived ...string) (LoadStats, error) {
	for _, b := range batches {
		if err := checkBatch(b); err != nil {
			return LoadStats{}, err
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	stats := LoadStats{Rows: map[string]int64{}}
	err := w.inTx(ctx, func(s *session) error {
		for _, b := range batches {
			if b.Rec.NumRows() == 0 {
				continue
			}
			n, err := s.merge(ctx, b.Table, b.Rec)
			if err != nil {
				return fmt.Errorf("load: %s: %w", b.Table.Name, err)
			}
			stats.Rows[b.Table.Name] += n
		}
		return s.markDerived(ctx, derived)
	})
	if err != nil {
		return LoadStats{}, refusedRows(err)
	}
	for _, b := range batches {
		if stats.Rows[b.Table.Name] > 0 && b.Table.Kind != schema.Ledger {
			w.stale = true // the analytic tables are built from it
		}
	}
	return stats, nil
}

// checkBatch refuses a batch Load cannot take.
func checkBatch(b schema.Rows) error {
	if b.Table == nil || b.Rec == nil {
		return invalidf("batch without table or record")
	}
	if b.Table == schema.RawResponses {
		return invalidf("raw_responses is written by Land, not Load")
	}
	if err := checkMergeable(b.Table); err != nil {
		return err
	}
	want, got := b.Table.Arrow(), b.Rec.Schema()
	if got.NumFields() != want.NumFields() {
		return invalidf("%s: record has %d fields, the table %d", b.Table.Name, got.NumFields(), want.NumFields())
	}
	for i, f := range want.Fields() {
		g := got.Field(i)
		if g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
			return invalidf("%s: field %d is %s %s, want %s %s", b.Table.Name, i, g.Name, g.Type, f.Name, f.Type)
		}
	}
	return nil
}

// merge merges rec into t, records the partitions that change as pending
// for the Parquet mirror, and returns the rows inserted or changed. The
// record is made readable as inView once per statement that reads it (a
// registered Arrow view is one scan): the join with the table, and a
// duplicate count before it unless the keys are known distinct
// (keysDistinct). The rows that change are collected first (changedSQL). A
// touch of a Latest or Dimension row (an observation that leaves its
// values as they are, see touches) updates Last, response_id and a
// Dimension's Kept columns in place (touchSQL). For every other change
// the table's rows of the keys are deleted and the rows inserted: DuckDB
// keeps an UPDATE's before-images and
// per-vector update records of every updated column in memory until the
// transaction ends, which for whole rows all over the table costs far
// more than a deleted row id and an insert that spills.
func (s *session) merge(ctx context.Context, t *schema.Table, rec arrow.RecordBatch) (int64, error) {
	var dups int64
	var err error
	if rec.NumRows() > 1 && !keysDistinct(rec, t) {
		err = s.withView(ctx, rec, func() (err error) {
			dups, err = s.queryCount(ctx, dupSQL(t))
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	if dups > 0 && t.Kind == schema.Ledger {
		return 0, invalidf("%s: the batch holds %d keys more than once", t.Name, dups)
	}
	var parts []day
	if t.Kind == schema.Append {
		if parts, err = distinctDays(rec, t); err != nil {
			return 0, err
		}
	}
	err = s.withView(ctx, rec, func() error {
		_, err := s.exec(ctx, changedSQL(t, dups > 0, parts))
		return err
	})
	if err != nil {
		return 0, err
	}
	c, err := s.queryCounts(ctx, countsSQL(t), 4)
	if err != nil {
		return 0, err
	}
	n, replaced, touched, kept := c[0], c[1], c[2], c[3]
	if n > 0 {
		if touched > kept {
			if _, err := s.exec(ctx, touchSQL(t, false)); err != nil {
				return 0, err
			}
		}
		if kept > 0 {
			if _, err := s.exec(ctx, touchSQL(t, true)); err != nil {
				return 0, err
			}
		}
		if replaced > 0 {
			if _, err := s.exec(ctx, deleteSQL(t, parts)); err != nil {
				return 0, err
			}
		}
		if n > touched {
			if _, err := s.exec(ctx, insertSQL(t)); err != nil {
				return 0, err
			}
		}
		if _, err := s.exec(ctx, mergePendingSQL(t)); err != nil {
			return 0, err
		}
	}
	_, err = s.exec(ctx, "DROP TABLE "+ident(changedTable))
	return n, err
}

// distinctDays lists the values of the table's partition column in rec.
func distinctDays(rec arrow.RecordBatch, t *schema.Table) ([]day, error) {
	idx := rec.Schema().FieldIndices(t.Partition)
	if len(idx) != 1 {
		return nil, invalidf("%s: no partition column %s", t.Name, t.Partition)
	}
	col, ok := rec.Column(idx[0]).(*array.Date32)
	if !ok {
		return nil, invalidf("%s: partition column %s is %s", t.Name, t.Partition, rec.Column(idx[0]).DataType())
	}
	seen := map[day]bool{}
	var out []day
	for i, v := range col.Date32Values() {
		if d := day(v); col.IsValid(i) && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// markDerived records responses as derived, those not recorded yet.
func (s *session) markDerived(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	rec := idRecord(ids)
	defer rec.Release()
	return s.withView(ctx, rec, func() error {
		_, err := s.exec(ctx, fmt.Sprintf(`INSERT INTO raw_derived (response_id, derived_at)
SELECT DISTINCT %[1]s, now() FROM %[2]s WHERE %[1]s NOT IN (SELECT response_id FROM raw_derived)`, ident(idColumn), ident(inView)))
		return err
	})
}

// ForgetDerived forgets which responses were derived, before a full replay
// derives them all again.
func (w *Warehouse) ForgetDerived(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inTx(ctx, func(s *session) error {
		_, err := s.exec(ctx, "DELETE FROM raw_derived")
		return err
	})
}
