package load

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/etalake/etalake/schema"
)

// A sync of the Parquet mirror swaps whole tables where the filesystem
// can: each table with pending partitions is built anew beside the live
// one, under parquet/.tmp-<table>-<random> — its unchanged files hard
// links to the live ones (no bytes copied), its pending partitions written
// from DuckDB — then, once every staged file and directory is on disk,
// the staged tables are exchanged with the live ones one after the other
// (renameat2 RENAME_EXCHANGE: one atomic step per table, all within
// microseconds of each other, etl_runs last), and the old trees, now at
// the temp names, are removed. A reader listing parquet/<table>/**/*.parquet
// lists one generation of the table, old or new, never a mix and never a
// gap; a crash leaves the temp trees, which Open sweeps, and the
// partitions pending, which the next sync writes.
//
// A reader's query that is running at the instant of an exchange may have
// listed the old files and open some of them after it: it then reads the
// new file of a partition under the old listing (DuckDB opens the files it
// listed as it scans them; POSIX offers no way to keep an old listing and
// show new ones). The window is that instant; the README says so.
//
// Where the filesystem has no atomic exchange or no hard links (not
// Linux, some network and FUSE filesystems), the mirror is written
// partition by partition (export): each partition old or new, a table
// mixed while the sync runs.

// errNoSwap: the filesystem cannot do what a swap needs.
var errNoSwap = errors.New("the filesystem cannot swap a table's directory")

// stage is a table of the mirror being built beside the live one.
type stage struct {
	table *schema.Table
	days  []day  // the partitions rewritten from DuckDB
	live  string // parquet/<table>
	dir   string // parquet/.tmp-<table>-<random>: the new table, then the old
}

// swap writes the pending partitions days of the tables in order by
// swapping each table whole, and forgets them. It returns an error
// matching errNoSwap, having changed nothing, when the filesystem cannot.
func (w *Warehouse) swap(ctx context.Context, order []*schema.Table, days map[*schema.Table][]day, st *SyncStats) (err error) {
	root := filepath.Join(w.dir, parquetDir)
	var stages []stage
	if !canSwap {
		return errNoSwap
	}
	defer func() {
		// Before the exchanges the new trees, after them the old ones. One
		// that cannot be removed is swept by the next Open.
		for _, s := range stages {
			_ = os.RemoveAll(s.dir)
		}
	}()
	for _, t := range order {
		s := stage{table: t, days: days[t], live: filepath.Join(root, t.Name), dir: filepath.Join(root, tempPrefix+t.Name+"-"+randomHex())}
		stages = append(stages, s)
		if err := w.build(ctx, s, st); err != nil {
			return err
		}
	}
	if err := syncFS(root); err != nil {
		return err
	}
	for _, s := range stages {
		if err := exchangeDir(s.dir, s.live); err != nil {
			return fmt.Errorf("putting %s in place: %w", s.live, err)
		}
	}
	if err := syncDir(root); err != nil {
		return err
	}
	for _, s := range stages {
		if _, err := w.db.ExecContext(ctx, `DELETE FROM parquet_pending WHERE table_name = ?`, s.table.Name); err != nil {
			return err
		}
	}
	return nil
}

// build writes the new tree of s.table in s.dir: every file of the live
// tree linked, but the data files of the pending partitions, which are
// written from the table.
func (w *Warehouse) build(ctx context.Context, s stage, st *SyncStats) error {
	rewritten := map[string]bool{}
	for _, d := range s.days {
		rewritten[filepath.Join(s.table.Partition+"="+d.String(), fileName)] = true
	}
	if err := os.Mkdir(s.dir, 0o755); err != nil {
		return err
	}
	err := filepath.WalkDir(s.live, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path == s.live && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll // a table mirrored for the first time
			}
			return err
		}
		rel, err := filepath.Rel(s.live, path)
		if err != nil || rel == "." {
			return err
		}
		switch {
		case strings.HasPrefix(e.Name(), tempPrefix): // a sync's leftover
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		case e.IsDir():
			return os.Mkdir(filepath.Join(s.dir, rel), 0o755)
		case rewritten[rel]:
			return nil
		}
		if err := os.Link(path, filepath.Join(s.dir, rel)); err != nil {
			return linkError(err)
		}
		st.Linked++
		return nil
	})
	if err != nil {
		return fmt.Errorf("staging %s: %w", s.table.Name, err)
	}
	for _, d := range s.days {
		dir := filepath.Join(s.dir, s.table.Partition+"="+d.String())
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		path := filepath.Join(dir, fileName)
		rows, bytes, err := w.exportTo(ctx, s.table, d, path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", s.table.Name, d, err)
		}
		if rows == 0 {
			// The partition has no rows left: no file, and no directory
			// unless something else is in it.
			if err := removeIfExists(path); err != nil {
				return err
			}
			_ = os.Remove(dir)
			st.Removed++
			continue
		}
		st.Written++
		st.Rows += rows
		st.Bytes += bytes
	}
	return nil
}

// exportTo writes one partition of t to path from the table, synced, and
// returns its rows and bytes (0, 0 when the partition has no rows).
func (w *Warehouse) exportTo(ctx context.Context, t *schema.Table, d day, path string) (rows, bytes int64, err error) {
	res, err := w.db.ExecContext(ctx, exportSQL(t, d, path))
	if err == nil {
		rows, err = res.RowsAffected()
	}
	if err != nil || rows == 0 {
		return 0, 0, errors.Join(err, removeIfExists(path))
	}
	if bytes, err = syncFile(path); err != nil {
		return 0, 0, err
	}
	return rows, bytes, nil
}

// exchangeDir puts the directory stage at live: a rename when live does
// not exist yet, else an atomic exchange, after which stage holds the old
// tree.
func exchangeDir(stage, live string) error {
	if _, err := os.Lstat(live); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(stage, live)
	}
	return exchange(stage, live)
}
