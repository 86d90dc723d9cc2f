package load

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/klauspost/compress/zstd"
)

// Files of a warehouse directory.
const (
	dbName     = "etalake.duckdb"
	parquetDir = "parquet"
)

// DefaultMemoryLimit is DuckDB's memory_limit when Options leave it zero.
// Past it DuckDB spills sorts, joins and large merges to
// <dir>/etalake.duckdb.tmp instead of failing; the process's peak RSS is
// this limit plus what DuckDB and Go allocate outside it (BENCHMARKS.md).
const DefaultMemoryLimit = 1 << 30

// Options tunes a Warehouse. The zero value is usable.
type Options struct {
	// MemoryLimit is DuckDB's memory_limit in bytes; 0 means
	// DefaultMemoryLimit.
	MemoryLimit int64
	// Threads is DuckDB's threads; 0 means 2.
	Threads int
	// Now is the clock of the lock file's "since" and of applied_at in
	// schema_migrations; nil means time.Now.
	Now func() time.Time
}

// DefaultOptions are the options the zero Options stand for.
func DefaultOptions() Options {
	return Options{MemoryLimit: DefaultMemoryLimit, Threads: 2, Now: time.Now}
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
	if o.Threads < 0 {
		return o, fmt.Errorf("load: threads %d: want at least 1", o.Threads)
	}
	if o.MemoryLimit < minMemoryLimit {
		return o, fmt.Errorf("load: memory limit of %d bytes: want at least %d MiB", o.MemoryLimit, minMemoryLimit>>20)
	}
	return o, nil
}

// minMemoryLimit is the least memory limit Open accepts: below it DuckDB
// cannot run a merge at all, and a warehouse that fails every load is no
// use.
const minMemoryLimit = 16 << 20

// Warehouse is a warehouse directory opened for writing: the DuckDB file
// <dir>/etalake.duckdb and the Parquet mirror <dir>/parquet/. It holds the
// warehouse's single-writer lock until Close. Its methods are safe for
// concurrent use; the writing ones (Land, Load, SyncParquet, Reset,
// DeleteByResponse) run one at a time.
type Warehouse struct {
	dir  string
	db   *sql.DB
	lock *lock
	opt  Options

	mu  sync.Mutex // one write at a time, and Close
	enc *zstd.Encoder
	dec *zstd.Decoder
}

// Open opens the warehouse in dir, creating it if needed. It takes the
// single-writer lock (a second writer, in this process or another, gets a
// *BusyError naming the holder), applies the pending migrations of package
// schema (refusing a warehouse whose recorded migrations differ from the
// embedded ones, see ErrMigration), and sweeps the temp files a crash left
// under parquet/. Partitions of the mirror still pending from before a
// crash are written by the next SyncParquet.
func Open(ctx context.Context, dir string, opt Options) (*Warehouse, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, parquetDir), 0o755); err != nil {
		return nil, fmt.Errorf("load: create warehouse: %w", err)
	}
	lk, err := lockWriter(dir, opt.Now())
	if err != nil {
		return nil, err
	}
	w := &Warehouse{dir: dir, lock: lk, opt: opt}
	if err := w.open(ctx); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	return w, nil
}

// open does the part of Open after the lock.
func (w *Warehouse) open(ctx context.Context) error {
	c, err := connector(filepath.Join(w.dir, dbName), w.opt, false)
	if err != nil {
		return fmt.Errorf("load: open %s: %w", w.dir, err)
	}
	w.db = sql.OpenDB(c)
	if w.enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1)); err != nil {
		return err
	}
	if w.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)); err != nil {
		return err
	}
	if err := migrate(ctx, w.db, w.opt.Now); err != nil {
		return err
	}
	if err := applyViews(ctx, w.db, w.opt.Now); err != nil {
		return err
	}
	return sweepTemp(filepath.Join(w.dir, parquetDir))
}

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

// Remove deletes the warehouse in dir — its DuckDB file, the file's
// write-ahead log and the Parquet mirror — and leaves anything else in dir
// alone. It takes the writer lock for the time it takes, so that it never
// removes a warehouse another process is writing.
func Remove(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	lk, err := lockWriter(dir, time.Now())
	if err != nil {
		return err
	}
	for _, name := range []string{dbName, dbName + ".wal", parquetDir} {
		if rerr := os.RemoveAll(filepath.Join(dir, name)); rerr != nil {
			return errors.Join(rerr, lk.release())
		}
	}
	return lk.release()
}

// Close closes the database and releases the lock. It is safe to call more
// than once.
func (w *Warehouse) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var err error
	if w.db != nil {
		err = w.db.Close()
		w.db = nil
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
	return err
}

// DB is the warehouse's database, for reading it directly (tests, tools).
// Every write goes through the Warehouse's methods.
func (w *Warehouse) DB() *sql.DB { return w.db }

// Dir is the warehouse directory, made absolute.
func (w *Warehouse) Dir() string { return w.dir }
