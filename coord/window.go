package coord

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Window is one key's rate window in the coordinator: an
// extract.SharedWindow.
type Window struct {
	c   *Coordinator
	key string
}

// Admit grants a request when fewer than n grants of the key are younger
// than life and no pause is on, stamping it with the database's clock read
// under the key's lock; else it says how long until the oldest grant that
// fills the window expires, or the pause ends. Grants older than life are
// removed as it goes: processes of one key must use one rate.
func (w *Window) Admit(ctx context.Context, n int, life time.Duration) (time.Duration, int64, error) {
	var wait time.Duration
	var grant int64
	err := w.c.exec(ctx, func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockKey, "etalake-rate:"+w.key); err != nil {
			return err
		}
		var now time.Time
		var kth, pause pgtype.Timestamptz
		err := tx.QueryRow(ctx, `
			SELECT t,
			       (SELECT granted_at FROM etalake_rate_grants
			         WHERE key_id = $1 AND granted_at > t - $3 * interval '1 microsecond'
			         ORDER BY granted_at DESC OFFSET $2 - 1 LIMIT 1),
			       (SELECT until FROM etalake_rate_pauses WHERE key_id = $1)
			  FROM (SELECT clock_timestamp() AS t) AS now`,
			w.key, n, life.Microseconds()).Scan(&now, &kth, &pause)
		if err != nil {
			return err
		}
		wake := now
		if kth.Valid {
			wake = kth.Time.Add(life)
		}
		if pause.Valid && pause.Time.After(wake) {
			wake = pause.Time
		}
		if wake.After(now) {
			wait = wake.Sub(now)
			return nil
		}
		wait = 0
		return tx.QueryRow(ctx, `
			WITH gone AS (DELETE FROM etalake_rate_grants WHERE key_id = $1 AND granted_at <= $2::timestamptz - $3 * interval '1 microsecond')
			INSERT INTO etalake_rate_grants (key_id, granted_at) VALUES ($1, $2) RETURNING id`,
			w.key, now, life.Microseconds()).Scan(&grant)
	})
	return wait, grant, err
}

// Sent moves grant later by late, never past the database's now: the
// request left that long after its grant, and the server counts it from
// its arrival. A grant already removed (its window long over) stays so.
func (w *Window) Sent(ctx context.Context, grant int64, late time.Duration) error {
	return w.c.exec(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			UPDATE etalake_rate_grants SET granted_at = least(granted_at + $2 * interval '1 microsecond', clock_timestamp())
			 WHERE id = $1`, grant, late.Microseconds())
		return err
	})
}

// Pause stops the key's grants for d from the database's now; a pause
// already on that ends later stays.
func (w *Window) Pause(ctx context.Context, d time.Duration) error {
	return w.c.exec(ctx, func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO etalake_rate_pauses (key_id, until) VALUES ($1, clock_timestamp() + $2 * interval '1 microsecond')
			ON CONFLICT (key_id) DO UPDATE SET until = greatest(etalake_rate_pauses.until, excluded.until)`,
			w.key, d.Microseconds())
		return err
	})
}
