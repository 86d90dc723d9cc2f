package coord

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/etalake/etalake/extract"
)

// pollFull is how often a Reserve that finds the cap reached only with
// reservations in flight asks again.
const pollFull = 100 * time.Millisecond

// Ledger is the credits of one key and product in the coordinator: an
// extract.SharedLedger.
type Ledger struct {
	c       *Coordinator
	key     string
	product string
}

// Reserve takes a credit in period when the key's credits spent, uncertain
// and in flight (reservations whose lease has not ended) are fewer than
// limit, under the lock of the key and product. A reservation whose
// holder is dead (its lock gone: killed, or its session ended with the
// database) is counted uncertain at once, as its request may have been
// charged; one whose lease ended no longer counts (kept a day, so that a
// holder slower than the lease still settles it). With no period ("": the
// service reported none), the period is the database's UTC day.
//
// While only credits in flight keep the cap, it waits for them to settle,
// saying so once (Config.Log) with until when their leases run, and gives
// up after Config.Wait with extract.ErrBudgetSpent.
func (l *Ledger) Reserve(ctx context.Context, period string, limit int64) (int64, error) {
	var since time.Time // when it began to wait
	for {
		var st reserveState
		err := l.c.exec(ctx, func(ctx context.Context, tx pgx.Tx) error { return l.try(ctx, tx, period, limit, &st) })
		switch {
		case err != nil:
			return 0, err
		case !st.full:
			return st.id, nil
		case st.settled >= limit:
			return 0, fmt.Errorf("shared cap %d reached by every process of the key together (%d spent or uncertain in the period): %w",
				limit, st.settled, extract.ErrBudgetSpent)
		}
		now := time.Now()
		if since.IsZero() {
			since = now
			if l.c.log != nil && st.others > 0 {
				l.c.log.Warn("coordinator: waiting for credits leased by other workers of the key", "key_id", l.key, "product", l.product,
					"cap", limit, "settled", st.settled, "leased_by_others", st.others, "leases_until", st.until.UTC().Format(time.RFC3339),
					"gives_up_after", l.c.waitText())
			}
		}
		if l.c.wait == NoWait || now.Sub(since) >= l.c.wait {
			return 0, fmt.Errorf("shared cap %d: %d spent or uncertain and %d in flight (%d leased by other workers until %s), none settled after waiting %s (%s): %w",
				limit, st.settled, st.inFlight, st.others, st.until.UTC().Format(time.RFC3339), l.c.waitText(), WaitEnv, extract.ErrBudgetSpent)
		}
		t := time.NewTimer(pollFull)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		}
	}
}

// reserveState is what one try of Reserve found.
type reserveState struct {
	id                int64
	full              bool
	settled, inFlight int64
	others            int64     // of inFlight, other holders'
	until             time.Time // the last lease of those in flight
}

// try is one attempt of Reserve, in tx: the dead holders' reservations
// counted uncertain, the period's credits read, one taken when the cap
// allows.
func (l *Ledger) try(ctx context.Context, tx pgx.Tx, period string, limit int64, st *reserveState) error {
	if _, err := tx.Exec(ctx, lockKey, "etalake-credits:"+l.key+":"+l.product); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, fmt.Sprintf(`
		WITH dead AS (
		    DELETE FROM etalake_credit_reservations r
		     WHERE r.key_id = $1 AND r.product = $2 AND NOT `+holderAlive+`
		     RETURNING r.period)
		INSERT INTO etalake_credit_totals (key_id, product, period, uncertain)
		SELECT $1, $2, period, count(*) FROM dead GROUP BY period
		ON CONFLICT (key_id, product, period) DO UPDATE
		   SET uncertain = etalake_credit_totals.uncertain + excluded.uncertain`, holderLock), l.key, l.product); err != nil {
		return err
	}
	var alive bool
	var until pgtype.Timestamptz
	// One round trip: the period (the database's day when none was
	// given), what it holds, the forgotten swept, and whether this
	// process still holds its lock (lost with its session: its
	// reservations may be counted dead by now).
	err := tx.QueryRow(ctx, fmt.Sprintf(`
		WITH p AS (SELECT coalesce(nullif($3::text, ''), 'day ' || to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD')) AS period),
		forgotten AS (
		    DELETE FROM etalake_credit_reservations
		     WHERE key_id = $1 AND product = $2 AND lease_until < clock_timestamp() - interval '1 day')
		SELECT p.period,
		       coalesce((SELECT spent + uncertain FROM etalake_credit_totals t
		                  WHERE t.key_id = $1 AND t.product = $2 AND t.period = p.period), 0),
		       (SELECT count(*) FROM etalake_credit_reservations r
		         WHERE r.key_id = $1 AND r.product = $2 AND r.period = p.period AND r.lease_until >= clock_timestamp()),
		       (SELECT count(*) FROM etalake_credit_reservations r
		         WHERE r.key_id = $1 AND r.product = $2 AND r.period = p.period AND r.lease_until >= clock_timestamp()
		           AND r.holder IS DISTINCT FROM $4),
		       (SELECT max(lease_until) FROM etalake_credit_reservations r
		         WHERE r.key_id = $1 AND r.product = $2 AND r.period = p.period AND r.lease_until >= clock_timestamp()),
		       EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
		                  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		                  AND l.classid = %d::oid AND l.objid = $4::int4::oid)
		  FROM p`, holderLock),
		l.key, l.product, period, l.c.holder).Scan(&period, &st.settled, &st.inFlight, &st.others, &until, &alive)
	if err != nil {
		return err
	}
	if !alive {
		return errors.New("this process no longer holds its lock as a holder of credits (its session ended)")
	}
	st.until = until.Time
	if limit != extract.Unlimited && st.settled+st.inFlight >= limit {
		st.full = true
		return nil
	}
	return tx.QueryRow(ctx, `
		INSERT INTO etalake_credit_reservations (key_id, product, period, lease_until, holder)
		VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 microsecond', $5) RETURNING id`,
		l.key, l.product, period, l.c.lease.Microseconds(), l.c.holder).Scan(&st.id)
}

// Settle ends reservation id: a charged or possibly charged credit is
// added to its period's totals (even when its lease had ended), a
// released one is only removed.
func (l *Ledger) Settle(ctx context.Context, id int64, how extract.Settlement) error {
	return l.c.exec(ctx, func(ctx context.Context, tx pgx.Tx) error {
		var period string
		err := tx.QueryRow(ctx, `DELETE FROM etalake_credit_reservations WHERE id = $1 RETURNING period`, id).Scan(&period)
		if errors.Is(err, pgx.ErrNoRows) {
			// Forgotten a day after its lease ended: its period is lost
			// with it. Only a holder stuck for a day gets here.
			return nil
		}
		if err != nil || how == extract.SettleRelease {
			return err
		}
		spent, uncertain := 1, 0
		if how == extract.SettleUncertain {
			spent, uncertain = 0, 1
		}
		_, err = tx.Exec(ctx, `
			INSERT INTO etalake_credit_totals (key_id, product, period, spent, uncertain) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (key_id, product, period) DO UPDATE
			   SET spent = etalake_credit_totals.spent + excluded.spent,
			       uncertain = etalake_credit_totals.uncertain + excluded.uncertain`,
			l.key, l.product, period, spent, uncertain)
		return err
	})
}

// waitText is Config.Wait for messages.
func (c *Coordinator) waitText() string {
	if c.wait == NoWait {
		return "0s"
	}
	return c.wait.String()
}
