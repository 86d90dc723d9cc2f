package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OpenReadOnly opens the published warehouse in dir for reading only
// (DuckDB's access_mode READ_ONLY), for etalake sql and reports: no
// migration, no write, no lock of ours. It reads what the last job
// published, also while a job is writing (the writer works in its own
// copy), and a job never waits for it: a reader keeps the file it opened
// when the next job publishes over it. Several readers may be open at
// once, of etalake or of any DuckDB client.
//
// Within one process, DuckDB shares a database already open by the same
// path (duckdb-go's instance cache): a reader opened while another of the
// same process is still open reads what that one opened. Close readers to
// see a newer publish; processes (notebooks, etalake sql) are not shared.
//
// The options' memory limit and threads apply as to a writer.
func OpenReadOnly(ctx context.Context, dir string, opt Options) (*sql.DB, error) {
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
	c, err := connector(path, opt, true)
	if err != nil {
		return nil, fmt.Errorf("load: open %s read-only: %w", dir, err)
	}
	db := sql.OpenDB(c)
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("load: open %s read-only: %w", path, err), db.Close())
	}
	return db, nil
}
