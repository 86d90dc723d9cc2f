package coord

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

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
// limit, under the lock of the key and product. A reservation whose lease
// ended no longer counts: its holder died, and its credit is free again
// (kept a day, so that a holder slower than the lease still settles it).
// With no period ("": the service reported none), the period is the
// database's UTC day.
func (l *Ledger) Reserve(ctx context.Context, period string, limit int64) (int64, error) {
	for {
		var id, settled int64
		full := false
		err := l.c.exec(ctx, func(ctx context.Context, tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, lockKey, "etalake-credits:"+l.key+":"+l.product); err != nil {
				return err
			}
			var inFlight int64
			// One round trip: the period (the database's day when none
			// was given), what it holds, and the forgotten swept.
			err := tx.QueryRow(ctx, `
				WITH p AS (SELECT coalesce(nullif($3::text, ''), 'day ' || to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD')) AS period),
				forgotten AS (
				    DELETE FROM etalake_credit_reservations
				     WHERE key_id = $1 AND product = $2 AND lease_until < clock_timestamp() - interval '1 day')
				SELECT p.period,
				       coalesce((SELECT spent + uncertain FROM etalake_credit_totals t
				                  WHERE t.key_id = $1 AND t.product = $2 AND t.period = p.period), 0),
				       (SELECT count(*) FROM etalake_credit_reservations r
				         WHERE r.key_id = $1 AND r.product = $2 AND r.period = p.period AND r.lease_until >= clock_timestamp())
				  FROM p`,
				l.key, l.product, period).Scan(&period, &settled, &inFlight)
			if err != nil {
				return err
			}
			if limit != extract.Unlimited && settled+inFlight >= limit {
				full = true
				return nil
			}
			return tx.QueryRow(ctx, `
				INSERT INTO etalake_credit_reservations (key_id, product, period, lease_until)
				VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 microsecond') RETURNING id`,
				l.key, l.product, period, l.c.lease.Microseconds()).Scan(&id)
		})
		switch {
		case err != nil:
			return 0, err
		case !full:
			return id, nil
		case settled >= limit:
			return 0, fmt.Errorf("shared cap %d reached by every process of the key together (%d spent or uncertain in the period): %w",
				limit, settled, extract.ErrBudgetSpent)
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
