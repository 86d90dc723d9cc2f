package load_test

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/etalake/etalake/load"
)

// Another tool's DuckDB database named etalake.duckdb, or a file that is
// no DuckDB database, is no warehouse to take over: Open and OpenPlanning
// refuse it, naming the user's file (never the working copy), and leave
// the directory as it was — no working copy half migrated, no lock.
func TestOpenRefusesAForeignEtalakeDuckDB(t *testing.T) {
	foreign := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(foreign, "etalake.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE orders (id INTEGER, shipments VARCHAR); CREATE VIEW open_orders AS SELECT * FROM orders"); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	garbage := t.TempDir()
	if err := os.WriteFile(filepath.Join(garbage, "etalake.duckdb"), []byte("not a database, a text file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, says string }{
		{foreign, "is another tool's DuckDB database: it holds 2 tables or views (open_orders, orders)"},
		{garbage, "is not a DuckDB database etalake can open"},
	} {
		before := entries(t, tc.dir)
		path := filepath.Join(tc.dir, "etalake.duckdb")
		for name, open := range map[string]func() (*load.Warehouse, error){
			"Open":         func() (*load.Warehouse, error) { return load.Open(t.Context(), tc.dir, load.DefaultOptions()) },
			"OpenPlanning": func() (*load.Warehouse, error) { return load.OpenPlanning(t.Context(), tc.dir, load.DefaultOptions()) },
		} {
			wh, err := open()
			if err == nil {
				wh.Close()
			}
			if !errors.Is(err, load.ErrNotWarehouse) || !strings.Contains(err.Error(), path+" "+tc.says) || strings.Contains(err.Error(), ".work") {
				t.Errorf("%s of %s: %v; want ErrNotWarehouse naming %s", name, tc.dir, err, path)
			}
			if after := entries(t, tc.dir); !slices.Equal(after, before) {
				t.Errorf("%s left %v behind, the directory held %v", name, after, before)
			}
		}
	}
	// An empty DuckDB database is a new warehouse.
	empty := t.TempDir()
	db, err = sql.Open("duckdb", filepath.Join(empty, "etalake.duckdb"))
	if err == nil {
		_, err = db.Exec("CHECKPOINT")
	}
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	wh, err := load.Open(t.Context(), empty, load.DefaultOptions())
	if err != nil {
		t.Fatalf("an empty DuckDB database: %v", err)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
}

// entries lists every path under dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		out = append(out, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
