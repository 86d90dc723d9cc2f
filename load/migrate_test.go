package load_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	views "github.com/etalake/etalake/sql"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// TestMigrationsCreateTheContract: a fresh warehouse has every table of
// package schema with exactly its columns, types and nullability, in order.
func TestMigrationsCreateTheContract(t *testing.T) {
	w := openWarehouse(t, t.TempDir())
	duckType := map[schema.Type]string{
		schema.Varchar: "VARCHAR", schema.BigInt: "BIGINT", schema.Integer: "INTEGER", schema.Double: "DOUBLE",
		schema.Boolean: "BOOLEAN", schema.Timestamp: "TIMESTAMP WITH TIME ZONE", schema.Date: "DATE",
		schema.Blob: "BLOB", schema.JSON: "JSON",
	}
	var want []string
	for _, tbl := range schema.Tables {
		for i, c := range tbl.Columns {
			want = append(want, fmt.Sprintf("%s %03d %s %s %v", tbl.Name, i+1, c.Name, duckType[c.Type], c.Nullable))
		}
	}
	// The contract tables, less the loader's own and those package sql
	// materialises for its views.
	internal := []string{"'schema_migrations'", "'parquet_pending'", "'raw_derived'", "'sql_views'"}
	vs, err := views.Views()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Table != "" {
			internal = append(internal, "'"+v.Table+"'")
		}
	}
	got := query(t, w.DB(), `SELECT format('{} {:03d} {} {} {}', table_name, ordinal_position, column_name, data_type, is_nullable = 'YES')
		FROM information_schema.columns
		WHERE table_schema = 'main' AND table_name NOT IN (`+strings.Join(internal, ", ")+`)
		AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')`)
	equal(t, "columns", got, sorted(want...))

	ms, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, m := range ms {
		recorded = append(recorded, fmt.Sprintf("%d %s %s %s", m.Version, m.Name, m.Checksum(), clock().Format("2006-01-02 15:04:05")))
	}
	equal(t, "schema_migrations", query(t, w.DB(),
		`SELECT format('{} {} {} {}', version, name, checksum, strftime(applied_at, '%Y-%m-%d %H:%M:%S')) FROM schema_migrations`), recorded)
}

// TestReopenAppliesNothing: a second Open finds every migration applied.
func TestReopenAppliesNothing(t *testing.T) {
	dir := t.TempDir()
	w, err := load.Open(t.Context(), dir, load.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	before := query(t, w.DB(), `SELECT format('{} {}', version, applied_at) FROM schema_migrations`)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	later := func() time.Time { return clock().AddDate(0, 1, 0) }
	w, err = load.Open(t.Context(), dir, load.Options{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	equal(t, "schema_migrations", query(t, w.DB(), `SELECT format('{} {}', version, applied_at) FROM schema_migrations`), before)
}

// TestMigrationsAreForwardOnly: a warehouse whose recorded migration
// differs from the embedded one, or that knows a migration this binary does
// not, is refused, and the refusal leaves the warehouse unlocked.
func TestMigrationsAreForwardOnly(t *testing.T) {
	for _, c := range []struct{ name, tamper string }{
		{"checksum differs", `UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1`},
		{"newer warehouse", `INSERT INTO schema_migrations VALUES (99, '0099_future', 'x', now())`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := load.Open(t.Context(), dir, load.Options{Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.DB().ExecContext(t.Context(), c.tamper); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = load.Open(t.Context(), dir, load.Options{Now: clock})
			if !errors.Is(err, load.ErrMigration) {
				t.Fatalf("Open: %v, want ErrMigration", err)
			}
			t.Log(err)
			db, err := load.OpenReadOnly(t.Context(), dir)
			if err != nil {
				t.Fatalf("the refused Open kept the warehouse: %v", err)
			}
			db.Close()
		})
	}
}
