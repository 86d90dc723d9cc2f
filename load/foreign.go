package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// checkForeign refuses, before anything is created, locked or copied, a
// directory whose etalake.duckdb no etalake wrote: another tool's DuckDB
// database (tables or views, and no schema_migrations) or a file that is
// no DuckDB database at all. Open would otherwise copy it into a working
// copy, fail half-way through the migrations on the other tool's tables,
// and name the working copy rather than the user's file. A warehouse with
// a working copy is etalake's, and so is a published file of an earlier
// version, written in place (it has schema_migrations); an empty DuckDB
// database is taken as a new warehouse. A file another process holds
// read-write cannot be looked into, and is left to Open.
func checkForeign(ctx context.Context, dir string, opt Options) error {
	if _, err := os.Stat(filepath.Join(dir, workDir, dbName)); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	path := filepath.Join(dir, dbName)
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	objects, err := objectNames(ctx, path, opt)
	if _, held := heldReadWrite(err, path); held {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s is not a DuckDB database etalake can open (%v); give the warehouse a directory of its own, or move that file away", ErrNotWarehouse, path, err)
	}
	ours := slices.Contains(objects, "schema_migrations")
	if len(objects) > 0 && !ours {
		return fmt.Errorf("%w: %s is another tool's DuckDB database: it holds %d tables or views (%s) and none of etalake's (no schema_migrations); give the warehouse a directory of its own, or move that file away",
			ErrNotWarehouse, path, len(objects), firstNames(objects, 3))
	}
	return nil
}

// objectNames lists the tables and views of the DuckDB database at path,
// opened read-only.
func objectNames(ctx context.Context, path string, opt Options) ([]string, error) {
	c, err := connector(path, opt, true)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()
		UNION ALL SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND NOT internal
		ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}

// firstNames lists the first n names, and says how many more there are.
func firstNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
