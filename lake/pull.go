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
// table's Kind (load's PullDelta), and records what it read (the table
// lake_pull). It reads etl_runs first and the other tables after, each
// at its current snapshot when its turn comes: writers commit etl_runs
// last, so every run the pull holds has its rows in the pull (a run
// committed meanwhile may have some rows in it and not its etl_runs
// row). A table the last pull read from this lake at a snapshot still
// in the table's history gets what changed since (its files added and
// removed, its new position deletes: pullfiles.go); any other, or every
// one with full, is read whole. It does not publish: the caller does,
// once Pull succeeded.
func (l *Lake) Pull(ctx context.Context, wh *load.Warehouse, now func() time.Time, full bool) ([]load.Pulled, error) {
	order := []*schema.Table{schema.ETLRuns}
	for _, t := range Tables() {
		if t != schema.ETLRuns {
			order = append(order, t)
		}
	}
	last, from, err := wh.LastPull(ctx)
	if err != nil {
		return nil, err
	}
	if from != redact(l.cfg.Warehouse) {
		last = nil // another lake's snapshots
	}
	out := make([]load.Pulled, 0, len(order))
	for _, t := range order {
		prev := last[t.Name]
		if full {
			prev = 0
		}
		p, err := l.pullTable(ctx, wh, t, prev)
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

// pullTable reads into wh the current snapshot of table t: what changed
// since snapshot prev when it is an ancestor of the current one, else the
// whole table.
func (l *Lake) pullTable(ctx context.Context, wh *load.Warehouse, t *schema.Table, prev int64) (load.Pulled, error) {
	p := load.Pulled{Table: t.Name}
	tbl, err := l.cat.LoadTable(ctx, ident(t))
	if err != nil && !errors.Is(err, catalog.ErrNoSuchTable) {
		return p, fmt.Errorf("lake: table %s: %w", t.Name, err)
	}
	var cur *table.Snapshot
	if tbl != nil {
		cur = tbl.CurrentSnapshot()
	}
	if cur == nil { // no table, or no commit yet: no rows
		p.PullRows, err = wh.PullDelta(ctx, t, load.PullChange{Full: true}, func(func(string, arrow.RecordBatch) error) error { return nil })
		return p, err
	}
	p.Snapshot, p.At = cur.SnapshotID, time.UnixMilli(cur.TimestampMs).UTC()
	plan, err := planPull(ctx, tbl, cur, prev)
	if err != nil {
		return p, fmt.Errorf("lake: reading what changed in %s since snapshot %d: %w", t.Name, prev, err)
	}
	p.PullRows, err = wh.PullDelta(ctx, t, plan.change, func(add func(string, arrow.RecordBatch) error) error {
		return plan.read(ctx, tbl, add)
	})
	if err != nil {
		return p, fmt.Errorf("lake: reading %s at snapshot %d: %w", t.Name, cur.SnapshotID, err)
	}
	return p, nil
}
