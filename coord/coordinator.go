package coord

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

//go:embed schema.sql
var schema string

// opTimeout bounds each exchange with the database: a coordinator that
// does not answer within it is lost (a grant takes milliseconds).
const opTimeout = 10 * time.Second

// schemaLock is the advisory lock under which the tables are created.
const schemaLock = 0x657461_6c616b65 // "etalake"

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Coordinator is an open connection pool to the coordination database.
// It is safe for concurrent use.
type Coordinator struct {
	pool  *pgxpool.Pool
	lease time.Duration
	wait  time.Duration // Config.Wait: NoWait, or how long
	log   *slog.Logger  // nil: nothing said
	host  string        // for messages: never the URL, which may hold a password
	// holder is this process's id in the reservations it takes, and the
	// second key of the session advisory lock (holderLock, holder) that
	// holds, on a connection of its own, as long as the process lives
	// and reaches the database: a reservation whose holder's lock is gone
	// is a dead process's (holder.go).
	holder     int32
	holderConn *pgx.Conn
}

// Open connects to cfg.URL and creates the tables if they are missing. A
// failure matches ErrSetup (the database does not exist, the user is
// refused: the setting is wrong) or ErrUnreachable, never
// extract.ErrCoordinatorLost: nothing was had to lose.
func Open(ctx context.Context, cfg Config) (*Coordinator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("%s (--%s): %v", URLEnv, URLFlag, err)
	}
	if pc.ConnConfig.ConnectTimeout == 0 {
		pc.ConnConfig.ConnectTimeout = opTimeout
	}
	pc.MaxConns = 4
	c := &Coordinator{lease: cfg.Lease, wait: cfg.Wait, log: cfg.Log, host: pc.ConnConfig.Host}
	if c.lease == 0 {
		c.lease = DefaultLease
	}
	if c.wait == 0 {
		c.wait = DefaultWait
	}
	if c.pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
		return nil, c.unopened(ctx, err)
	}
	op, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if err := pgx.BeginFunc(op, c.pool, func(tx pgx.Tx) error {
		// Created once: CREATE ... IF NOT EXISTS would need the right to
		// create in the schema on every run, which a user that only reads
		// and writes the tables has not.
		var made bool
		if err := tx.QueryRow(op, "SELECT to_regclass('etalake_credit_reservations') IS NOT NULL").Scan(&made); err != nil || made {
			return err
		}
		if _, err := tx.Exec(op, "SELECT pg_advisory_xact_lock($1)", int64(schemaLock)); err != nil {
			return err
		}
		_, err := tx.Exec(op, schema)
		return err
	}); err != nil {
		c.pool.Close()
		return nil, c.unopened(ctx, err)
	}
	if err := c.upgrade(ctx); err != nil {
		c.pool.Close()
		return nil, err
	}
	if err := c.hold(ctx, pc.ConnConfig); err != nil {
		c.pool.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the pool and the holder's connection: the credits this
// process has in flight are then a dead holder's to the others.
func (c *Coordinator) Close() {
	c.pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_ = c.holderConn.Close(ctx)
}

// Window is the rate window of the key whose id is keyID
// (extract.Key.Fingerprint).
func (c *Coordinator) Window(keyID string) (*Window, error) {
	if !keyIDPattern.MatchString(keyID) {
		return nil, errors.New("coordinator: a key id is 1 to 64 letters, digits, '-' or '_' (a key fingerprint)")
	}
	return &Window{c: c, key: keyID}, nil
}

// Ledger is the credit ledger of product p of the key whose id is keyID.
func (c *Coordinator) Ledger(keyID string, p wire.Product) (*Ledger, error) {
	if !keyIDPattern.MatchString(keyID) {
		return nil, errors.New("coordinator: a key id is 1 to 64 letters, digits, '-' or '_' (a key fingerprint)")
	}
	return &Ledger{c: c, key: keyID, product: string(p)}, nil
}

// exec runs f in a transaction, within opTimeout, and commits it. A
// failure is the coordinator lost, unless ctx ended first.
func (c *Coordinator) exec(ctx context.Context, f func(ctx context.Context, tx pgx.Tx) error) error {
	op, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	err := pgx.BeginFunc(op, c.pool, func(tx pgx.Tx) error { return f(op, tx) })
	if err != nil {
		return c.lost(ctx, err)
	}
	return nil
}

// lost words a failure to reach the database as extract.ErrCoordinatorLost;
// when ctx ended it is ctx's error: the caller gave up, nothing was lost.
func (c *Coordinator) lost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("coordinator at %s: %v: %w", c.host, err, extract.ErrCoordinatorLost)
}

// lockKey is the advisory lock of one key's window or ledger: a 64-bit
// hash of its name, computed by the database (hashtextextended).
const lockKey = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
