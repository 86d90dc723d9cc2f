package load

import (
	"context"
	"fmt"
	"time"

	"github.com/etalake/etalake/schema"
)

// lake_pending says what changed since the last commit to a lake, not to
// which lake: a warehouse pointed at another lake (SQLite to Postgres,
// local files to S3, a lake rebuilt after its loss) would give it only
// its latest changes. So the warehouse records, per table, the lake table
// it last committed to (lake_tables); the lake compares it with the
// table it finds, and commits a table that is not that one, or that lacks
// the writer's rows, whole (LakeHistory).

// LakeTable is the lake table a warehouse's table was committed to.
type LakeTable struct {
	// Catalog is the catalog's URL without its password (never stored).
	Catalog string
	// Location is the table's root in the lake's storage.
	Location string
	// UUID is the table's Iceberg table-uuid: a table dropped and created
	// anew under the same name has another.
	UUID string
}

const lakeTablesDDL = `
CREATE TABLE IF NOT EXISTS lake_tables (table_name VARCHAR PRIMARY KEY, catalog VARCHAR NOT NULL, location VARCHAR NOT NULL,
	table_uuid VARCHAR NOT NULL, committed_at TIMESTAMPTZ NOT NULL);
COMMENT ON TABLE lake_tables IS 'The lake table each table was last committed to: catalog URL (no password), location and Iceberg table-uuid. A lake table that is not that one (another lake, a table recreated) gets the whole table in its next commit.';
`

// ensureLakeTables creates lake_tables in a warehouse that lacks it. The
// caller holds w.mu.
func (w *Warehouse) ensureLakeTables(ctx context.Context) error {
	var n int
	err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = 'lake_tables'`).Scan(&n)
	if err != nil || n > 0 {
		return err
	}
	if _, err := w.db.ExecContext(ctx, lakeTablesDDL); err != nil {
		return fmt.Errorf("load: creating lake_tables: %w", err)
	}
	return nil
}

// LakeTables is the lake table each table was last committed to, by
// table name: a table never committed (or committed by a binary that did
// not record it) has none.
func (w *Warehouse) LakeTables(ctx context.Context) (map[string]LakeTable, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return nil, errClosed
	}
	if err := w.ensureLakeTables(ctx); err != nil {
		return nil, err
	}
	rows, err := w.db.QueryContext(ctx, `SELECT table_name, catalog, location, table_uuid FROM lake_tables`)
	if err != nil {
		return nil, fmt.Errorf("load: reading lake_tables: %w", err)
	}
	defer rows.Close()
	out := map[string]LakeTable{}
	for rows.Next() {
		var name string
		var lt LakeTable
		if err := rows.Scan(&name, &lt.Catalog, &lt.Location, &lt.UUID); err != nil {
			return nil, err
		}
		out[name] = lt
	}
	return out, rows.Err()
}

// SetLakeTable records that table t was committed to the lake table lt.
func (w *Warehouse) SetLakeTable(ctx context.Context, t *schema.Table, lt LakeTable) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	if err := w.ensureLakeTables(ctx); err != nil {
		return err
	}
	_, err := w.db.ExecContext(ctx, `INSERT OR REPLACE INTO lake_tables VALUES (?, ?, ?, ?, CAST(? AS TIMESTAMPTZ))`,
		t.Name, lt.Catalog, lt.Location, lt.UUID, w.opt.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("load: recording the lake table of %s: %w", t.Name, err)
	}
	return nil
}

// LakeHistory is the change that gives a lake table the whole of table t:
// every partition the warehouse holds, and every row of the writer the
// lake table holds replaced (All). LakeRows streams it a partition at a
// time.
func (w *Warehouse) LakeHistory(ctx context.Context, t *schema.Table) (LakeChange, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return LakeChange{}, errClosed
	}
	c := LakeChange{All: true}
	rows, err := w.db.QueryContext(ctx, fmt.Sprintf(`SELECT DISTINCT %s FROM %s ORDER BY 1`, ident(t.Partition), ident(t.Name)))
	if err != nil {
		return c, fmt.Errorf("load: listing the partitions of %s: %w", t.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var d time.Time
		if err := rows.Scan(&d); err != nil {
			return c, err
		}
		c.Whole = append(c.Whole, dayOf(d).Time())
	}
	return c, rows.Err()
}
