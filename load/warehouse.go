package load

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/internal/setting"
)

// Files of a warehouse directory. Readers open the published database
// dbName; the writer works in its own copy under workDir and publishes it
// over dbName when a job ends (publish.go), so that a reader never waits
// for a job nor a job for a reader. The landing journal of a job in flight
// is under workDir too (journal.go).
const (
	dbName     = "etalake.duckdb"
	parquetDir = "parquet"
	workDir    = ".work"
)

// DefaultMemoryLimit is DuckDB's memory_limit when Options leave it zero.
// Past it DuckDB spills sorts, joins and large merges to
// <dir>/.work/etalake.duckdb.tmp (a reader's to <dir>/etalake.duckdb.tmp)
// instead of failing; the process's peak RSS is
// this limit plus what DuckDB and Go allocate outside it (BENCHMARKS.md).
const DefaultMemoryLimit = 1 << 30

// DefaultThreads is a writer's DuckDB threads when not told: one. A job's
// statements are many and small (a batch's merge, a partition's export),
// where DuckDB's second thread costs more CPU than it saves time: the
// demo, a replay and an import of 51 000 answers were as fast or faster
// with one thread than with two, on 5–20 % less CPU (BENCHMARKS.md,
// "Writer threads"). Readers take every core.
const DefaultThreads = 1

// Options tunes a Warehouse. The zero value is usable.
type Options struct {
	// MemoryLimit is DuckDB's memory_limit in bytes; 0 means
	// DefaultMemoryLimit.
	MemoryLimit int64
	// Threads is DuckDB's threads; 0 means DefaultThreads.
	Threads int
	// Now is the clock of the lock file's "since" and of applied_at in
	// schema_migrations; nil means time.Now.
	Now func() time.Time
	// LockTimeout is how long Open waits for another writer to finish
	// before it returns a *BusyError; 0 means not at all.
	LockTimeout time.Duration
	// Waiting, when set, is told once who holds the warehouse when Open
	// starts to wait for it.
	Waiting func(*BusyError)
	// Lake, when set, is committed to at the end of every Publish: the
	// partitions the publish wrote to the mirror (lake.go).
	Lake Lake
	// Pull opens the warehouse for a pull of the lake (pull.go): Open
	// refuses a warehouse that exists and is not a pull's, lands no
	// journal, and publishes nothing before the pull's own Publish, nor
	// does Close. Without it, Open refuses a pull's warehouse.
	Pull bool
	// SegmentFlush is how many body bytes Land lets the database hold
	// before it moves them to a body segment (segments.go); 0 means
	// DefaultSegmentFlush.
	SegmentFlush int64
	// Fresh opens the warehouse anew (fresh.go): Open drops what the
	// directory's writer held — its working copy, journal and body
	// store — while readers keep the version published, until the first
	// Publish makes the new working copy alone the next version.
	Fresh bool
}

// DefaultOptions are the options the zero Options stand for.
func DefaultOptions() Options {
	return Options{MemoryLimit: DefaultMemoryLimit, Threads: DefaultThreads, Now: time.Now}
}

// Bounds of the options an operator sets (Validate). MinMemoryLimit: a
// load's batch holds up to 40 MiB of rows, and below 64 MiB DuckDB would
// refuse most of them for want of memory, leaving every load to be
// isolated a response at a time. MaxLockTimeout: a writer stuck for a day
// is not one to wait for.
const (
	MinMemoryLimit = 64 << 20
	MaxLockTimeout = 24 * time.Hour
	MaxThreads     = 256 // far past any machine etalake is sized for
)

// Validate says the first rule o breaks, as a *setting.Error naming the
// field, or nil: what an operator may set (MemoryLimit at least
// MinMemoryLimit, LockTimeout 0 to MaxLockTimeout, Threads 1 to MaxThreads). It
// checks o as given; Open fills the zero members first and refuses only
// what cannot work at all (hardMinMemoryLimit), so that a test can hold
// DuckDB to less.
func (o Options) Validate() error {
	return setting.First(
		memoryLimit(o.MemoryLimit, MinMemoryLimit, "the least a load's batch fits in"),
		setting.Int("Threads", o.Threads, 1, MaxThreads),
		setting.Duration("LockTimeout", o.LockTimeout, 0, MaxLockTimeout, "0 (do not wait) to 24h, such as 10m"),
	)
}

func memoryLimit(n, least int64, why string) error {
	if n < least {
		return setting.Refuse("MemoryLimit", bytesize.Format(n), fmt.Sprintf("at least %s, %s", bytesize.Format(least), why))
	}
	return nil
}

func (o Options) withDefaults() (Options, error) {
	d := DefaultOptions()
	if o.MemoryLimit == 0 {
		o.MemoryLimit = d.MemoryLimit
	}
	if o.Threads == 0 {
		o.Threads = d.Threads
	}
	if o.Now == nil {
		o.Now = d.Now
	}
	if o.SegmentFlush <= 0 {
		o.SegmentFlush = DefaultSegmentFlush
	}
	return o, setting.First(
		memoryLimit(o.MemoryLimit, hardMinMemoryLimit, "below which DuckDB cannot run a merge at all"),
		setting.Int("Threads", o.Threads, 1, math.MaxInt),
		setting.Duration("LockTimeout", o.LockTimeout, 0, math.MaxInt64, "0 or more"),
	)
}

// hardMinMemoryLimit is the least memory limit Open accepts: below it
// DuckDB cannot run a merge at all, and a warehouse that fails every load
// is no use.
const hardMinMemoryLimit = 16 << 20

// Warehouse is a warehouse directory opened for writing: its working
// DuckDB database <dir>/.work/etalake.duckdb, published to
// <dir>/etalake.duckdb for readers, and the Parquet mirror <dir>/parquet/.
// It holds the warehouse's single-writer lock until Close. Its methods are
// safe for concurrent use; the writing ones (Land, Load, SyncParquet,
// Reset, DeleteByResponse, Publish) run one at a time.
type Warehouse struct {
	dir  string
	db   *sql.DB
	lock *lock
	opt  Options

	mu  sync.Mutex // one write at a time, and Close
	enc *zstd.Encoder
	dec *zstd.Decoder
	// opened is set when Open succeeded: only then does Close publish.
	opened bool
	// published is set once the writer called Publish: its end is its
	// own, and Close publishes nothing more (see Close).
	published bool
	// stale says the tables the analytic tables are built from changed
	// since they were last rebuilt (RefreshAnalytics): Publish rebuilds
	// them first. Guarded by mu.
	stale bool
	// unexported says the analytic tables were rebuilt since a published
	// version last took them: the next Publish writes them, though it
	// rebuilds nothing itself (RefreshAnalytics before it). Guarded by mu.
	unexported bool
	// lakeKeysReady: lakeKeysDDL ran in this process (lakeAttached).
	lakeKeysReady bool
	recovered     Recovery
	// unsegmented is about how many body bytes were landed since the
	// last body segment (by this process): Land writes a segment past
	// segmentFlush. Guarded by mu.
	unsegmented int64
	// lastRun is the run last saved (SaveRun): the job whose end a
	// Publish carries, named in its lake commits. Guarded by mu.
	lastRun string
	// scratch, when set, is a temporary directory Close removes (a dry
	// run's migrated copy, see OpenPlanning).
	scratch string
	// fresh: the working copy was started anew (Options.Fresh) and not
	// published since, so a version links nothing from the one before
	// (fresh.go). Guarded by mu.
	fresh bool
}

// Open opens the warehouse in dir, creating it if needed. It takes the
// single-writer lock — waiting up to Options.LockTimeout for another
// writer, in this process or another, then returning a *BusyError naming
// it — and applies the pending migrations of package schema (refusing a
// warehouse whose recorded migrations differ from the embedded ones, see
// ErrMigration). It lands what the journal of a job that died kept
// (journal.go), sweeps the temp files a crash left under parquet/, and
// publishes a warehouse that has never been published, so that readers
// find one from the first job on. What a job that died left unpublished —
// partitions of the mirror still pending, analytic tables older than
// their tables — the next Publish writes and rebuilds.
//
// A warehouse of an earlier version, written in place in etalake.duckdb,
// is taken over: that file becomes the working copy's start. Another
// tool's etalake.duckdb, or a file that is no DuckDB database, is refused
// with an error matching ErrNotWarehouse before anything is created.
func Open(ctx context.Context, dir string, opt Options) (*Warehouse, error) {
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
	for _, d := range []string{filepath.Join(dir, workDir, journalDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("load: create warehouse: %w", err)
		}
	}
	lk, err := lockWriter(ctx, dir, opt.Now(), opt.LockTimeout, opt.Waiting)
	if err != nil {
		return nil, err
	}
	w := &Warehouse{dir: dir, lock: lk, opt: opt}
	if err := w.open(ctx); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	w.opened = true
	return w, nil
}

// open does the part of Open after the lock.
func (w *Warehouse) open(ctx context.Context) error {
	if err := w.renew(); err != nil {
		return fmt.Errorf("load: opening %s anew: %w", w.dir, err)
	}
	if err := w.adopt(); err != nil {
		return fmt.Errorf("load: taking over %s: %w", filepath.Join(w.dir, dbName), err)
	}
	// A working copy that is not the one last published was written
	// after that publish — by a job that died or whose publish failed —
	// and its analytic tables may lag its tables; so may those of one a
	// failed job's SyncParquet published (mark.Stale).
	last, marked := w.lastMark()
	w.stale = !marked || last.Stale
	_, err := os.Stat(w.workPath())
	existed := err == nil
	c, err := connector(w.workPath(), w.opt, false)
	if err != nil {
		return fmt.Errorf("load: open %s: %w", w.dir, err)
	}
	w.db = sql.OpenDB(c)
	if err := w.checkPull(ctx, existed); err != nil {
		return err
	}
	if w.enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1)); err != nil {
		return err
	}
	if w.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)); err != nil {
		return err
	}
	applied, err := migrate(ctx, w.db, w.opt.Now)
	if err != nil {
		return err
	}
	w.stale = w.stale || applied > 0
	if err := applyViews(ctx, w.db, w.opt.Now); err != nil {
		return err
	}
	// The temp files a crash left: of the mirror of the layout before
	// versions, of a version half built, of the body store and segments.
	if err := sweepTemp(filepath.Join(w.dir, parquetDir)); err != nil {
		return err
	}
	if err := w.sweepStages(); err != nil {
		return err
	}
	if err := sweepBodies(w.dir); err != nil {
		return err
	}
	if err := w.sweepSegments(ctx); err != nil {
		return err
	}
	if w.opt.Pull { // a pull lands nothing, and publishes only itself whole
		return nil
	}
	if err := w.drainJournals(ctx); err != nil {
		return err
	}
	if _, err := os.Stat(w.publishedPath()); errors.Is(err, fs.ErrNotExist) {
		w.mu.Lock()
		defer w.mu.Unlock()
		_, err = w.publish(ctx)
		return err
	}
	return nil
}

// workPath is the writer's own database; publishedPath the one readers
// open.
func (w *Warehouse) workPath() string      { return filepath.Join(w.dir, workDir, dbName) }
func (w *Warehouse) publishedPath() string { return filepath.Join(w.dir, dbName) }

// connector opens the DuckDB database at path with the options' memory
// limit and threads. Every connection it makes runs in UTC, so that dates
// and timestamps print and truncate the same on every machine.
func connector(path string, opt Options, readOnly bool) (*duckdb.Connector, error) {
	q := url.Values{}
	q.Set("memory_limit", fmt.Sprintf("%dKiB", max(opt.MemoryLimit>>10, 1)))
	q.Set("threads", strconv.Itoa(opt.Threads))
	if readOnly {
		q.Set("access_mode", "READ_ONLY")
	}
	return duckdb.NewConnector(path+"?"+q.Encode(), func(ex driver.ExecerContext) error {
		_, err := ex.ExecContext(context.Background(), "SET TimeZone = 'UTC'", nil)
		return err
	})
}

// Close publishes what changed since the last publish, as Publish does
// but for its first step — unless the writer called Publish itself, or
// the warehouse is a pull's (Options.Pull: one that failed is not
// published half) — closes the database and releases the lock. It is safe to call more than
// once; only the first call publishes.
//
// A writer that publishes its end itself owns it: what it writes after
// (the ledger row of a job whose publish failed, or that Publish refused)
// waits in the working copy for the next writer's publish, instead of
// Close trying again and publishing a row that says the publish failed.
func (w *Warehouse) Close() error {
	var err error
	if w.opened {
		w.opened = false
		w.mu.Lock()
		if !w.published && !w.opt.Pull {
			_, err = w.publish(context.Background())
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db != nil {
		// DuckDB checkpoints when it closes: the log's commits go into
		// the file, and a state published before is still the one
		// published, marked anew.
		last, published := w.lastMark()
		published = published && w.lock != nil // a writer's, not a dry run's
		err = errors.Join(err, w.db.Close())
		w.db = nil
		if published && err == nil {
			w.saveMark(last)
		}
	}
	if w.enc != nil {
		err = errors.Join(err, w.enc.Close())
		w.enc = nil
	}
	if w.dec != nil {
		w.dec.Close()
		w.dec = nil
	}
	if w.lock != nil {
		err = errors.Join(err, w.lock.release())
		w.lock = nil
	}
	if w.scratch != "" {
		err = errors.Join(err, os.RemoveAll(w.scratch))
		w.scratch = ""
	}
	return err
}

// DB is the warehouse's database, for reading it directly (tests, tools).
// Every write goes through the Warehouse's methods.
func (w *Warehouse) DB() *sql.DB { return w.db }

// Dir is the warehouse directory, made absolute.
func (w *Warehouse) Dir() string { return w.dir }
