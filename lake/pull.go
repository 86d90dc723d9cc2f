package lake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// Pull builds in wh — a warehouse opened with load.Options.Pull — every
// lake table's current snapshot, every writer's rows merged by the
// table's Kind (load's PullTable), and records what it read (the table
// lake_pull). It reads etl_runs first and the other tables after, each
// at its current snapshot when its turn comes: writers commit etl_runs
// last, so every run the pull holds has its rows in the pull (a run
// committed meanwhile may have some rows in it and not its etl_runs
// row). It does not publish: the caller does, once Pull succeeded.
func (l *Lake) Pull(ctx context.Context, wh *load.Warehouse, now func() time.Time) ([]load.Pulled, error) {
	order := []*schema.Table{schema.ETLRuns}
	for _, t := range Tables() {
		if t != schema.ETLRuns {
			order = append(order, t)
		}
	}
	out := make([]load.Pulled, 0, len(order))
	for _, t := range order {
		p, err := l.pullTable(ctx, wh, t)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := wh.RecordPull(ctx, redact(l.cfg.Warehouse), now(), out); err != nil {
		return nil, err
	}
	return out, nil
}

// pullTable reads the current snapshot of table t into wh.
func (l *Lake) pullTable(ctx context.Context, wh *load.Warehouse, t *schema.Table) (load.Pulled, error) {
	p := load.Pulled{Table: t.Name}
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if err != nil && !errors.Is(err, catalog.ErrNoSuchTable) {
		return p, fmt.Errorf("lake: table %s: %w", t.Name, err)
	}
	var snap int64
	if tbl != nil && tbl.CurrentSnapshot() != nil {
		cur := tbl.CurrentSnapshot()
		snap, p.Snapshot, p.At = cur.SnapshotID, cur.SnapshotID, time.UnixMilli(cur.TimestampMs).UTC()
	}
	rows, err := wh.PullTable(ctx, t, func(add func(arrow.RecordBatch) error) error {
		if snap == 0 { // no table, or no commit yet: no rows
			return nil
		}
		_, records, err := tbl.Scan(table.WithSnapshotID(snap)).ToArrowRecords(ctx)
		if err != nil {
			return fmt.Errorf("lake: reading %s at snapshot %d: %w", t.Name, snap, err)
		}
		for rec, err := range records {
			if err != nil {
				return fmt.Errorf("lake: reading %s at snapshot %d: %w", t.Name, snap, err)
			}
			err = add(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return p, err
	}
	p.PullRows = rows
	return p, nil
}
