package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/etalake/etalake/schema"
)

// OpenPlanning opens the warehouse in dir for a dry run: to read what a
// job would read to plan (the checkpoint, the tracked set), changing
// nothing — no directory or file created, no lock taken, no migration
// applied to it, no run recorded.
//
//   - No published warehouse in dir: an empty one in memory, so that the
//     plan is that of a first job.
//   - A published one with every migration applied: that file, read-only,
//     as etalake sql reads it (what the last job published).
//   - One that a migration would change: a copy in a temporary directory,
//     migrated there and removed by Close.
//
// Only reads may be made of the Warehouse returned; Close never publishes.
func OpenPlanning(ctx context.Context, dir string, opt Options) (*Warehouse, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := checkForeign(ctx, dir, opt); err != nil {
		return nil, err
	}
	published := filepath.Join(dir, dbName)
	if _, err := os.Stat(published); errors.Is(err, fs.ErrNotExist) {
		return openScratch(ctx, "", opt)
	}
	c, err := connector(published, opt, true)
	if err != nil {
		return nil, fmt.Errorf("load: open %s read-only: %w", dir, err)
	}
	db := sql.OpenDB(c)
	current, err := migrated(ctx, db)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("load: open %s read-only: %w", published, err), db.Close())
	}
	if current {
		return &Warehouse{dir: dir, db: db, opt: opt}, nil
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "etalake-plan-")
	if err != nil {
		return nil, err
	}
	if err := copyFile(published, filepath.Join(tmp, dbName)); err != nil {
		return nil, errors.Join(err, os.RemoveAll(tmp))
	}
	w, err := openScratch(ctx, filepath.Join(tmp, dbName), opt)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(tmp))
	}
	w.scratch = tmp
	return w, nil
}

// openScratch opens the database at path (in memory when "") and applies
// every migration to it: a warehouse no one else sees.
func openScratch(ctx context.Context, path string, opt Options) (*Warehouse, error) {
	c, err := connector(path, opt, false)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	if _, err := migrate(ctx, db, opt.Now); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &Warehouse{db: db, opt: opt}, nil
}

// migrated reports whether db has every embedded migration applied.
func migrated(ctx context.Context, db *sql.DB) (bool, error) {
	ms, err := schema.Migrations()
	if err != nil {
		return false, err
	}
	done, err := appliedMigrations(ctx, db)
	if err != nil {
		return false, err
	}
	return len(done) >= len(ms), nil
}
