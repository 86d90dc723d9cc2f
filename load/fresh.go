package load

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// freshMark, in the working directory, says the working copy was started
// anew (Options.Fresh) and has not been published since. It outlives the
// process, so that a writer that died before that first publish does not
// leave the next one to link the old warehouse's files into a version of
// the new one.
const freshMark = "fresh"

// renew drops, with Options.Fresh, what the directory's writer held: the
// working copy and everything else under the working directory (journal,
// readers' templates, the mark of the last publish), and the body store.
// What readers see — .current, the versions, the links to them — stays
// until the first Publish of the new working copy replaces it, in the
// one rename every publish is. It then notes whether the working copy is
// fresh (a mark left by a writer that died counts). The caller holds the
// writer's lock.
func (w *Warehouse) renew() error {
	mark := filepath.Join(w.dir, workDir, freshMark)
	if w.opt.Fresh {
		for _, name := range []string{workDir, bodiesDir} {
			if err := os.RemoveAll(filepath.Join(w.dir, name)); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Join(w.dir, workDir, journalDir), 0o755); err != nil {
			return err
		}
		if err := writeSynced(mark, nil); err != nil {
			return err
		}
	}
	_, err := os.Stat(mark)
	w.fresh = err == nil
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return err
}

// linkable says whether a new version may link the files of cur (there is
// one: ok): not while the working copy is fresh, whose version is its own
// alone.
func (w *Warehouse) linkable(ok bool) bool { return ok && !w.fresh }

// publishedFresh notes the fresh working copy's first version as published:
// from the next publish on, versions link from the one before. Until the
// mark is gone every publish writes every partition anew, so a failure
// here costs the next publish time, not rows.
func (w *Warehouse) publishedFresh() error {
	if !w.fresh {
		return nil
	}
	if err := os.Remove(filepath.Join(w.dir, workDir, freshMark)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	w.fresh = false
	return syncDir(filepath.Join(w.dir, workDir))
}
