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

	"github.com/etalake/etalake/schema"
)

// publishedMark is the record of what the working copy was when it was
// last published.
const publishedMark = "published.json"

// PublishStats is what a Publish did.
type PublishStats struct {
	// Published is false when nothing changed since the last publish.
	Published bool
	// Version is the version published (version.go), or the one readers
	// kept when nothing changed.
	Version int64
	Took    time.Duration // by Options.Now, the whole Publish
	// Refreshed says the analytic tables were rebuilt first, in
	// RefreshTook.
	Refreshed   bool
	RefreshTook time.Duration
	// Mirror is what the version's mirror took: partitions written,
	// files linked from the version before, body segments; in MirrorTook.
	Mirror     SyncStats
	MirrorTook time.Duration
	// AnalyticsTook is the part of MirrorTook that wrote (or linked) the
	// analytic tables' files.
	AnalyticsTook time.Duration
	// SwapTook is the readers' database of the version, its swap in and
	// the removal of the versions no reader needs (Swept).
	SwapTook time.Duration
	Swept    int
	// Lake is what the commit to the lake did (Options.Lake), after the
	// version was published.
	Lake LakeStats
}

// mark is the record of the working copy as last published: the state
// of its files, and what that publish left for the next one.
type mark struct {
	fileState
	// Pending says the publish was of some tables only (a SyncParquet
	// of etl_runs, by a job whose publish failed): the other tables'
	// partitions may wait, so only another such sync takes the working
	// copy for published.
	Pending bool `json:"pending,omitempty"`
	// Stale says the analytic tables readers got lagged the tables (a
	// SyncParquet links them as last published): the next writer
	// rebuilds and publishes them.
	Stale bool `json:"stale,omitempty"`
}

// fileState identifies a state of the working copy: DuckDB rewrites the
// file only when a checkpoint has changes to write, so its size and
// modification time after a checkpoint change exactly when its content
// does.
type fileState struct {
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime_ns"`
	// The write-ahead log beside it: DuckDB writes a commit there first,
	// and into the file at a checkpoint (then empties the log).
	WALSize    int64 `json:"wal_size"`
	WALModTime int64 `json:"wal_mtime_ns"`
}

// Publish makes what the warehouse holds now what readers see, every
// table, the analytic tables and the Parquet mirror as of the same moment,
// as a new version (version.go). In order:
//
//  1. It refuses (ErrUnderived) while landed responses wait to be
//     derived: their rows would be missing beside their raw landing (a
//     replay that stopped midway). Nothing is published.
//  2. It rebuilds the analytic tables when the tables they are built
//     from changed since they were last rebuilt (RefreshAnalytics).
//  3. It writes the responses landed since the last publish to a new body
//     segment (segments.go).
//  4. It builds the new version beside the current one: the pending
//     partitions of the mirror written from the tables, every other file
//     linked from the current version, the segments linked, the analytic
//     tables written (or linked when unchanged), and the readers'
//     database of views over them (readers.go).
//  5. It makes the new version current, in one rename, and removes the
//     versions no reader holds (but the one before).
//  6. With Options.Lake, it commits the partitions the mirror wrote to
//     the lake (lake.go), etl_runs last; a failure there is ErrLake.
//
// A failure at any step before 5 publishes nothing: readers keep the
// version before, and the working copy keeps everything for the next
// Publish. A reader that opened a version keeps it (its files stay while
// it holds the database open); the next one to open the warehouse gets
// the new one: never half a job. It publishes nothing when the working
// copy has not changed since it was last published. The cost is the
// partitions the job changed, its responses' segment, the analytic
// tables when their tables changed, and a database of views — not a
// copy of the warehouse (BENCHMARKS.md).
//
// Once a writer has called Publish, Close publishes nothing more: see
// Close.
func (w *Warehouse) Publish(ctx context.Context) (PublishStats, error) {
	st, err := w.publishDerived(ctx)
	if err != nil {
		return st, err
	}
	// 6. The lake, last: a failure there leaves readers of the database
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
	return w.publishVersion(ctx, nil, true)
}

// publishVersion publishes a new version holding the pending partitions
// of the tables in only (all when nil) and, with analytics, the analytic
// tables rebuilt when stale. The caller holds w.mu.
func (w *Warehouse) publishVersion(ctx context.Context, only []*schema.Table, analytics bool) (PublishStats, error) {
	var st PublishStats
	if w.db == nil {
		return st, errClosed
	}
	start := w.opt.Now()
	if analytics && w.stale {
		t := w.opt.Now()
		if err := w.refresh(ctx, false); err != nil {
			return st, fmt.Errorf("load: not publishing %s: %w", w.publishedPath(), err)
		}
		st.Refreshed, st.RefreshTook = true, w.opt.Now().Sub(t)
	}
	cur, ok, err := w.current()
	if err != nil {
		return st, fmt.Errorf("load: publishing: %w", err)
	}
	if ok && only == nil && !st.Refreshed && !(analytics && w.unexported) && w.asPublished(analytics) {
		st.Version, st.Took = cur.n, w.opt.Now().Sub(start)
		return st, nil
	}
	v, err := w.buildVersion(ctx, cur, ok, only, analytics, &st)
	if err != nil {
		// The analytic tables rebuilt for this version did not reach
		// readers: the next publish rebuilds and writes them.
		w.stale = w.stale || st.Refreshed
		return st, fmt.Errorf("load: not publishing %s: %w", w.publishedPath(), err)
	}
	st.Published, st.Version = true, v.n
	// The version is published: a failure from here on only leaves
	// bookkeeping for the next publish, which finds the partitions still
	// pending and writes them again, or versions to remove.
	if st.Swept, err = w.sweepVersions(v); err != nil {
		return st, fmt.Errorf("load: published %s, but removing the versions no reader needs failed: %w", versionName(v.n), err)
	}
	w.saveMark(mark{Pending: only != nil && !w.fresh, Stale: w.stale || w.unexported})
	st.SwapTook = w.opt.Now().Sub(start) - st.RefreshTook - st.MirrorTook
	st.Took = w.opt.Now().Sub(start)
	return st, nil
}

// buildVersion builds the next version after cur (none when !ok) and
// makes it current: steps 3 to 5 of Publish.
func (w *Warehouse) buildVersion(ctx context.Context, cur version, ok bool, only []*schema.Table, analytics bool, st *PublishStats) (version, error) {
	t := w.opt.Now()
	if w.fresh {
		// A fresh working copy's version is every table of it: nothing
		// of the version before may be linked in its place.
		only = nil
	}
	if err := w.notePending(ctx); err != nil {
		return version{}, err
	}
	if only == nil { // a publish of some tables (SyncParquet) shows none of the responses
		if err := w.writeSegment(ctx, &st.Mirror); err != nil {
			return version{}, err
		}
	}
	days, err := w.pendingDays(ctx, only)
	if err != nil {
		return version{}, err
	}
	next, src := int64(1), filepath.Join(w.dir, parquetDir) // the mirror of the layout before versions
	if ok {
		next, src = cur.n+1, filepath.Join(cur.dir, parquetDir)
	}
	linked := w.linkable(ok)
	if w.fresh {
		src = "" // nothing to link
	}
	stage := w.stageDir(next)
	// Every version has its mirror's directory, empty or not: readers
	// glob under parquet/.
	if err := os.MkdirAll(filepath.Join(stage, parquetDir), 0o755); err != nil {
		return version{}, err
	}
	committed := false
	defer func() {
		if !committed {
			_ = os.RemoveAll(stage)
		}
	}()
	if err := w.writeMirror(ctx, src, stage, days, &st.Mirror); err != nil {
		return version{}, fmt.Errorf("writing the Parquet mirror: %w", err)
	}
	if err := w.stageSegments(ctx, cur, linked, only, stage, &st.Mirror); err != nil {
		return version{}, err
	}
	at := w.opt.Now()
	exported, err := w.stageAnalytics(ctx, cur, linked, stage, analytics, st)
	if err != nil {
		return version{}, err
	}
	st.AnalyticsTook = w.opt.Now().Sub(at)
	st.MirrorTook = w.opt.Now().Sub(t)
	v, err := w.commitVersion(ctx, stage, next)
	if err != nil {
		return version{}, err
	}
	committed = true
	if err := w.publishedFresh(); err != nil {
		return v, fmt.Errorf("published %s, but noting it failed (the next publish writes every partition again): %w", versionName(v.n), err)
	}
	if err := w.forgetPending(ctx, days); err != nil {
		return v, fmt.Errorf("published %s, but forgetting its partitions failed (the next publish writes them again): %w", versionName(v.n), err)
	}
	if exported {
		w.unexported = false
		if err := w.forgetMonthsChanged(ctx); err != nil {
			return v, fmt.Errorf("published %s, but forgetting the months of its analytic tables failed (the next publish writes them again): %w", versionName(v.n), err)
		}
	}
	return v, nil
}

// stageAnalytics puts the analytic tables in the staged version: written
// when they were rebuilt for it, or before it by RefreshAnalytics in a
// publish of them (analytics: not SyncParquet's, which shows readers the
// tables as last published, and their analytic tables with them), or
// when the version before has none — but for the months of a monthly
// table that did not change; else linked. It says whether it wrote them.
func (w *Warehouse) stageAnalytics(ctx context.Context, cur version, ok bool, stage string, analytics bool, st *PublishStats) (bool, error) {
	src := ""
	if ok {
		src = filepath.Join(cur.dir, analyticsDir)
	}
	if _, err := os.Stat(src); st.Refreshed || (analytics && w.unexported) || err != nil {
		if err != nil {
			src = ""
		}
		n, err := w.exportAnalytics(ctx, stage, src)
		st.Mirror.Linked += n
		return true, err
	}
	n, err := linkTree(src, filepath.Join(stage, analyticsDir), nil)
	st.Mirror.Linked += n
	return false, err
}

// saveMark records the working copy as published, with what the
// publish left (m's flags). A mark that cannot be written only costs the
// next Publish a version, so it is not this one's failure; the old mark
// goes, lest it match a later state.
func (w *Warehouse) saveMark(m mark) {
	path := filepath.Join(w.dir, workDir, publishedMark)
	now, err := w.currentState()
	if err == nil {
		m.fileState = now
		data, _ := json.Marshal(m)
		err = writeSynced(path, data)
	}
	if err != nil {
		_ = os.Remove(path)
	}
}

// currentState is the state of the working copy's files on disk.
func (w *Warehouse) currentState() (fileState, error) {
	fi, err := os.Stat(w.workPath())
	if err != nil {
		return fileState{}, err
	}
	m := fileState{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	if wal, err := os.Stat(w.workPath() + ".wal"); err == nil {
		m.WALSize, m.WALModTime = wal.Size(), wal.ModTime().UnixNano()
	}
	return m, nil
}

// lastMark is the mark of the last publish, when the working copy on
// disk is still the state it marked (its file and write-ahead log).
func (w *Warehouse) lastMark() (mark, bool) {
	last, ok := readMark(filepath.Join(w.dir, workDir, publishedMark))
	if !ok {
		return mark{}, false
	}
	now, err := w.currentState()
	return last, err == nil && now == last.fileState
}

// asPublished reports whether readers have the working copy as it is,
// for a publish of every table (a SyncParquet's, without analytics) or
// of the analytic tables as well: a sync of some tables leaves the
// others' partitions to publish, and one that left the analytic tables
// behind leaves them to a full publish.
func (w *Warehouse) asPublished(analytics bool) bool {
	m, ok := w.lastMark()
	return ok && !m.Pending && !(analytics && m.Stale)
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

// adopt starts the working copy of a warehouse that has none: from the
// published database of an earlier version that wrote it in place (with
// its write-ahead log, which DuckDB replays when it opens the copy), or
// not at all for a new warehouse. The copy is written under another name
// and renamed, so that a crash leaves no half copy to be taken for one.
func (w *Warehouse) adopt() error {
	if w.fresh {
		return nil // the working copy starts empty, whatever readers see
	}
	if _, err := os.Stat(w.workPath()); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if fi, err := os.Lstat(w.publishedPath()); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A published version is views over the mirror, not a
		// warehouse to take over.
		return fmt.Errorf("the writer's database %s is missing, and %s only holds views for readers: restore %s from a backup, or replay the warehouse's body segments into a new one",
			w.workPath(), w.publishedPath(), filepath.Join(workDir, dbName))
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
