package lake_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/schema"
)

// localLake is a lake on a SQLite catalog and a file warehouse in a temp
// dir.
func localLake(t testing.TB) lake.Config {
	dir := t.TempDir()
	return lake.Config{Catalog: lake.SQLiteCatalog(filepath.Join(dir, "catalog.db")), Warehouse: "file://" + filepath.Join(dir, "files")}
}

func open(t testing.TB, cfg lake.Config, opt lake.Options) *lake.Lake {
	t.Helper()
	lk, err := lake.Open(context.Background(), cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lk.Close() })
	return lk
}

// demo builds a small demo warehouse in dir, feeding lk.
func demo(t testing.TB, dir string, lk *lake.Lake, seed int64) {
	t.Helper()
	opt := jobs.DemoOptions{Days: 3, Dir: dir, Seed: seed, Shipments: 20, Warehouse: load.Options{Lake: lk}}
	if _, err := jobs.Demo(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
}

// fed is a copy of the package's template warehouse replayed once into
// lk, every partition committed: a warehouse the lake holds whole, at a
// third of a demo's cost.
func fed(t *testing.T, lk *lake.Lake) string {
	t.Helper()
	return fedFrom(t, lk, template(t))
}

// fedFrom is fed with a copy of the warehouse tpl.
func fedFrom(t *testing.T, lk *lake.Lake, tpl string) string {
	t.Helper()
	dir := loadtest.CopyDir(t, tpl)
	if err := replay(context.Background(), dir, load.Options{Lake: lk}, jobs.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writerOf is the lake writer id of the warehouse in dir.
func writerOf(t testing.TB, dir string) int64 {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "etalake.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var w int64
	if err := db.QueryRow("SELECT writer_id FROM lake_state").Scan(&w); err != nil {
		t.Fatal(err)
	}
	return w
}

// duck is an in-memory DuckDB with the published warehouses of dirs
// attached as wh0, wh1…, and the lake's tables read through the catalog
// (iceberg-go's scan) as tables lake_<name>.
func duck(t testing.TB, lk *lake.Lake, dirs ...string) *sql.DB {
	t.Helper()
	ctx := context.Background()
	c, err := duckdb.NewConnector("", nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for i, d := range dirs {
		if _, err := db.Exec(fmt.Sprintf("ATTACH '%s' AS wh%d (READ_ONLY)", filepath.Join(d, "etalake.duckdb"), i)); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		ar, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		for _, tbl := range lake.Tables() {
			first := true
			sc, err := lk.Scan(ctx, tbl, func(rec arrow.RecordBatch) error {
				rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
				if err != nil {
					return err
				}
				defer rr.Release()
				release, err := ar.RegisterView(rr, "batch")
				if err != nil {
					return err
				}
				defer release()
				q := "INSERT INTO lake_" + tbl.Name + " SELECT * FROM batch"
				if first {
					q = "CREATE TABLE lake_" + tbl.Name + " AS SELECT * FROM batch"
					first = false
				}
				_, err = dc.(driver.ExecerContext).ExecContext(ctx, q, nil)
				return err
			})
			if err == nil && first {
				b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
				empty := b.NewRecordBatch()
				b.Release()
				rr, _ := array.NewRecordReader(sc, []arrow.RecordBatch{empty})
				release, rerr := ar.RegisterView(rr, "batch")
				if rerr != nil {
					return rerr
				}
				_, err = dc.(driver.ExecerContext).ExecContext(ctx, "CREATE TABLE lake_"+tbl.Name+" AS SELECT * FROM batch", nil)
				release()
				rr.Release()
				empty.Release()
			}
			if err != nil {
				return fmt.Errorf("%s: %w", tbl.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// columns is t's column list for SQL.
func columns(t *schema.Table) string {
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, schema.Ident(c.Name))
	}
	return strings.Join(cols, ", ")
}

func count(t testing.TB, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// same checks that the query a and b give the same rows, as many times
// each, and returns how many.
func same(t testing.TB, db *sql.DB, what, a, b string) int64 {
	t.Helper()
	na, nb := count(t, db, "SELECT count(*) FROM ("+a+")"), count(t, db, "SELECT count(*) FROM ("+b+")")
	diff := count(t, db, "SELECT count(*) FROM (("+a+") EXCEPT ALL ("+b+"))") + count(t, db, "SELECT count(*) FROM (("+b+") EXCEPT ALL ("+a+"))")
	if na != nb || diff != 0 {
		t.Errorf("%s: %d rows against %d, %d differ", what, na, nb, diff)
	}
	return na
}

// snapshotRows is the query of the rows of t a reader of the current
// snapshot's files reads, as an engine that knows only Parquet and the
// manifests does: every data file's rows but those its position delete
// files name (file_path, pos: the Iceberg spec's position deletes), and
// how many data files there are.
func snapshotRows(t testing.TB, lk *lake.Lake, tbl *schema.Table) (string, int) {
	t.Helper()
	local := map[string]string{}
	list := func(files []lake.File) string {
		var paths []string
		for _, f := range files {
			local[f.Path] = localFile(t, f.Path)
			paths = append(paths, schema.Literal(local[f.Path]))
		}
		return "[" + strings.Join(paths, ", ") + "]"
	}
	files, err := lk.Files(context.Background(), tbl)
	if err != nil {
		t.Fatal(err)
	}
	deletes, err := lk.DeleteFiles(context.Background(), tbl)
	if err != nil {
		t.Fatal(err)
	}
	q := fmt.Sprintf("SELECT %s FROM read_parquet(%s, filename = true, file_row_number = true) AS d", columns(tbl), list(files))
	if len(deletes) > 0 {
		var names []string
		for _, f := range files {
			names = append(names, fmt.Sprintf("(%s, %s)", schema.Literal(f.Path), schema.Literal(local[f.Path])))
		}
		q += fmt.Sprintf(` WHERE NOT EXISTS (SELECT 1 FROM read_parquet(%s) AS x JOIN (VALUES %s) AS m(url, local) ON x.file_path = m.url
	WHERE x.pos = d.file_row_number AND m.local = d.filename)`, list(deletes), strings.Join(names, ", "))
	}
	return q, len(files)
}
