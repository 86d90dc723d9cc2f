package load

import (
	"context"
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/etalake/etalake/schema"
	views "github.com/etalake/etalake/sql"
)

// The readers' database of a version, <version>/etalake.duckdb, is what
// notebooks, etalake sql and the report open: a view per contract table
// over the version's mirror, with the table's columns, types and
// comments; a view per analytic table over its files under analytics/;
// and the macros and views of package sql. It holds no rows: building it
// costs the same on a week-old warehouse and a year-old one.
//
// Its views name the files of their version by an absolute path: the
// warehouse directory, etalake_root(), or the directory the DuckDB
// variable etalake_root names when set — a reader of a warehouse moved or
// mounted elsewhere sets it (SET VARIABLE etalake_root = '/mnt/warehouse'),
// as etalake's own readers do (OpenReader) — then the version,
// etalake_version(). Both are macros, so that every version's database is
// the same but for them: the database is built once (some 450 statements,
// most of them comments, about 0.2 s) as a template under .work/, and each
// publish copies the template and replaces the two macros (a few ms).
// The template is built again when what it says changes: the schema, the
// views of package sql, or which tables have files.

// rootVariable is the DuckDB variable that relocates a readers' database.
const rootVariable = "etalake_root"

// templatePrefix names the readers' template under .work/:
// readers-<readersKey>.duckdb.
const templatePrefix = "readers-"

// pathExpr is the SQL expression of the path rel (slash-separated) within
// the version readers opened, under the warehouse root.
func pathExpr(rel string) string {
	return fmt.Sprintf("coalesce(getvariable(%s), etalake_root()) || %s || etalake_version() || %s",
		literal(rootVariable), literal("/"+versionsDir+"/"), literal("/"+rel))
}

// versionMacroSQL sets etalake_version() to version v's directory name
// and etalake_root() to the warehouse directory root.
func versionMacroSQL(root string, v version) string {
	return fmt.Sprintf(`CREATE OR REPLACE MACRO etalake_version() AS %s;
COMMENT ON MACRO etalake_version IS %s;
CREATE OR REPLACE MACRO etalake_root() AS %s;
COMMENT ON MACRO etalake_root IS %s;
`, literal(versionName(v.n)), literal("the version of the warehouse this database shows: its directory under .versions/, published once, never changed"),
		literal(root), literal("the warehouse directory this database was published in; a reader of the warehouse moved or mounted elsewhere sets the variable etalake_root instead"))
}

// buildReaders writes the readers' database of version v at
// v.dir/etalake.duckdb: a copy of the template of its SQL (built first
// when there is none) with etalake_version() set to v. root is the
// warehouse directory the views name.
func (w *Warehouse) buildReaders(ctx context.Context, root string, v version) error {
	path := filepath.Join(v.dir, dbName)
	key, err := readersKey(v)
	if err != nil {
		return err
	}
	tmpl := filepath.Join(w.dir, workDir, templatePrefix+key+".duckdb")
	if err := w.template(ctx, tmpl, key, root, v); err != nil {
		return fmt.Errorf("building the readers' database: %w", err)
	}
	if err := copyFile(tmpl, path); err != nil {
		return err
	}
	err = w.execDB(ctx, path, func(home string) (string, error) {
		kept, err := w.keptTablesSQL(ctx, home)
		return versionMacroSQL(root, v) + kept, err
	})
	if err != nil {
		return errors.Join(fmt.Errorf("building the readers' database %s: %w", path, err), removeIfExists(path), removeIfExists(path+".wal"))
	}
	if _, err := syncFile(path); err != nil {
		return err
	}
	return syncDir(v.dir)
}

// readersFormat changes when readersSQL changes what it writes for the
// same tables and views: every template is then built again.
const readersFormat = "1"

// keptTables are the writer's own tables readers see too, copied whole
// into each version's database: they are small. schema_migrations says
// which schema the version has; lake_state, in a warehouse that feeds a
// lake, its writer id there; lake_pull, in a pull of the lake, what the
// pull read. Not lake_pending, lake_keys nor lake_inflight: a version
// is published before the lake's commit (Publish, step 6), so a copy
// would show what that commit was about to clear; a reader of the lake's
// progress reads `etalake lake status`.
var keptTables = []string{"schema_migrations", "lake_state", pullTable}

// keptTablesSQL copies the keptTables the writer's database home has.
func (w *Warehouse) keptTablesSQL(ctx context.Context, home string) (string, error) {
	var b strings.Builder
	for _, t := range keptTables {
		var n int
		if err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ? AND database_name = ?`, t, home).Scan(&n); err != nil {
			return "", err
		}
		if n > 0 {
			fmt.Fprintf(&b, "CREATE TABLE %s AS SELECT * FROM %s.main.%s;\n", ident(t), ident(home), ident(t))
		}
	}
	return b.String(), nil
}

// readersKey names the template of version v's readers' database: a hash
// of what its script depends on — the format, the tables' and the
// analytic views' definitions, and which tables have files in v (not the
// warehouse directory: a macro, as the version is).
func readersKey(v version) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", readersFormat)
	ms, err := schema.Migrations()
	if err != nil {
		return "", err
	}
	for _, m := range ms {
		fmt.Fprintf(h, "m %s\n", m.Checksum())
	}
	vs, err := views.Views()
	if err != nil {
		return "", err
	}
	for _, av := range vs {
		fmt.Fprintf(h, "v %s\n", av.Checksum())
		if av.Table != "" {
			fmt.Fprintf(h, "a %s %t\n", av.Table, hasParquet(filepath.Join(v.dir, analyticsDir, av.Table)))
		}
	}
	for _, t := range schema.Tables {
		fmt.Fprintf(h, "t %s %t\n", t.Name, hasParquet(filepath.Join(v.dir, parquetDir, t.Name)))
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}

// templates are the readers' templates this process built or read, by
// key: a test, or a process writing several warehouses, builds each once.
var templates sync.Map

// template makes sure the readers' template of key is at path: from this
// process's templates, else built from its script (the views bound to
// version v's files). The templates of other keys under .work/ go.
func (w *Warehouse) template(ctx context.Context, path, key, root string, v version) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), templatePrefix+"*.duckdb*"))
	for _, o := range old {
		if err := removeIfExists(o); err != nil {
			return err
		}
	}
	tmp := filepath.Join(filepath.Dir(path), tempPrefix+filepath.Base(path))
	// A process killed between the build's commit and the rename left tmp
	// holding every view: the script would fail on its first.
	if err := errors.Join(removeIfExists(tmp), removeIfExists(tmp+".wal")); err != nil {
		return err
	}
	if data, ok := templates.Load(key); ok {
		if err := writeSynced(tmp, data.([]byte)); err != nil {
			return errors.Join(err, removeIfExists(tmp))
		}
		return os.Rename(tmp, path)
	}
	script, err := w.readersSQL(ctx, v)
	if err == nil {
		err = w.execDB(ctx, tmp, func(string) (string, error) {
			return "BEGIN TRANSACTION;\n" + versionMacroSQL(root, v) + script + "COMMIT;\n", nil
		})
	}
	if err != nil {
		return errors.Join(err, removeIfExists(tmp), removeIfExists(tmp+".wal"))
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	templates.Store(key, data)
	if _, err := syncFile(tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// execDB runs the script on the DuckDB database at path (created when
// absent), attached to the writer's own DuckDB rather than opened in an
// instance of its own (which costs more than the script), then detaches
// it, checkpointed. script is given the name of the writer's database,
// which the script reaches as <home>.main.<table>.
func (w *Warehouse) execDB(ctx context.Context, path string, script func(home string) (string, error)) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var home string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&home); err != nil {
		return err
	}
	q, err := script(home)
	if err != nil {
		return err
	}
	const alias = "etalake_readers"
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s", literal(path), alias)); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "USE "+alias+";\n"+q)
	if err != nil {
		// A script failing inside its transaction leaves it open, and
		// DuckDB detaches no database a transaction has work on.
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	}
	// The connection goes back to the pool: home again, whatever the
	// script did.
	back := context.WithoutCancel(ctx)
	if _, uerr := conn.ExecContext(back, "USE "+ident(home)); uerr != nil {
		err = errors.Join(err, uerr, conn.Raw(func(any) error { return driver.ErrBadConn }))
	}
	if err == nil {
		_, err = conn.ExecContext(ctx, "CHECKPOINT "+alias)
	}
	_, derr := conn.ExecContext(back, "DETACH "+alias)
	return errors.Join(err, derr)
}

// readersSQL is the script of the readers' views, version v's files
// deciding which tables are empty.
func (w *Warehouse) readersSQL(ctx context.Context, v version) (string, error) {
	var b strings.Builder
	for _, t := range schema.Tables {
		dir := filepath.Join(v.dir, parquetDir, t.Name)
		glob, hive := parquetDir+"/"+t.Name+"/**/*.parquet", true
		if t == schema.RawResponses {
			glob, hive = parquetDir+"/"+t.Name+"/*.parquet", false
		}
		b.WriteString(tableViewSQL(t, glob, hive, hasParquet(dir)))
	}
	vs, err := views.Views()
	if err != nil {
		return "", err
	}
	for _, av := range vs {
		if av.Table == "" {
			b.WriteString(av.SQL)
			b.WriteString("\n")
			continue
		}
		q, err := w.analyticViewSQL(ctx, av, v)
		if err != nil {
			return "", err
		}
		b.WriteString(q)
	}
	return b.String(), nil
}

// tableViewSQL is the view of contract table t over the files glob
// names (hive: partitioned by directory), with the table's columns in
// order, each of its type, and its comments; an empty view of the same
// columns when the table has no file.
func tableViewSQL(t *schema.Table, glob string, hive, files bool) string {
	var cols []string
	for _, c := range t.Columns {
		if t == schema.RawResponses && c.Name == segmentColumn {
			continue
		}
		src := "NULL"
		if files {
			src = ident(c.Name)
		}
		cols = append(cols, fmt.Sprintf("CAST(%s AS %s) AS %s", src, c.Type.DuckDB(), ident(c.Name)))
	}
	from := " WHERE false"
	if files {
		from = fmt.Sprintf(" FROM read_parquet(%s, hive_partitioning = %t)", pathExpr(glob), hive)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE VIEW %s AS SELECT %s%s;\n", ident(t.Name), strings.Join(cols, ", "), from)
	b.WriteString(schema.ViewCommentsSQL(t, readerDoc))
	return b.String()
}

// readerDoc is a column's comment in the readers' database, where it
// differs from the table's: raw_responses' bodies are as they arrived.
func readerDoc(t *schema.Table, c schema.Column) string {
	switch {
	case t == schema.RawResponses && c.Name == "body":
		return "the body as it arrived; NULL when it is kept in body_file"
	case t == schema.RawResponses && c.Name == segmentColumn:
		return "" // the writer's, not a column of the view
	}
	return c.Doc
}

// hasParquet reports whether dir holds a Parquet file, at any depth.
func hasParquet(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// commentPattern finds the comments of an analytic table's file.
var commentPattern = regexp.MustCompile(`(?m)^COMMENT ON (?:TABLE|COLUMN) [^\n]*;$`)

// analyticViewSQL is, for an analytic table, a view over its files under
// the version's analytics/ (an empty view of its columns when it has no
// rows), with the comments its file gives it.
func (w *Warehouse) analyticViewSQL(ctx context.Context, av views.View, v version) (string, error) {
	var b strings.Builder
	if hasParquet(filepath.Join(v.dir, analyticsDir, av.Table)) {
		glob := analyticsDir + "/" + av.Table + "/*.parquet"
		fmt.Fprintf(&b, "CREATE VIEW %s AS SELECT * FROM read_parquet(%s);\n", ident(av.Table), pathExpr(glob))
	} else {
		cols, err := w.columnsOf(ctx, av.Table)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "CREATE VIEW %s AS SELECT %s WHERE false;\n", ident(av.Table), strings.Join(cols, ", "))
	}
	for _, c := range commentPattern.FindAllString(av.SQL, -1) {
		b.WriteString(c)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// columnsOf is the typed NULL columns of a table of the writer's
// database, for an empty view of its shape.
func (w *Warehouse) columnsOf(ctx context.Context, table string) ([]string, error) {
	rows, err := w.db.QueryContext(ctx, `SELECT column_name, data_type FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = ? ORDER BY column_index`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("CAST(NULL AS %s) AS %s", typ, ident(name)))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the analytic table %s is not in the writer's database", table)
	}
	return out, nil
}

// exportAnalytics writes every analytic table of the writer's database
// to stage/analytics/<table>/data.parquet (no file for an empty one), the
// monthly ones a file per month (exportMonthly), linking from prev, the
// version before's analytics/ ("" when none), the months that did not
// change. It returns how many files it linked.
func (w *Warehouse) exportAnalytics(ctx context.Context, stage, prev string) (linked int, err error) {
	vs, err := views.Views()
	if err != nil {
		return 0, err
	}
	for _, av := range vs {
		if av.Table == "" {
			continue
		}
		dir := filepath.Join(stage, analyticsDir, av.Table)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return linked, err
		}
		if column, ok := monthly[av.Table]; ok {
			from := ""
			if prev != "" {
				from = filepath.Join(prev, av.Table)
			}
			n, err := w.exportMonthly(ctx, av.Table, column, dir, from)
			linked += n
			if err != nil {
				return linked, fmt.Errorf("writing the analytic table %s: %w", av.Table, err)
			}
			continue
		}
		path := filepath.Join(dir, fileName)
		res, err := w.db.ExecContext(ctx, fmt.Sprintf("COPY (SELECT * FROM %s) TO %s (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE %d)", ident(av.Table), literal(path), rowGroupSize))
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		if err == nil && n == 0 {
			err = removeIfExists(path)
		}
		if err != nil {
			return linked, fmt.Errorf("writing the analytic table %s: %w", av.Table, err)
		}
	}
	return linked, nil
}
