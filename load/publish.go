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
	Took      time.Duration // by Options.Now, the whole Publish
	// Refreshed says the analytic tables were rebuilt first, in
	// RefreshTook.
	Refreshed   bool
	RefreshTook time.Duration
	// Mirror is what the Parquet mirror's sync wrote, in MirrorTook.
	Mirror     SyncStats
	MirrorTook time.Duration
	// CopyTook is the checkpoint and the copy of the database.
	CopyTook time.Duration
	// Lake is what the commit to the lake did (Options.Lake), after the
	// database was published.
	Lake LakeStats
}

// mark identifies a state of the working copy: DuckDB rewrites the file
// only when a checkpoint has changes to write, so its size and
// modification time after a checkpoint change exactly when its content
// does.
type mark struct {
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime_ns"`
}

// Publish makes what the warehouse holds now what readers see, every
// table, the analytic tables and the Parquet mirror as of the same moment.
// In order:
//
//  1. It refuses (ErrUnderived) while landed responses wait to be
//     derived: their rows would be missing beside their raw landing (a
//     replay that stopped midway). Nothing is published.
//  2. It rebuilds the analytic tables when the tables they are built
//     from changed since they were last rebuilt (RefreshAnalytics).
//  3. It writes the pending partitions of the Parquet mirror
//     (SyncParquet): every changed table swapped whole where the
//     filesystem can, etl_runs last, so that a reader who sees a job's
//     end in the mirror's etl_runs sees every table as of that end.
//  4. It checkpoints the working copy (every committed load is then in
//     its file, none half), copies that file next to <dir>/etalake.duckdb,
//     syncs it and renames it over the published one.
//  5. With Options.Lake, it commits the partitions the mirror wrote to
//     the lake (lake.go), etl_runs last; a failure there is ErrLake.
//
// The mirror is thus written before the database is copied: for the time
// of the copy, readers of the mirror see the job and readers of the
// database the one before. A failure at any step publishes nothing more:
// readers of the database keep the state before (those of the mirror too,
// unless the failure came after its tables were swapped), and the working
// copy keeps everything for the next Publish. A reader that has the
// published database open keeps reading the file it opened; the next one
// to open it gets the new one: never half a job. It copies nothing when
// the working copy has not changed since it was last published. The cost
// is a copy of the database, and a rebuild of the analytic tables when
// their tables changed (BENCHMARKS.md).
//
// Once a writer has called Publish, Close publishes nothing more: see
// Close.
func (w *Warehouse) Publish(ctx context.Context) (PublishStats, error) {
	st, err := w.publishDerived(ctx)
	if err != nil {
		return st, err
	}
	// 5. The lake, last: a failure there leaves readers of the database
	// and the mirror the job (ErrLake).
	st.Lake, err = w.commitLake(ctx)
	st.Took += st.Lake.Took
	return st, err
}

// publishDerived is Publish up to the lake, under w.mu.
func (w *Warehouse) publishDerived(ctx context.Context) (PublishStats, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.published = true
	if w.db == nil {
		return PublishStats{}, errClosed
	}
	n, err := w.underived(ctx)
	if err != nil {
		return PublishStats{}, fmt.Errorf("load: publishing: %w", err)
	}
	if n > 0 {
		return PublishStats{}, fmt.Errorf("load: not publishing %s: %d landed responses are not derived yet: %w", w.publishedPath(), n, ErrUnderived)
	}
	return w.publish(ctx)
}

// publish is Publish from its second step: Open's first publish and
// Close's do not ask whether every landed response is derived (a warehouse
// used to land responses alone publishes them). The caller holds w.mu.
func (w *Warehouse) publish(ctx context.Context) (PublishStats, error) {
	var st PublishStats
	if w.db == nil {
		return st, errClosed
	}
	start := w.opt.Now()
	var err error
	if w.stale {
		t := w.opt.Now()
		if err := w.refresh(ctx); err != nil {
			return st, fmt.Errorf("load: not publishing %s: %w", w.publishedPath(), err)
		}
		st.Refreshed, st.RefreshTook = true, w.opt.Now().Sub(t)
	}
	t := w.opt.Now()
	if st.Mirror, err = w.sync(ctx, nil); err != nil {
		return st, fmt.Errorf("load: not publishing %s: writing the Parquet mirror: %w", w.publishedPath(), err)
	}
	st.MirrorTook = w.opt.Now().Sub(t)
	t = w.opt.Now()
	if _, err := w.db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return st, fmt.Errorf("load: publishing: checkpoint: %w", err)
	}
	now, err := w.currentMark()
	if err != nil {
		return st, fmt.Errorf("load: publishing: %w", err)
	}
	markPath := filepath.Join(w.dir, workDir, publishedMark)
	if last, ok := readMark(markPath); ok && last == now {
		if _, err := os.Stat(w.publishedPath()); err == nil {
			st.Bytes, st.Took = now.Size, w.opt.Now().Sub(start)
			return st, nil
		}
	}
	if err := w.publishFile(); err != nil {
		return st, fmt.Errorf("load: publishing %s: %w", w.publishedPath(), err)
	}
	// The database is published: a mark that cannot be written only
	// costs the next Publish a copy, so it is not this one's failure. The
	// old mark goes, lest it match a later state.
	data, _ := json.Marshal(now)
	if err := writeSynced(markPath, data); err != nil {
		_ = os.Remove(markPath)
	}
	st.CopyTook = w.opt.Now().Sub(t)
	st.Published, st.Bytes, st.Took = true, now.Size, w.opt.Now().Sub(start)
	return st, nil
}

// currentMark is the mark of the working copy as it is on disk.
func (w *Warehouse) currentMark() (mark, error) {
	fi, err := os.Stat(w.workPath())
	if err != nil {
		return mark{}, err
	}
	return mark{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, nil
}

// asPublished reports whether the working copy on disk, before it is
// opened, is the state last published: its file as marked, and no
// write-ahead log of later commits beside it.
func (w *Warehouse) asPublished() bool {
	last, ok := readMark(filepath.Join(w.dir, workDir, publishedMark))
	if !ok {
		return false
	}
	if fi, err := os.Stat(w.workPath() + ".wal"); err == nil && fi.Size() > 0 {
		return false
	}
	now, err := w.currentMark()
	return err == nil && now == last
}

// Underived counts the landed responses not derived yet: a job that
// stopped between landing responses and deriving them, or a replay that
// stopped midway, left them. Publish refuses while there are any.
func (w *Warehouse) Underived(ctx context.Context) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return 0, errClosed
	}
	return w.underived(ctx)
}

// underived counts the landed responses not derived yet. Every publish
// asks, so it first compares the two tables' counts, which DuckDB keeps
// without a scan; only when they differ does it join them.
func (w *Warehouse) underived(ctx context.Context) (int64, error) {
	var n int64
	err := w.db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM raw_responses) - (SELECT count(*) FROM raw_derived)").Scan(&n)
	if err == nil && n != 0 {
		err = w.db.QueryRowContext(ctx, "SELECT count(*) FROM raw_responses WHERE response_id NOT IN (SELECT response_id FROM raw_derived)").Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("counting the responses not derived: %w", err)
	}
	return n, nil
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
