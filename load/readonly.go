package load

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OpenReadOnly opens the warehouse in dir for reading only (DuckDB's
// access_mode READ_ONLY), for etalake sql and reports: no migration, no
// write. It holds a shared lock on the warehouse until the returned DB is
// closed, so a writer that starts meanwhile gets a *BusyError instead of
// DuckDB's lock error; while a writer holds the warehouse, OpenReadOnly
// returns a *BusyError naming it. Several readers may be open at once.
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
		return nil, fmt.Errorf("%w in %s: no %s (a run creates it)", ErrNoWarehouse, dir, dbName)
	}
	lk, err := lockReader(dir)
	if err != nil {
		return nil, err
	}
	c, err := connector(path, opt, true)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("load: open %s read-only: %w", dir, err), lk.release())
	}
	db := sql.OpenDB(&lockedConnector{Connector: c, lock: lk})
	if err := db.PingContext(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return db, nil
}

// lockedConnector is a DuckDB connector that drops the reader's lock when
// database/sql closes it (DB.Close closes a connector that is an
// io.Closer).
type lockedConnector struct {
	driver.Connector
	lock *lock
}

// Close closes the database, then releases the lock.
func (c *lockedConnector) Close() error {
	var err error
	if cl, ok := c.Connector.(interface{ Close() error }); ok {
		err = cl.Close()
	}
	return errors.Join(err, c.lock.release())
}
