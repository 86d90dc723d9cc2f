package lake

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"os"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	// The storages a warehouse URL may name: s3:// through gocloud's
	// blob (iceberg-go's file:// needs no registration).
	_ "github.com/apache/iceberg-go/io/gocloud/s3"
	// The catalog's database drivers: SQLite in pure Go, Postgres through
	// pgx's database/sql driver.
	_ "github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/etalake/etalake/schema"
)

// Options tune how a Lake commits.
type Options struct {
	// MaxAttempts bounds the tries of one commit that conflicts with
	// other writers' (0: DefaultMaxAttempts).
	MaxAttempts int
	// Backoff is the first wait between two tries, doubled each time up
	// to MaxBackoff, each drawn at random between half and all of it
	// (0: 50 ms and 5 s).
	Backoff, MaxBackoff time.Duration
	// SchemaVersion is the migration version whose columns a table gets
	// when created or evolved (0: the binary's latest).
	SchemaVersion int
	// Sleep waits between tries (nil: a timer, cut short by ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock of the leases of commits in flight (lease.go;
	// nil: time.Now).
	Now func() time.Time
	// BeforeCommit, when set, is called with a table's name after its
	// data files are written and before its commit (tests kill the
	// process there).
	BeforeCommit func(table string)
	// Log says when a commit gives a lake table the warehouse's whole
	// table (identity.go; nil: said nowhere).
	Log *slog.Logger
}

// DefaultMaxAttempts tries a conflicting commit that often: 16 writers
// committing the same table at once all get through.
const DefaultMaxAttempts = 40

// Lake is an open lake: its catalog, ready to commit.
type Lake struct {
	cfg     Config
	opt     Options
	db      *sql.DB
	dialect string // of the catalog's database: sqlite or postgres
	cat     *sqlcat.Catalog
}

// Open opens the lake's catalog (creating its tables and the etalake
// namespace when absent); it writes no table yet.
func Open(ctx context.Context, cfg Config, opt Options) (*Lake, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		return nil, errors.New("lake: no lake configured")
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = DefaultMaxAttempts
	}
	if opt.Backoff <= 0 {
		opt.Backoff = 50 * time.Millisecond
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = 5 * time.Second
	}
	if opt.SchemaVersion <= 0 {
		opt.SchemaVersion = latestVersion()
	}
	if opt.Sleep == nil {
		opt.Sleep = sleep
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	driver, dsn, err := cfg.catalogSource()
	if err != nil {
		return nil, err
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("lake: catalog %s: %w", redact(cfg.Catalog), err)
	}
	if driver == "sqlite" {
		// One connection: SQLite has one writer, and its pure-Go driver
		// queues better on one connection than on a pool's locks.
		db.SetMaxOpenConns(1)
	}
	props := iceberg.Properties{"warehouse": cfg.Warehouse}
	for k, v := range storageProps(cfg.Warehouse) {
		props[k] = v
	}
	l := &Lake{cfg: cfg, opt: opt, db: db, dialect: dialect(driver)}
	err = l.bootstrap(ctx, driver, func() error {
		cat, err := sqlcat.NewCatalog(CatalogName, db, sqlcat.SupportedDialect(dialect(driver)), props)
		if err != nil {
			return fmt.Errorf("lake: catalog %s: %w", redact(cfg.Catalog), err)
		}
		l.cat = cat
		if err := l.ensureLeases(ctx); err != nil {
			return err
		}
		return l.ensureNamespace(ctx)
	})
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return l, nil
}

// bootstrapLock is the Postgres advisory lock under which a process
// creates the catalog's tables and the namespace: "etalakeC" in ASCII,
// not the coordinator's schema lock ("etalake"), so that a catalog and a
// coordinator in one database do not wait on each other.
const bootstrapLock int64 = 0x6574616c616b6543

// bootstrap runs create — the catalog's CREATE TABLE IF NOT EXISTS and
// the namespace — so that a fleet's workers opening a fresh catalog at
// one moment all get through.
//
// Postgres does not make CREATE TABLE IF NOT EXISTS safe against
// itself: two sessions creating one table at once, one fails on
// pg_type's unique index (SQLSTATE 23505; without a lock, 7 of the 8
// workers of TestWorkersOpenAFreshPostgresCatalogAtOnce failed so in
// every round). There create runs under a session-level advisory lock,
// which lasts its few statements; a process that dies holding it loses
// it with its connection.
//
// SQLite serializes writers by itself and waits out their locks (the
// DSN's busy_timeout) — except while a fresh file turns from its
// rollback journal to WAL, when a connection can be refused with
// SQLITE_BUSY at once, the busy handler skipped (rarely, and only when
// several processes open a fresh catalog together: the README's
// Kubernetes recipe and TestFourWritersCommitAtOnce failed so in CI).
// Every step of create is idempotent, so it is tried again after a
// backoff.
func (l *Lake) bootstrap(ctx context.Context, sqlDriver string, create func() error) error {
	if sqlDriver != "pgx" {
		var err error
		for attempt := 0; ; attempt++ {
			if err = create(); err == nil || !sqliteBusy(err) || attempt+1 >= l.opt.MaxAttempts {
				return err
			}
			if err := l.backoff(ctx, attempt); err != nil {
				return err
			}
		}
	}
	where := redact(l.cfg.Catalog)
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("lake: catalog %s: %w", where, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", bootstrapLock); err != nil {
		return fmt.Errorf("lake: catalog %s: waiting for the lock of the catalog's creation: %w", where, err)
	}
	err = create()
	// Unlocked whatever create did, since the connection goes back to the
	// pool; one that cannot unlock is closed instead, which unlocks.
	if _, uerr := conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", bootstrapLock); uerr != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}

// sqliteBusy is SQLite's SQLITE_BUSY (code 5, and its extended codes),
// from modernc's driver.
func sqliteBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// Close closes the catalog's connections.
func (l *Lake) Close() error { return l.db.Close() }

// Config is where the lake is.
func (l *Lake) Config() Config { return l.cfg }

func (l *Lake) ensureNamespace(ctx context.Context) error {
	ns := table.Identifier{Namespace}
	ok, err := l.cat.CheckNamespaceExists(ctx, ns)
	if err != nil {
		return fmt.Errorf("lake: catalog %s: %w", redact(l.cfg.Catalog), err)
	}
	if ok {
		return nil
	}
	err = l.cat.CreateNamespace(ctx, ns, iceberg.Properties{"comment": "etalake's tables: shipping schedules and container ETAs, one column etalake_writer per feeding warehouse"})
	if err != nil && !errors.Is(err, catalog.ErrNamespaceAlreadyExists) {
		return fmt.Errorf("lake: creating namespace %s: %w", Namespace, err)
	}
	return nil
}

// storageProps maps the standard AWS settings to iceberg-go's S3
// properties where the SDK's own chain would not apply them: an endpoint
// (AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL) is addressed by path, as MinIO
// and other S3-compatible stores want. Region and credentials come from
// the SDK's chain (AWS_REGION, AWS_PROFILE, AWS_ACCESS_KEY_ID, roles).
func storageProps(warehouse string) iceberg.Properties {
	u, err := url.Parse(warehouse)
	if err != nil || (u.Scheme != "s3" && u.Scheme != "s3a") {
		return nil
	}
	props := iceberg.Properties{}
	for _, env := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		if v := os.Getenv(env); v != "" {
			props["s3.endpoint"] = v
			break
		}
	}
	if os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") != "" {
		props["s3.region"] = os.Getenv("AWS_DEFAULT_REGION")
	}
	return props
}

// latestVersion is the binary's latest migration version.
func latestVersion() int {
	v := 1
	for _, t := range schema.Tables {
		for _, c := range t.Columns {
			v = max(v, c.Since)
		}
	}
	return v
}

// backoff waits before try attempt+1: exponential, jittered.
func (l *Lake) backoff(ctx context.Context, attempt int) error {
	d := l.opt.Backoff << min(attempt, 16)
	if d > l.opt.MaxBackoff || d <= 0 {
		d = l.opt.MaxBackoff
	}
	d = d/2 + rand.N(d/2+1)
	return l.opt.Sleep(ctx, d)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
