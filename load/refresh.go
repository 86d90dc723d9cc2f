package load

import (
	"context"
	"fmt"
	"time"
)

// LastAnswered is, by shipment resource (shipment:CT:MSCU1234566), the
// latest logical date a fetch had a whole answer of it (a 2xx, not
// broken): the night it was last paid for. A pushed body is no fetch and
// counts not. The refresh policy reads it to tell which shipments a bill
// per shipment per month already covers.
func (w *Warehouse) LastAnswered(ctx context.Context) (map[string]time.Time, error) {
	if w.db == nil {
		return nil, errClosed
	}
	rows, err := w.db.QueryContext(ctx, `
SELECT resource, max(logical_date) FROM raw_responses
WHERE source = ? AND resource LIKE 'shipment:%' AND status BETWEEN 200 AND 299 AND broken IS NULL AND logical_date IS NOT NULL
GROUP BY resource`, SourceFetch)
	if err != nil {
		return nil, fmt.Errorf("reading when each shipment was last answered: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var res string
		var at time.Time
		if err := rows.Scan(&res, &at); err != nil {
			return nil, fmt.Errorf("reading when each shipment was last answered: %w", err)
		}
		out[res] = at.UTC()
	}
	return out, rows.Err()
}

// ETAChange is how much the carrier's ETA at the port of discharge moved
// between consecutive observations of its shipments, for one carrier and
// one whole number of days to that ETA at the first of the two
// observations (Days: −1 for an ETA already past, at most 60).
type ETAChange struct {
	Carrier string
	Days    int
	// Pairs counts the consecutive observations; AbsHours sums the
	// absolute change of the ETA between them, Elapsed the days between
	// them.
	Pairs    int
	AbsHours float64
	Elapsed  float64
}

// ETAChanges is the history of the carriers' ETAs at the port of
// discharge since since, as ETAChange rows: what the refresh policy
// learns the expected change of an ETA from. Estimates only (an actual
// ends a shipment's pairs); a carrier is the shipment's sealine.
func (w *Warehouse) ETAChanges(ctx context.Context, since time.Time) ([]ETAChange, error) {
	if w.db == nil {
		return nil, errClosed
	}
	// Integer epoch microseconds, as the accuracy views: TIMESTAMPTZ
	// arithmetic goes through the ICU calendar and is far slower.
	rows, err := w.db.QueryContext(ctx, `
WITH seen AS (
    SELECT e.shipment_number, e.shipment_type, epoch_us(e.observed_at) AS at_us, epoch_us(e.eta) AS eta_us,
           lag(epoch_us(e.observed_at)) OVER w AS prev_at_us, lag(epoch_us(e.eta)) OVER w AS prev_eta_us
    FROM eta_observations AS e
    WHERE e.target = 'POD' AND e.source = 'CARRIER' AND NOT coalesce(e.is_actual, false) AND e.observed_at >= ?
    WINDOW w AS (PARTITION BY e.shipment_number, e.shipment_type ORDER BY e.observed_at))
SELECT coalesce(s.sealine, '') AS carrier,
       CAST(least(greatest(floor((p.prev_eta_us - p.prev_at_us) / 86400e6), -1), 60) AS INTEGER) AS days,
       count(*) AS pairs,
       sum(abs(p.eta_us - p.prev_eta_us)) / 3600e6 AS abs_hours,
       sum(p.at_us - p.prev_at_us) / 86400e6 AS elapsed
FROM seen AS p
JOIN shipments AS s USING (shipment_number, shipment_type)
WHERE p.prev_at_us IS NOT NULL
GROUP BY ALL
ORDER BY ALL`, since)
	if err != nil {
		return nil, fmt.Errorf("reading how the ETAs moved: %w", err)
	}
	defer rows.Close()
	var out []ETAChange
	for rows.Next() {
		var c ETAChange
		if err := rows.Scan(&c.Carrier, &c.Days, &c.Pairs, &c.AbsHours, &c.Elapsed); err != nil {
			return nil, fmt.Errorf("reading how the ETAs moved: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
