package load

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// What readers see is a version: a directory .versions/v<N> holding the
// Parquet mirror (parquet/<table>/…), the materialised analytic tables
// (analytics/<table>/…) and the readers' database (etalake.duckdb: views
// over those files and the analytic views of package sql), never changed
// once written. <dir>/.current is a symbolic link to the version readers
// see, and <dir>/etalake.duckdb and <dir>/parquet are links through it,
// so that replacing .current — one rename — publishes every table, the
// analytic tables and the mirror at once, and a crash at any instant
// leaves readers the version before or the new one.
//
// A new version is built beside the current one under a temp name: the
// files of the partitions the job did not change are hard links to the
// current version's (no byte copied; a filesystem without hard links gets
// copies), the changed partitions are written anew. What a publish costs
// is then the partitions it changed, the links (a few thousand a year)
// and a small database of views, not a copy of the warehouse.
//
// A version stays while a reader holds its database open (DuckDB locks
// the file it opened, read-only or not: heldOpen), and the one before the
// current stays until the next publish, for readers of the mirror who
// listed its files an instant before the swap. Every other version goes
// at the end of each publish; a file still in a kept version stays, being
// a link.
const (
	versionsDir  = ".versions"
	currentLink  = ".current"
	analyticsDir = "analytics"
)

// errNoSwap: the filesystem cannot do what an atomic exchange of two
// directories, or a hard link, needs.
var errNoSwap = errors.New("the filesystem cannot exchange two directories or link a file")

// version is a published version's number and directory.
type version struct {
	n   int64
	dir string
}

// versionName is the directory name of version n.
func versionName(n int64) string { return fmt.Sprintf("v%09d", n) }

// parseVersion reads a version directory's name; ok is false for any
// other name (a temp directory, a stray file).
func parseVersion(name string) (int64, bool) {
	s, ok := strings.CutPrefix(name, "v")
	if !ok || len(s) != 9 {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// current is the version .current names; ok is false when there is none
// yet (a new warehouse, or one written before versions).
func (w *Warehouse) current() (version, bool, error) {
	target, err := os.Readlink(filepath.Join(w.dir, currentLink))
	if errors.Is(err, fs.ErrNotExist) {
		return version{}, false, nil
	}
	if err != nil {
		return version{}, false, fmt.Errorf("reading %s: %w", currentLink, err)
	}
	n, ok := parseVersion(filepath.Base(target))
	if !ok {
		return version{}, false, fmt.Errorf("%s names %s, not a version", filepath.Join(w.dir, currentLink), target)
	}
	return version{n: n, dir: filepath.Join(w.dir, versionsDir, versionName(n))}, true, nil
}

// stageDir is where version n is built before it is renamed into place:
// a temp name, which Open sweeps after a crash.
func (w *Warehouse) stageDir(n int64) string {
	return filepath.Join(w.dir, versionsDir, tempPrefix+versionName(n)+"-"+randomHex())
}

// commitVersion puts the staged version n in place and makes it current:
// the staged tree is synced and renamed to its version's name, the
// readers' database is built in it (its views name their files where they
// now are: DuckDB checks a view's files when it creates it), then
// .current is replaced by a link to it (a new link renamed over the old
// one), and etalake.duckdb and parquet are made links through .current if
// they are not yet (a warehouse of the layout before versions, or a new
// one). A crash before the swap leaves a version newer than the current,
// which the next Open removes.
func (w *Warehouse) commitVersion(ctx context.Context, stage string, n int64) (version, error) {
	root := filepath.Join(w.dir, versionsDir)
	if err := syncTree(stage); err != nil {
		return version{}, fmt.Errorf("syncing the new version: %w", err)
	}
	v := version{n: n, dir: filepath.Join(root, versionName(n))}
	if err := os.RemoveAll(v.dir); err != nil { // left by a crash before its swap
		return version{}, err
	}
	if err := os.Rename(stage, v.dir); err != nil {
		return version{}, err
	}
	if err := w.buildReaders(ctx, w.dir, v); err != nil {
		return version{}, errors.Join(err, os.RemoveAll(v.dir))
	}
	if err := syncDir(root); err != nil {
		return version{}, err
	}
	if err := replaceWithLink(filepath.Join(w.dir, currentLink), filepath.Join(versionsDir, versionName(n))); err != nil {
		return version{}, fmt.Errorf("making %s current: %w", versionName(n), err)
	}
	if err := w.linkThroughCurrent(); err != nil {
		return version{}, err
	}
	return v, syncDir(w.dir)
}

// linkThroughCurrent makes <dir>/etalake.duckdb and <dir>/parquet the
// links .current/etalake.duckdb and .current/parquet. A file or directory
// of the layout before versions is replaced in one step where the
// filesystem can (a rename over a file; an exchange with a directory),
// and what it held goes: the version holds links to the mirror's files.
func (w *Warehouse) linkThroughCurrent() error {
	for _, name := range []string{dbName, parquetDir} {
		path := filepath.Join(w.dir, name)
		target := filepath.Join(currentLink, name)
		if t, err := os.Readlink(path); err == nil && t == target {
			continue
		}
		fi, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()):
			if err := replaceWithLink(path, target); err != nil {
				return fmt.Errorf("linking %s through %s: %w", path, currentLink, err)
			}
			if name == dbName {
				// The write-ahead log of a database an earlier version
				// wrote in place: never to be replayed onto a version.
				if err := removeIfExists(path + ".wal"); err != nil {
					return err
				}
			}
		case err != nil:
			return err
		default:
			if err := replaceDirWithLink(path, target); err != nil {
				return fmt.Errorf("linking %s through %s: %w", path, currentLink, err)
			}
		}
	}
	return nil
}

// replaceWithLink makes path a symbolic link to target in one step: a
// link made under a temp name, renamed over path (a file or a link).
func replaceWithLink(path, target string) error {
	tmp := filepath.Join(filepath.Dir(path), tempPrefix+filepath.Base(path)+"-"+randomHex())
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("the warehouse's filesystem must take symbolic links: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	return nil
}

// replaceDirWithLink makes the directory path a symbolic link to target:
// exchanged in one step where the filesystem can, else moved aside first
// (readers of the mirror then see no directory for that instant). The old
// directory is removed.
func replaceDirWithLink(path, target string) error {
	tmp := filepath.Join(filepath.Dir(path), tempPrefix+filepath.Base(path)+"-"+randomHex())
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("the warehouse's filesystem must take symbolic links: %w", err)
	}
	err := errNoSwap
	if canSwap {
		err = exchange(tmp, path)
	}
	if errors.Is(err, errNoSwap) {
		aside := tmp + "-old"
		if err = os.Rename(path, aside); err == nil {
			err = os.Rename(tmp, path)
			tmp = aside
		}
	}
	if err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	return os.RemoveAll(tmp) // the old directory, now at the temp name
}

// sweepVersions removes the versions readers no longer need: every one
// but the current, the one before it, and those a reader holds open.
// Temp directories of builds a crash left go too (sweepTemp). A version
// that cannot be removed now is tried again by the next publish.
func (w *Warehouse) sweepVersions(cur version) (removed int, err error) {
	root := filepath.Join(w.dir, versionsDir)
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	var old []int64
	for _, e := range entries {
		if n, ok := parseVersion(e.Name()); ok && n < cur.n {
			old = append(old, n)
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i] > old[j] })
	for i, n := range old {
		dir := filepath.Join(root, versionName(n))
		if i == 0 || heldOpen(filepath.Join(dir, dbName)) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// sweepStages removes the version directories a crash left half built.
func (w *Warehouse) sweepStages() error {
	root := filepath.Join(w.dir, versionsDir)
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	cur, ok, err := w.current()
	if err != nil {
		return err
	}
	for _, e := range entries {
		n, isVersion := parseVersion(e.Name())
		// A temp directory, or a version built and never made current.
		if strings.HasPrefix(e.Name(), tempPrefix) || isVersion && (!ok || n > cur.n) {
			if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
				return fmt.Errorf("load: sweep %s: %w", e.Name(), err)
			}
		}
	}
	for _, name := range []string{dbName, parquetDir, currentLink} {
		matches, _ := filepath.Glob(filepath.Join(w.dir, tempPrefix+name+"-*"))
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				return fmt.Errorf("load: sweep %s: %w", m, err)
			}
		}
	}
	return nil
}

// linkTree makes dst a tree of hard links to the files of src, but those
// skip says no to (by their path relative to src) and temp files; a
// missing src is an empty tree. A filesystem without hard links gets
// copies. It returns how many files it linked.
func linkTree(src, dst string, skip func(rel string) bool) (int, error) {
	n := 0
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if path == src && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		switch {
		case rel == ".":
			return os.MkdirAll(dst, 0o755)
		case strings.HasPrefix(e.Name(), tempPrefix):
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		case skip != nil && skip(rel):
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		case e.IsDir():
			return os.Mkdir(filepath.Join(dst, rel), 0o755)
		}
		n++
		return linkFile(path, filepath.Join(dst, rel))
	})
	return n, err
}

// linkFile makes dst a hard link to src, or a copy of it where the
// filesystem has no hard links.
func linkFile(src, dst string) error {
	err := os.Link(src, dst)
	if err != nil && errors.Is(linkError(err), errNoSwap) {
		return copyFile(src, dst)
	}
	return err
}

// syncTree makes a staged tree durable: on Linux one syncfs of its
// filesystem, elsewhere a sync of each of its files and directories.
func syncTree(root string) error {
	err := syncFS(root)
	if !errors.Is(err, errNoSwap) {
		return err
	}
	return filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return syncDir(path)
		}
		_, err = syncFile(path)
		return err
	})
}
