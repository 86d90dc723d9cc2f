package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Files of publishing: the copy being written next to the published
// database (a rename within one directory is atomic), and the record of
// what the working copy was when it was last published.
const (
	publishingName = "." + dbName + ".publishing"
	publishedMark  = "published.json"
)

// PublishStats is what a Publish did.
type PublishStats struct {
	// Published is false when nothing changed since the last publish.
	Published bool
	Bytes     int64         // the size of the published database
	Took      time.Duration // by Options.Now
}

// mark identifies a state of the working copy: DuckDB rewrites the file
// only when a checkpoint has changes to write, so its size and
// modification time after a checkpoint change exactly when its content
// does.
type mark struct {
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime_ns"`
}

// Publish makes what the warehouse holds now what readers see. It
// checkpoints the working copy (every committed load is then in its file,
// none half), copies that file next to <dir>/etalake.duckdb, syncs it and
// renames it over the published one. A reader that has the published
// database open keeps reading the file it opened; the next one to open it
// gets the new one: every table as of the same moment, never half a job.
// It does nothing when the working copy has not changed since it was last
// published. The cost is a copy of the database (BENCHMARKS.md).
func (w *Warehouse) Publish(ctx context.Context) (PublishStats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return PublishStats{}, errClosed
	}
	start := w.opt.Now()
	if _, err := w.db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return PublishStats{}, fmt.Errorf("load: publishing: checkpoint: %w", err)
	}
	fi, err := os.Stat(w.workPath())
	if err != nil {
		return PublishStats{}, fmt.Errorf("load: publishing: %w", err)
	}
	now := mark{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	markPath := filepath.Join(w.dir, workDir, publishedMark)
	if last, ok := readMark(markPath); ok && last == now {
		if _, err := os.Stat(w.publishedPath()); err == nil {
			return PublishStats{Bytes: now.Size}, nil
		}
	}
	if err := w.publishFile(); err != nil {
		return PublishStats{}, fmt.Errorf("load: publishing %s: %w", w.publishedPath(), err)
	}
	data, _ := json.Marshal(now)
	if err := writeSynced(markPath, data); err != nil {
		return PublishStats{}, fmt.Errorf("load: publishing: %w", err)
	}
	return PublishStats{Published: true, Bytes: now.Size, Took: w.opt.Now().Sub(start)}, nil
}

// publishFile copies the checkpointed working copy over the published
// database. A stale write-ahead log of the published file (left by an
// earlier version that wrote it in place) goes first: a reader opening in
// between sees the old file a little older, never the new file with an
// old log.
func (w *Warehouse) publishFile() error {
	tmp := filepath.Join(w.dir, publishingName)
	if err := copyFile(w.workPath(), tmp); err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	if err := removeIfExists(w.publishedPath() + ".wal"); err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	if err := os.Rename(tmp, w.publishedPath()); err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	return syncDir(w.dir)
}

// adopt starts the working copy of a warehouse that has none: from the
// published database of an earlier version that wrote it in place (with
// its write-ahead log, which DuckDB replays when it opens the copy), or
// not at all for a new warehouse. The copy is written under another name
// and renamed, so that a crash leaves no half copy to be taken for one.
func (w *Warehouse) adopt() error {
	if _, err := os.Stat(w.workPath()); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, err := os.Stat(w.publishedPath()); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := removeIfExists(w.workPath() + ".wal"); err != nil {
		return err
	}
	wal := w.publishedPath() + ".wal"
	if _, err := os.Stat(wal); err == nil {
		if err := copyFile(wal, w.workPath()+".wal"); err != nil {
			return err
		}
	}
	tmp := w.workPath() + ".adopting"
	if err := copyFile(w.publishedPath(), tmp); err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	if err := os.Rename(tmp, w.workPath()); err != nil {
		return err
	}
	return syncDir(filepath.Dir(w.workPath()))
}

func readMark(path string) (mark, bool) {
	var m mark
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &m) != nil {
		return mark{}, false
	}
	return m, true
}
