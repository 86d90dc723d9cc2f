package load

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/etalake/etalake/schema"
)

// Batch is rows of one table from the transform. Rec's schema is
// Table.Arrow(); the caller keeps ownership of Rec (Load does not release
// it).
type Batch struct {
	Table *schema.Table
	Rec   arrow.RecordBatch
}

// LoadStats counts, per table name, the rows a Load inserted or changed;
// loading rows already present counts nothing.
type LoadStats struct {
	Rows map[string]int64
}

// Load merges every batch into its table in one transaction: all of them
// or none. The merge follows the table's schema.Kind and is idempotent and
// order-independent (loading the same rows again, or in another order,
// gives the same tables):
//   - Append: one row per key; between two rows of one key the smaller
//     response_id is kept.
//   - Latest, Dimension: per key, the values of the newest observation
//     (greatest Last, then greatest response_id), the least First, and the
//     partition of that First.
//   - Ledger (etl_runs): the last write of a key wins; a batch may not hold
//     a key twice.
//
// Within a batch, rows are deduplicated by the same rules first. The
// partitions of the Parquet mirror that change are recorded in the same
// transaction and written by SyncParquet. raw_responses is written by Land.
// etl_runs rows go through Load like any table: a job loads its run's row
// when it starts and again when it ends.
func (w *Warehouse) Load(ctx context.Context, batches []Batch) (LoadStats, error) {
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
			n, err := s.merge(ctx, b.Table, b.Rec, true)
			if err != nil {
				return fmt.Errorf("load: %s: %w", b.Table.Name, err)
			}
			stats.Rows[b.Table.Name] += n
		}
		return nil
	})
	if err != nil {
		return LoadStats{}, err
	}
	return stats, nil
}

// checkBatch refuses a batch Load cannot take.
func checkBatch(b Batch) error {
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

// merge merges rec into t and returns the rows inserted or changed. When
// mirror is set, it records the partitions that change as pending for the
// Parquet mirror.
func (s *session) merge(ctx context.Context, t *schema.Table, rec arrow.RecordBatch, mirror bool) (int64, error) {
	release, err := s.register(rec, inView)
	if err != nil {
		return 0, err
	}
	_, err = s.exec(ctx, stageSQL(t))
	release()
	if err != nil {
		return 0, err
	}
	if _, err := s.exec(ctx, "DROP VIEW "+ident(inView)); err != nil {
		return 0, err
	}
	n, err := s.mergeStage(ctx, t, mirror)
	if _, dropErr := s.exec(ctx, "DROP TABLE "+ident(stageTable)); err == nil {
		err = dropErr
	}
	return n, err
}

// mergeStage merges the stage table into t.
func (s *session) mergeStage(ctx context.Context, t *schema.Table, mirror bool) (int64, error) {
	var parts []day
	switch t.Kind {
	case schema.Append:
		var err error
		if parts, _, err = s.days(ctx, partitionsSQL(t)); err != nil {
			return 0, err
		}
	case schema.Ledger:
		dups, err := s.count(ctx, dupSQL(t))
		if err != nil {
			return 0, err
		}
		if dups > 0 {
			return 0, invalidf("%s: the batch holds %d keys more than once", t.Name, dups)
		}
	}
	if mirror && t.Kind != schema.Append {
		if _, err := s.exec(ctx, pendingSQL(t, movedSQL(t))); err != nil {
			return 0, err
		}
	}
	changed, n, err := s.days(ctx, mergeSQL(t, parts))
	if err != nil {
		return 0, err
	}
	if mirror && len(changed) > 0 {
		if _, err := s.exec(ctx, pendingSQL(t, valuesSQL(changed))); err != nil {
			return 0, err
		}
	}
	return n, nil
}
