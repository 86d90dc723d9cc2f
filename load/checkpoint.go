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
	resources, err := queryStrings(ctx, w.db, `SELECT DISTINCT resource FROM raw_responses
WHERE logical_date = ? AND (status BETWEEN 200 AND 299 OR status = 404) AND source = ?`,
		logical.Format(time.DateOnly), SourceFetch)
	if err != nil {
		return nil, fmt.Errorf("reading the checkpoint: %w", err)
	}
	out := make(map[string]bool, len(resources))
	for _, r := range resources {
		out[r] = true
	}
	return out, nil
}
