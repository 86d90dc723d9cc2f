// Package loadtest checks, for tests of the jobs and the command, what
// readers of a warehouse see: the published database opened read-only as
// a notebook opens it, and the Parquet mirror read as a notebook reads it.
// It also hands tests empty warehouses (Fresh) and copies of warehouses
// (CopyDir), cheaper than creating their own.
package loadtest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/etalake/etalake/estimate"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
	views "github.com/etalake/etalake/sql"
)

// Published opens the warehouse in dir as a notebook does: the published
// database, read-only, closed at the end of the test. Close it before a
// job publishes again and it is opened anew: within one process DuckDB
// shares a database open by the same path, and a reader opened meanwhile
// would get the one open.
func Published(t testing.TB, dir string) *sql.DB {
	t.Helper()
	db, err := load.OpenReadOnly(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Writer opens the writer's own database of the warehouse in dir,
// read-only, for what readers are not shown (raw_derived, the pending
// marks): closed at the end of the test. Open it only while no job runs.
func Writer(t testing.TB, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, ".work", "etalake.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// WriterWithBodies is a copy of the writer's database of the warehouse in
// dir, in a temporary directory, with every body a segment holds put back
// in raw_responses.body as etalakes before segments kept it (zstd, one
// frame per body): the source of a test that builds the warehouse an
// older etalake left.
func WriterWithBodies(t testing.TB, dir string) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "writer.duckdb")
	if err := copyFile(filepath.Join(dir, ".work", "etalake.duckdb"), cp); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", cp)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bodies := map[string][]byte{}
	var segments []string
	names, err := db.Query(`SELECT name FROM raw_segments`)
	if err != nil {
		t.Fatal(err)
	}
	for names.Next() {
		var name string
		if err := names.Scan(&name); err != nil {
			t.Fatal(err)
		}
		segments = append(segments, "'"+strings.ReplaceAll(filepath.Join(dir, name), "'", "''")+"'")
	}
	if err := errorsOf(names); err != nil {
		t.Fatal(err)
	}
	if len(segments) == 0 {
		return cp
	}
	rows, err := db.Query(`SELECT r.response_id, s.body FROM raw_responses r
		JOIN read_parquet([` + strings.Join(segments, ",") + `]) s USING (response_id)
		WHERE r.body IS NULL AND r.body_file IS NULL`)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			t.Fatal(err)
		}
		bodies[id] = enc.EncodeAll(body, nil)
	}
	if err := errorsOf(rows); err != nil {
		t.Fatal(err)
	}
	for id, blob := range bodies {
		if _, err := db.Exec(`UPDATE raw_responses SET body = ? WHERE response_id = ?`, blob, id); err != nil {
			t.Fatal(err)
		}
	}
	return cp
}

// MirrorCount counts the rows of table in the Parquet mirror of dir with
// db, as a notebook reads it: 0 when the table has no file (an empty
// table, or one never written: read_parquet finds none).
func MirrorCount(t testing.TB, db *sql.DB, dir, table string) int64 {
	t.Helper()
	if files, _ := filepath.Glob(filepath.Join(dir, "parquet", table, "*", "*.parquet")); len(files) == 0 {
		return 0
	}
	var n int64
	q := fmt.Sprintf("SELECT count(*) FROM read_parquet('%s', hive_partitioning=true)", filepath.Join(dir, "parquet", table, "**", "*.parquet"))
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("the mirror of %s: %v", table, err)
	}
	return n
}

// AsOfOneMoment checks that what readers of the warehouse in dir see is of
// one moment: every mirrored table holds in the Parquet mirror the rows
// it holds in the published database, and the published analytic tables
// are what rebuilding them from the tables beside them gives (rebuilt in a
// copy of the published database).
func AsOfOneMoment(t testing.TB, dir string) {
	t.Helper()
	db, err := load.OpenReadOnly(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tbl := range schema.Tables {
		if !load.Mirrored(tbl) {
			continue
		}
		var n int64
		if err := db.QueryRow("SELECT count(*) FROM " + tbl.Name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if m := MirrorCount(t, db, dir, tbl.Name); m != n {
			t.Errorf("%s: %d rows in the published database, %d in the Parquet mirror", tbl.Name, n, m)
		}
	}
	cp := filepath.Join(t.TempDir(), "copy.duckdb")
	if err := copyFile(filepath.Join(dir, "etalake.duckdb"), cp); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := sql.Open("duckdb", cp)
	if err != nil {
		t.Fatal(err)
	}
	defer rebuilt.Close()
	vs, err := views.Views()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, v := range vs {
		if v.Table != "" {
			seen[v.Table] = rendered(t, rebuilt, v.Table)
		}
	}
	estimated := false
	for _, v := range vs {
		if v.Table == "" {
			continue
		}
		if v.Computed && estimated {
			continue
		}
		if v.Computed {
			// The tables etalake computes (package estimate) are computed
			// whole, in the copy, from its contract tables.
			estimated = true
			computeWhole(t, rebuilt, vs)
			continue
		}
		// A view over the version's files in the published database:
		// the table the writer builds takes its place in the copy.
		if _, err := rebuilt.Exec("DROP VIEW IF EXISTS " + v.Table); err != nil {
			t.Fatal(err)
		}
		if _, err := rebuilt.Exec(v.SQL); err != nil {
			t.Fatalf("rebuilding %s: %v", v.Table, err)
		}
	}
	for table, was := range seen {
		if now := rendered(t, rebuilt, table); now != was {
			t.Errorf("readers see %s as it was before the tables beside it changed: %s", table, firstDiff(was, now))
		}
	}
}

// computeWhole replaces, in db, the views of the tables etalake computes
// by those tables, computed whole from db's contract tables.
func computeWhole(t testing.TB, db *sql.DB, vs []views.View) {
	t.Helper()
	for _, v := range vs {
		if !v.Computed {
			continue
		}
		if _, err := db.Exec("DROP VIEW IF EXISTS " + v.Table); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(v.SQL); err != nil {
			t.Fatalf("creating %s: %v", v.Table, err)
		}
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := estimate.Update(context.Background(), conn, estimate.Scope{Whole: true}); err != nil {
		t.Fatalf("computing the arrival estimates: %v", err)
	}
}

// rendered is a table's rows, sorted, one a line, its floating-point
// columns to six decimals (a sum taken in another order differs in its
// last bits).
func rendered(t testing.TB, db *sql.DB, table string) string {
	t.Helper()
	rows, err := db.Query("SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index", table)
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		c := fmt.Sprintf("%q", name)
		if typ == "DOUBLE" || typ == "FLOAT" {
			c = fmt.Sprintf("round(%s, 6)", c)
		}
		cols = append(cols, fmt.Sprintf("coalesce(CAST(%s AS VARCHAR), 'NULL')", c))
	}
	if err := errorsOf(rows); err != nil {
		t.Fatal(err)
	}
	var out sql.NullString
	q := fmt.Sprintf("SELECT string_agg(r, '\n' ORDER BY r) FROM (SELECT concat_ws('|', %s) AS r FROM %s)", strings.Join(cols, ", "), table)
	if err := db.QueryRow(q).Scan(&out); err != nil {
		t.Fatal(err)
	}
	return out.String
}

func errorsOf(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// firstDiff says how many rows a and b have and where they first differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < min(len(la), len(lb)); i++ {
		if la[i] != lb[i] {
			return fmt.Sprintf("%d rows, rebuilt %d; first difference:\n  seen:    %s\n  rebuilt: %s", len(la), len(lb), la[i], lb[i])
		}
	}
	return fmt.Sprintf("%d rows, rebuilt %d", len(la), len(lb))
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
