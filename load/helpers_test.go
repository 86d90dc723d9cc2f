package load_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/schema"
)

// clock is the fixed clock of the tests' warehouses.
func clock() time.Time { return time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC) }

// openWarehouse opens a warehouse in dir, closed at the end of the test.
func openWarehouse(t testing.TB, dir string) *load.Warehouse {
	t.Helper()
	w, err := load.Open(t.Context(), dir, load.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
	})
	return w
}

// freshWarehouse opens an empty warehouse of the test's: a copy of one
// created once (loadtest.Fresh), at the tests' clock.
func freshWarehouse(t testing.TB) *load.Warehouse {
	t.Helper()
	return openWarehouse(t, loadtest.Fresh(t, clock))
}

// checkedMem is an allocator that fails the test if a record outlives it.
func checkedMem(t *testing.T) memory.Allocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// row is one row of a table, by column name; a missing column is null.
type row map[string]any

// record builds a record of the table from rows, through Arrow's JSON
// reader (timestamps as RFC 3339, dates as YYYY-MM-DD).
func record(t testing.TB, mem memory.Allocator, tbl *schema.Table, rows ...row) arrow.RecordBatch {
	t.Helper()
	rec, err := newRecord(mem, tbl, rows...)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func newRecord(mem memory.Allocator, tbl *schema.Table, rows ...row) (arrow.RecordBatch, error) {
	if rows == nil {
		rows = []row{}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	rec, _, err := array.RecordFromJSON(mem, tbl.Arrow(), strings.NewReader(string(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tbl.Name, err)
	}
	return rec, nil
}

// load loads one batch of rows into the table and releases its record.
func load1(t testing.TB, w *load.Warehouse, mem memory.Allocator, tbl *schema.Table, rows ...row) load.LoadStats {
	t.Helper()
	rec := record(t, mem, tbl, rows...)
	defer rec.Release()
	st, err := w.Load(t.Context(), []schema.Rows{{Table: tbl, Rec: rec}})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// store is one of the two places the warehouse promises the same rows in.
type store struct {
	name string
	// rows returns the table's rows, each rendered as its columns in
	// definition order cast to VARCHAR and joined by "|", sorted.
	rows func(t testing.TB, w *load.Warehouse, tbl *schema.Table) []string
}

// stores are DuckDB and the Parquet mirror (read after a SyncParquet, as
// a notebook would, with hive partitioning).
var stores = []store{
	{"duckdb", func(t testing.TB, w *load.Warehouse, tbl *schema.Table) []string {
		return query(t, w.DB(), fmt.Sprintf("SELECT %s FROM %s", rendered(tbl), tbl.Name))
	}},
	{"parquet", func(t testing.TB, w *load.Warehouse, tbl *schema.Table) []string {
		if _, err := w.SyncParquet(t.Context()); err != nil {
			t.Fatal(err)
		}
		return parquetRows(t, w, tbl)
	}},
}

// both reads the table from DuckDB and, after a SyncParquet, from the
// mirror, fails the test where the two differ, and returns the rows: a
// case run once checks both places at every read, at half the cost of
// running it once per store.
var both = store{"duckdb and the mirror", func(t testing.TB, w *load.Warehouse, tbl *schema.Table) []string {
	t.Helper()
	db := stores[0].rows(t, w, tbl)
	equal(t, tbl.Name+": the mirror against DuckDB", stores[1].rows(t, w, tbl), db)
	return db
}}

// parquetRows reads the table's mirror as a notebook would.
func parquetRows(t testing.TB, w *load.Warehouse, tbl *schema.Table) []string {
	t.Helper()
	if len(parquetFiles(t, w, tbl)) == 0 {
		return nil
	}
	return query(t, w.DB(), fmt.Sprintf("SELECT %s FROM read_parquet('%s', hive_partitioning=true)", rendered(tbl), glob(w, tbl)))
}

func glob(w *load.Warehouse, tbl *schema.Table) string {
	return filepath.Join(w.Dir(), "parquet", tbl.Name, "**", "*.parquet")
}

// parquetFiles lists the table's partition files, relative to its
// directory.
func parquetFiles(t testing.TB, w *load.Warehouse, tbl *schema.Table) []string {
	t.Helper()
	root := filepath.Join(w.Dir(), "parquet", tbl.Name)
	var out []string
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return fs.SkipAll
			}
			return err
		}
		if !e.IsDir() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rendered is the select list rendering a row of the table as one string.
func rendered(tbl *schema.Table) string {
	parts := make([]string, len(tbl.Columns))
	for i, c := range tbl.Columns {
		parts[i] = fmt.Sprintf("coalesce(CAST(%q AS VARCHAR), 'NULL')", c.Name)
	}
	return "concat_ws('|', " + strings.Join(parts, ", ") + ")"
}

// query runs a query of one VARCHAR column and returns its values sorted.
func query(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// queryInt runs a query of one integer.
func queryInt(t testing.TB, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// equal fails the test when got and want differ.
func equal(t testing.TB, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %d rows:\n  %s\nwant %d rows:\n  %s", what, len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
	}
}

func sorted(s ...string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
