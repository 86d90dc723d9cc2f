// Package coord shares an API key's rate window and credit cap between the
// processes of every machine that use the key, through Postgres: the
// extract.SharedWindow and extract.SharedLedger a Limiter and a Budget ask
// when --coordination is set.
//
// Every grant is decided under a transaction-scoped advisory lock of the
// key, by the database's clock (clock_timestamp(), read under the lock),
// so machines' clocks do not matter and grants are stamped in lock order;
// a grant is then moved to when its request left (extract.Slot.Sent), by
// the time the process measured between the two.
// Credits are counted per key id, product and service period: totals of
// those spent and uncertain, and a row per reservation in flight, taken
// just before its request leaves. Each process holds a session advisory
// lock while it lives: the reservations of a holder whose lock is gone
// (killed, or cut off by a database restart) are counted uncertain by the
// next Reserve of the key, and those of a live holder that never settles
// them (hung) expire after a lease. Only the key id (extract.Key.Fingerprint)
// reaches the database, never the key.
//
// It does not speak HTTP, and knows nothing of jobs: a failure to reach
// the database once opened is returned as extract.ErrCoordinatorLost, and
// what to do then (stop asking) is the caller's; Open's own failures are
// ErrSetup (the setting is wrong) or ErrUnreachable.
package coord
