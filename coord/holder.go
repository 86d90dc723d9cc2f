package coord

import (
	"context"
	"crypto/rand"
	"encoding/binary"

	"github.com/jackc/pgx/v5"
)

// holderLock is the first key of the session advisory locks that say a
// holder of reservations lives: (holderLock, Coordinator.holder).
const holderLock int32 = 0x65746c6b // "etlk"

// hold takes this process's holder lock on a connection of its own, kept
// open until Close: Postgres releases it when the process dies (its
// connection ends) or loses the database (a restart ends every session).
// Reserve then counts the reservations of a holder whose lock is gone as
// uncertain at once — each was taken just before its request left, so it
// may have been charged — instead of holding the cap for their lease.
func (c *Coordinator) hold(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return c.lost(ctx, err)
	}
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		c.holder = int32(binary.BigEndian.Uint32(b[:]) >> 1) // positive: pg_locks shows it as an oid
		var got bool
		op, cancel := context.WithTimeout(ctx, opTimeout)
		err := conn.QueryRow(op, "SELECT pg_try_advisory_lock($1::int4, $2::int4)", holderLock, c.holder).Scan(&got)
		cancel()
		if err != nil {
			_ = conn.Close(context.Background())
			return c.lost(ctx, err)
		}
		if got {
			c.holderConn = conn
			return nil
		}
	}
}

// holderAlive is SQL true when the holder of reservation r holds its lock
// (a reservation of a process before holders, holder NULL, is alive until
// its lease ends).
const holderAlive = `(r.holder IS NULL OR EXISTS (SELECT 1 FROM pg_locks l
	WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
	  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
	  AND l.classid = ` + "%[1]d" + `::oid AND l.objid = r.holder::oid))`

// upgrade adds the holder column to a reservations table created before
// it, under the schema lock; a table that has it is left alone (a user
// that only reads and writes needs no more).
func (c *Coordinator) upgrade(ctx context.Context) error {
	return c.exec(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var has bool
		const q = `SELECT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_name = 'etalake_credit_reservations' AND column_name = 'holder' AND table_schema = current_schema())`
		if err := tx.QueryRow(ctx, q).Scan(&has); err != nil || has {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(schemaLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "ALTER TABLE etalake_credit_reservations ADD COLUMN IF NOT EXISTS holder integer")
		return err
	})
}
