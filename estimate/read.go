package estimate

import (
	"context"
	"database/sql"
	"math"
	"time"
)

// targets are the targets estimated: where a box arrives.
const targets = "('POD', 'POSTPOD')"

// start is the UTC day an Update recomputes from: the earliest carrier
// ETA at a target without an estimate, the earliest estimate whose ETA is
// no longer there, or the earliest actual no arrival learned covers — of
// scope's shipments, or of every shipment when scope names none; the
// first observation when scope is whole or arrival_estimates is empty (a
// new definition); zero when there is nothing to do.
func start(ctx context.Context, conn *sql.Conn, scope Scope) (time.Time, error) {
	var empty bool
	if err := conn.QueryRowContext(ctx, "SELECT count(*) = 0 FROM arrival_estimates").Scan(&empty); err != nil {
		return time.Time{}, err
	}
	var at sql.NullTime
	var err error
	if scope.Whole || empty {
		err = conn.QueryRowContext(ctx, "SELECT min(observed_at) FROM eta_observations WHERE source = 'CARRIER' AND target IN "+targets).Scan(&at)
	} else {
		of := func(alias string) string {
			if scope.Shipments == "" {
				return "true"
			}
			return alias + ".shipment_number IN (" + scope.Shipments + ")"
		}
		err = conn.QueryRowContext(ctx, `
SELECT least(
  (SELECT min(e.observed_at) FROM eta_observations AS e
   WHERE `+of("e")+` AND e.source = 'CARRIER' AND NOT e.is_actual AND e.target IN `+targets+`
     AND NOT EXISTS (SELECT 1 FROM arrival_estimates AS a
                     WHERE a.shipment_number = e.shipment_number AND a.shipment_type = e.shipment_type
                       AND a.target = e.target AND a.observed_at = e.observed_at)),
  (SELECT min(a.observed_at) FROM arrival_estimates AS a
   WHERE `+of("a")+`
     AND NOT EXISTS (SELECT 1 FROM eta_observations AS e
                     WHERE e.shipment_number = a.shipment_number AND e.shipment_type = a.shipment_type
                       AND e.target = a.target AND e.observed_at = a.observed_at
                       AND e.source = 'CARRIER' AND NOT e.is_actual)),
  (SELECT min(e.observed_at) FROM eta_observations AS e
   WHERE `+of("e")+` AND e.source = 'CARRIER' AND e.is_actual AND e.target IN `+targets+`
     AND NOT EXISTS (SELECT 1 FROM arrival_learning AS l
                     WHERE l.shipment_number = e.shipment_number AND l.shipment_type = e.shipment_type
                       AND l.target = e.target AND l.known_at <= e.observed_at
                       AND (l.withdrawn_at IS NULL OR l.withdrawn_at > e.observed_at))))`).Scan(&at)
	}
	if err != nil || !at.Valid {
		return time.Time{}, err
	}
	return at.Time.UTC().Truncate(day), nil
}

// lastObserved is the latest carrier observation at a target.
func lastObserved(ctx context.Context, conn *sql.Conn, from time.Time) (time.Time, error) {
	var at sql.NullTime
	err := conn.QueryRowContext(ctx, "SELECT max(observed_at) FROM eta_observations WHERE observed_at >= ? AND source = 'CARRIER' AND target IN "+targets, from).Scan(&at)
	return at.Time.UTC(), err
}

// readLearned reads the arrivals known in [lo, hi), in the order a model
// reads them.
func readLearned(ctx context.Context, conn *sql.Conn, lo, hi time.Time) ([]Learned, error) {
	rows, err := conn.QueryContext(ctx, `
SELECT shipment_number, shipment_type, target, known_at, actual_at, withdrawn_at, coalesce(carrier, ''), coalesce(locode, ''), coalesce(lane, ''),
       coalesce(bucket, -1), carrier_error_hours, predictive_error_hours, estimate_error_spreads
FROM arrival_learning WHERE known_at >= ? AND known_at < ?
ORDER BY known_at, shipment_number, shipment_type, target, bucket NULLS FIRST`, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Learned
	for rows.Next() {
		var l Learned
		var c, p, o sql.NullFloat64
		var withdrawn sql.NullTime
		if err := rows.Scan(&l.Shipment, &l.Type, &l.Target, &l.KnownAt, &l.ActualAt, &withdrawn, &l.Carrier, &l.Port, &l.Lane, &l.Bucket, &c, &p, &o); err != nil {
			return nil, err
		}
		l.KnownAt, l.ActualAt = l.KnownAt.UTC(), l.ActualAt.UTC()
		if withdrawn.Valid {
			l.WithdrawnAt = withdrawn.Time.UTC()
		}
		l.CarrierH, l.PredictiveH, l.Own = orNaN(c), orNaN(p), orNaN(o)
		out = append(out, l)
	}
	return out, rows.Err()
}

func orNaN(f sql.NullFloat64) float64 {
	if !f.Valid {
		return math.NaN()
	}
	return f.Float64
}

// readStanding notes in standing, for each of keys, whether its latest
// arrival learned before from stands (not taken back), and in known when
// it was reported.
func readStanding(ctx context.Context, conn *sql.Conn, from time.Time, keys []Key, standing map[Key]bool, known map[Key]time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	rows, err := conn.QueryContext(ctx, `
SELECT shipment_number, shipment_type, target, arg_max(withdrawn_at IS NULL, known_at), max(known_at)
FROM arrival_learning
WHERE known_at < ? AND list_contains(?::VARCHAR[], shipment_number)
GROUP BY ALL`, from, shipments(keys))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k Key
		var stands bool
		var at time.Time
		if err := rows.Scan(&k.Shipment, &k.Type, &k.Target, &stands, &at); err != nil {
			return err
		}
		standing[k], known[k] = stands, at.UTC()
	}
	return rows.Err()
}

// shipments are the shipment numbers of keys, for a list parameter.
func shipments(keys []Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Shipment
	}
	return out
}

// estimateColumns are the columns of arrival_estimates a Row is read from.
const estimateColumns = `shipment_number, shipment_type, target, observed_at, coalesce(carrier, ''), coalesce(locode, ''), coalesce(lane, ''),
       eta, predictive_eta, horizon_days, estimate_at, spread_hours`

// readEstimates reads the estimates of keys made in [lo, hi), by when:
// what their arrivals teach.
func readEstimates(ctx context.Context, conn *sql.Conn, keys []Key, lo, hi time.Time) ([]Row, error) {
	want := map[Key]bool{}
	for _, k := range keys {
		want[k] = true
	}
	rows, err := conn.QueryContext(ctx, `
SELECT `+estimateColumns+` FROM arrival_estimates
WHERE observed_at >= ? AND observed_at < ? AND list_contains(?::VARCHAR[], shipment_number)
ORDER BY observed_at, shipment_number, shipment_type, target`, lo, hi, shipments(keys))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var pr sql.NullTime
		var spread sql.NullFloat64
		if err := rows.Scan(&r.Shipment, &r.Type, &r.Target, &r.ObservedAt, &r.Carrier, &r.Port, &r.Lane, &r.ETA, &pr, &r.HorizonDays, &r.Estimate, &spread); err != nil {
			return nil, err
		}
		if !want[r.Key] {
			continue
		}
		r.SpreadH = orNaN(spread)
		r.ObservedAt, r.ETA, r.Estimate = r.ObservedAt.UTC(), r.ETA.UTC(), r.Estimate.UTC()
		if pr.Valid {
			r.Predictive = pr.Time.UTC()
		}
		r.Bucket = Bucket(r.HorizonDays)
		out = append(out, r)
	}
	return out, rows.Err()
}

// observed is a carrier's answer at a target: an ETA (to estimate), or
// the actual arrival.
type observed struct {
	Obs
	Actual bool
}

// readObs reads the carrier ETAs and actuals at a target observed in
// [lo, hi), each
// with its shipment's carrier, the POL and the predictive ETA of the same
// answer (the same response and shipment: a provider's answer may hold
// more than one), by when. Without a POL in the answer, the shipment's
// latest one.
func readObs(ctx context.Context, conn *sql.Conn, lo, hi time.Time) ([]observed, error) {
	rows, err := conn.QueryContext(ctx, `
WITH answer AS (
    SELECT response_id, shipment_number, shipment_type,
           min(locode) FILTER (WHERE target = 'POL' AND source = 'CARRIER') AS pol,
           min(eta) FILTER (WHERE target = 'POD' AND source = 'PREDICTIVE' AND NOT is_actual) AS pod_predictive
    FROM eta_observations
    WHERE observed_at >= ? AND observed_at < ? AND (target = 'POL' OR source = 'PREDICTIVE')
    GROUP BY response_id, shipment_number, shipment_type)
SELECT e.shipment_number, e.shipment_type, e.target, e.observed_at, coalesce(s.sealine, ''),
       coalesce(e.locode, ''), coalesce(a.pol, s.pol_locode, ''), e.eta, CASE WHEN e.target = 'POD' THEN a.pod_predictive END, e.is_actual
FROM eta_observations AS e
LEFT JOIN shipments AS s ON s.shipment_number = e.shipment_number AND s.shipment_type = e.shipment_type
LEFT JOIN answer AS a ON a.response_id = e.response_id AND a.shipment_number = e.shipment_number AND a.shipment_type = e.shipment_type
WHERE e.observed_at >= ? AND e.observed_at < ? AND e.source = 'CARRIER' AND e.target IN `+targets+`
ORDER BY e.observed_at, e.shipment_number, e.shipment_type, e.target`, lo, hi, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []observed
	for rows.Next() {
		var o observed
		var pol string
		var pr sql.NullTime
		if err := rows.Scan(&o.Shipment, &o.Type, &o.Target, &o.ObservedAt, &o.Carrier, &o.Port, &pol, &o.ETA, &pr, &o.Actual); err != nil {
			return nil, err
		}
		o.ObservedAt, o.ETA = o.ObservedAt.UTC(), o.ETA.UTC()
		o.Lane = pol + "-" + o.Port
		if pr.Valid {
			o.Predictive = pr.Time.UTC()
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
