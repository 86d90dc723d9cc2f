package load

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// ReadOptions tune a reader of the published warehouse (OpenReader).
type ReadOptions struct {
	// AllowFiles lets queries read and write any file the user may
	// (DuckDB's external access: COPY … TO, EXPORT DATABASE, read_csv of
	// any path, ATTACH). Without it a reader reads the database and the
	// Parquet mirror under the warehouse directory, and writes nothing.
	AllowFiles bool
	// Snapshot, when set, is told when the published database is held
	// read-write by another process and a private copy of it is read
	// instead (see OpenReader).
	Snapshot func(Snapshot)
}

// OpenReadOnly opens the published warehouse in dir for reading only,
// with the default ReadOptions: see OpenReader.
func OpenReadOnly(ctx context.Context, dir string, opt Options) (*sql.DB, error) {
	return OpenReader(ctx, dir, opt, ReadOptions{})
}

// OpenReader opens the published warehouse in dir for reading only
// (DuckDB's access_mode READ_ONLY), for etalake sql and reports: no
// migration, no write, no lock of ours. It reads what the last job
// published, also while a job is writing (the writer works in its own
// copy), and a job never waits for it: a reader keeps the file it opened
// when the next job publishes over it. Several readers may be open at
// once, of etalake or of any DuckDB client opening it read-only.
//
// Unless ro.AllowFiles, the reader touches no file but the database and
// the Parquet mirror: DuckDB's external access is off but for
// <dir>/parquet/ (enable_external_access, allowed_directories), its
// configuration is locked (lock_configuration: no SET can lift it), and
// CheckQuery refuses the statements that would write into the mirror.
//
// A process that opened the published file read-write (the default of
// Python's and Node's duckdb.connect(path), and of DBeaver) holds a lock
// that keeps every other process out. The reader then copies the file,
// as that process last checkpointed it, to a private directory under
// os.TempDir, reads the copy, and removes it when closed; ro.Snapshot is
// told who holds the file and what the copy cost.
//
// Within one process, DuckDB shares a database already open by the same
// path (duckdb-go's instance cache): a reader opened while another of the
// same process is still open reads what that one opened. Close readers to
// see a newer publish; processes (notebooks, etalake sql) are not shared.
//
// The options' memory limit and threads apply as to a writer.
func OpenReader(ctx context.Context, dir string, opt Options, ro ReadOptions) (*sql.DB, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, dbName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s: no %s (a job publishes it when it starts on a new warehouse)", ErrNoWarehouse, dir, dbName)
	}
	// The version's own file, not the link through .current: the reader
	// keeps the version it opened, and DuckDB's lock on that file keeps
	// the version from removal while it is open (version.go).
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mirror := filepath.Join(dir, parquetDir)
	db, err := openReader(ctx, path, opt, ro, mirror, "")
	if err == nil {
		return db, nil
	}
	holder, held := heldReadWrite(err, path)
	if !held {
		return nil, fmt.Errorf("load: open %s read-only: %w", path, err)
	}
	snap, serr := copySnapshot(path, holder)
	if serr != nil {
		return nil, fmt.Errorf("load: %s is held read-write by %s, and a private copy of it could not be made: %w (the lock: %w)", path, holder, serr, err)
	}
	db, err = openReader(ctx, filepath.Join(snap.Dir, dbName), opt, ro, mirror, snap.Dir)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("load: reading the copy of %s held read-write by %s: %w", path, holder, err), os.RemoveAll(snap.Dir))
	}
	if ro.Snapshot != nil {
		ro.Snapshot(snap)
	}
	return db, nil
}

// openReader opens the database at path read-only, its external access
// limited to the mirror directory unless ro.AllowFiles; a non-empty
// private is a directory the reader owns, removed when it is closed.
func openReader(ctx context.Context, path string, opt Options, ro ReadOptions, mirror, private string) (*sql.DB, error) {
	q := url.Values{}
	q.Set("memory_limit", fmt.Sprintf("%dKiB", max(opt.MemoryLimit>>10, 1)))
	q.Set("threads", strconv.Itoa(opt.Threads))
	q.Set("access_mode", "READ_ONLY")
	root := filepath.Dir(mirror)
	init := func(ex driver.ExecerContext) error {
		_, err := ex.ExecContext(context.Background(), "SET TimeZone = 'UTC'", nil)
		return err
	}
	if !ro.AllowFiles {
		init = guard(mirror)
	}
	// The views of the readers' database name their files under the
	// warehouse directory it was published in: under this one, wherever
	// the warehouse is now (readers.go).
	first := init
	init = func(ex driver.ExecerContext) error {
		if err := first(ex); err != nil {
			return err
		}
		_, err := ex.ExecContext(context.Background(), "SET VARIABLE "+rootVariable+" = "+literal(root), nil)
		return err
	}
	c, err := duckdb.NewConnector(path+"?"+q.Encode(), init)
	if err != nil {
		if private != "" {
			err = errors.Join(err, os.RemoveAll(private))
		}
		return nil, err
	}
	var conn driver.Connector = c
	if private != "" {
		conn = privateConnector{c, private}
	}
	db := sql.OpenDB(conn)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return db, nil
}

// guard is the first statements of every connection of a reader that
// touches no file but the database and the mirror. The settings are the
// database's, not the connection's, and lock_configuration forbids any
// later SET, of this connection's or the next's: the first connection
// sets them, the next ones find them set (and check them, as a database
// shared within the process may have been opened otherwise).
func guard(mirror string) func(driver.ExecerContext) error {
	versions := filepath.Join(filepath.Dir(mirror), versionsDir)
	dirs := []string{mirror + string(filepath.Separator), versions + string(filepath.Separator)}
	for _, d := range []string{mirror, versions} {
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			dirs = append(dirs, real+string(filepath.Separator))
		}
	}
	quoted := make([]string, len(dirs))
	for i, d := range dirs {
		quoted[i] = "'" + strings.ReplaceAll(d, "'", "''") + "'"
	}
	return func(ex driver.ExecerContext) error {
		ctx := context.Background()
		var locked, external string
		if err := settings(ctx, ex, &locked, &external); err != nil {
			return err
		}
		if locked == "true" {
			if external != "false" {
				return errors.New("load: a reader of this warehouse that allows files is open in this process: close it first")
			}
			return nil
		}
		for _, s := range []string{
			"SET GLOBAL TimeZone = 'UTC'",
			"SET GLOBAL allowed_directories = [" + strings.Join(quoted, ", ") + "]",
			"SET GLOBAL enable_external_access = false",
			"SET GLOBAL lock_configuration = true",
		} {
			if _, err := ex.ExecContext(ctx, s, nil); err != nil {
				return fmt.Errorf("load: guarding the reader (%s): %w", s, err)
			}
		}
		return nil
	}
}

// settings reads lock_configuration and enable_external_access.
func settings(ctx context.Context, ex driver.ExecerContext, locked, external *string) error {
	qc, ok := ex.(driver.QueryerContext)
	if !ok {
		return errors.New("load: the DuckDB connection cannot query")
	}
	rows, err := qc.QueryContext(ctx, "SELECT current_setting('lock_configuration')::VARCHAR, current_setting('enable_external_access')::VARCHAR", nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]driver.Value, 2)
	if err := rows.Next(vals); err != nil {
		return err
	}
	*locked, _ = vals[0].(string)
	*external, _ = vals[1].(string)
	return nil
}

// privateConnector is a reader's connector that owns a directory (a
// snapshot's), removed when the reader is closed: database/sql closes a
// connector that is an io.Closer when the DB is closed.
type privateConnector struct {
	*duckdb.Connector
	dir string
}

func (c privateConnector) Close() error {
	return errors.Join(c.Connector.Close(), os.RemoveAll(c.dir))
}
