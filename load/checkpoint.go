package load

import (
	"context"
	"fmt"
	"time"
)

// Answered lists the resources answered for a logical date by a fetch: a
// success or a 404 (no data) was landed for them. A job asks only for what
// is missing, so a second job of the same date spends nothing.
func (w *Warehouse) Answered(ctx context.Context, logical time.Time) (map[string]bool, error) {
	if w.db == nil {
		return nil, errClosed
	}
	rows, err := w.db.QueryContext(ctx, `SELECT DISTINCT resource FROM raw_responses
WHERE logical_date = ? AND (status BETWEEN 200 AND 299 OR status = 404) AND source = ?`,
		logical.Format(time.DateOnly), SourceFetch)
	if err != nil {
		return nil, fmt.Errorf("reading the checkpoint: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, fmt.Errorf("reading the checkpoint: %w", err)
		}
		out[r] = true
	}
	return out, rows.Err()
}
