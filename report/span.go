package report

import (
	"context"
	"database/sql"
)

// readSpan reads the first and last observation. Arrived and Calls are
// set by readAccuracy and readSchedule from their views.
func readSpan(ctx context.Context, db *sql.DB, r *Report) error {
	var first, last sql.NullTime
	err := db.QueryRowContext(ctx, `
		SELECT min(observed_at), max(observed_at)
		FROM (SELECT observed_at FROM eta_observations UNION ALL SELECT observed_at FROM port_calls)`).Scan(&first, &last)
	if err != nil {
		return err
	}
	if first.Valid && last.Valid {
		r.Span.First, r.Span.Last = first.Time.UTC(), last.Time.UTC()
	}
	return nil
}
