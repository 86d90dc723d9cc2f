package lake

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/schema"
)

// FirstSnapshotProperty marks the empty snapshot a table is given when it
// has none.
const FirstSnapshotProperty = "etalake.first-snapshot"

// ensureSnapshot gives tbl an empty first snapshot when it has none: a
// table created and never written (dead_letters, until a response is
// refused) has no current snapshot, and readers refuse such a table
// (DuckDB's iceberg_scan and Trino fail on it rather than read no rows).
// A table created by an older binary gets one at the next commit too.
func (l *Lake) ensureSnapshot(ctx context.Context, t *schema.Table, tbl *table.Table) (*table.Table, error) {
	if tbl.CurrentSnapshot() != nil {
		return tbl, nil
	}
	err := l.retry(ctx, t, func(cur *table.Table) error {
		tbl = cur
		if cur.CurrentSnapshot() != nil {
			return nil // another writer gave it one
		}
		txn := cur.NewTransaction()
		if err := txn.AddFiles(ctx, nil, iceberg.Properties{FirstSnapshotProperty: "true"}, false); err != nil {
			return err
		}
		next, err := txn.Commit(ctx)
		if err == nil {
			tbl = next
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("lake: the first snapshot of %s: %w", t.Name, err)
	}
	return tbl, nil
}
