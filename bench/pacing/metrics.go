package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// metrics are what a trial's warehouse knew, judged against the world's
// truth (doc.go defines each).
type metrics struct {
	// InTransit: over every (night, tracked shipment not arrived whose
	// true arrival is under 7 days after the night's run), Pairs; Held of
	// them with a POD ETA held; MAE the mean |ETA held − actual|, hours.
	InTransit struct {
		Pairs, Held int
		MAE         float64
	}
	// Arrivals: the shipments tracked whose true POD arrival fell between
	// the first night's run and the last's, N; Seen of them whose arrival
	// the warehouse held by the last night; MeanDays the mean of (the
	// first night's run that held it − the arrival), days.
	Arrivals struct {
		N, Seen  int
		MeanDays float64
	}
	// Outside is what the policy costs beyond the report's POD horizons:
	// PostPODUsable1 the carrier's POSTPOD ETAs usable 1 day before the
	// arrival at the final destination (eta_accuracy), Revisions the mean,
	// over the shipments arrived at their POD, of the changes of the
	// carrier's POD ETA the warehouse saw before the arrival
	// (eta_accuracy_known.revisions): a shipment asked less often shows
	// fewer of its revisions.
	Outside struct {
		PostPODUsable1 int
		Revisions      float64
	}
	// Mismatched counts the arrivals the warehouse holds whose time is
	// not the truth's (more than a minute apart): the metrics above rest
	// on the two agreeing.
	Mismatched int
	// ETAs are eta_accuracy's rows of the POD and the carrier's ETA, one
	// per arrived shipment and horizon.
	ETAs []etaRow
	// Older are the same rows with the ETA the warehouse held a day
	// before each cut (judged against the cut itself, 48 h staleness
	// included): what the report would say of a policy whose every ETA
	// was exactly one night older than this one's.
	Older []etaRow
}

// etaRow is one row of eta_accuracy (target POD, source CARRIER).
type etaRow struct {
	Shipment string // type/number
	Carrier  string
	Horizon  int
	// Known: an ETA was observed at or before the cut (actual − horizon);
	// AgeDays how long before the cut, days. Usable: not stale (seen at
	// most 48 h before the cut), Error its actual − ETA, hours.
	Known, Usable bool
	AgeDays       float64
	Error         float64
}

// horizons are the report's.
var horizons = []int{1, 3, 7, 14}

// truthRow is one shipment of the world as the metrics take it.
type truthRow struct {
	ref       wire.ShipmentRef
	carrier   string
	actual    time.Time // at the POD, as sailed
	trackedAt time.Time
}

// truthOf is the true POD arrival of every shipment tracked: the last
// leg's actual arrival of the itinerary sailed (jumps included).
func truthOf(w *sim.World, trackedAt map[wire.ShipmentRef]time.Time) ([]truthRow, error) {
	byNumber := map[string]sim.ShipmentTruth{}
	for _, s := range w.Truth().Shipments {
		byNumber[s.Type+"/"+s.Number] = s
	}
	var out []truthRow
	for ref, at := range trackedAt {
		s, ok := byNumber[string(ref.Type)+"/"+ref.Number]
		if !ok || len(s.Legs) == 0 {
			return nil, fmt.Errorf("shipment %s %s: not in the world's truth", ref.Type, ref.Number)
		}
		leg := s.Legs[len(s.Legs)-1]
		if leg.To != s.POD {
			return nil, fmt.Errorf("shipment %s %s: its last leg ends at %s, not its POD %s", ref.Type, ref.Number, leg.To, s.POD)
		}
		out = append(out, truthRow{ref: ref, carrier: s.Sealine, actual: leg.ActualArrival, trackedAt: at})
	}
	return out, nil
}

// measure computes o's metrics with SQL on its warehouse, the world's
// truth and the nights in temporary tables of one connection.
func measure(ctx context.Context, wh *load.Warehouse, o *outcome) (metrics, error) {
	var m metrics
	truth, err := truthOf(o.Trial.World, o.TrackedAt)
	if err != nil {
		return m, err
	}
	conn, err := wh.DB().Conn(ctx)
	if err != nil {
		return m, err
	}
	defer conn.Close()
	if err := loadTruth(ctx, conn, truth, o.Nights); err != nil {
		return m, err
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS bench_truth; DROP TABLE IF EXISTS bench_nights`)
	}()
	var mae sql.NullFloat64
	if err := conn.QueryRowContext(ctx, inTransitSQL).Scan(&m.InTransit.Pairs, &m.InTransit.Held, &mae); err != nil {
		return m, fmt.Errorf("in-transit error: %w", err)
	}
	m.InTransit.MAE = mae.Float64
	var days sql.NullFloat64
	if err := conn.QueryRowContext(ctx, arrivalsSQL).Scan(&m.Arrivals.N, &m.Arrivals.Seen, &days); err != nil {
		return m, fmt.Errorf("days to see an arrival: %w", err)
	}
	m.Arrivals.MeanDays = days.Float64
	var revisions sql.NullFloat64
	if err := conn.QueryRowContext(ctx, outsideSQL).Scan(&m.Outside.PostPODUsable1, &revisions); err != nil {
		return m, fmt.Errorf("POSTPOD ETAs and revisions: %w", err)
	}
	m.Outside.Revisions = revisions.Float64
	if err := conn.QueryRowContext(ctx, mismatchSQL).Scan(&m.Mismatched); err != nil {
		return m, fmt.Errorf("arrivals against the truth: %w", err)
	}
	if m.ETAs, err = etaRows(ctx, conn, etaRowsSQL); err != nil {
		return m, fmt.Errorf("eta_accuracy: %w", err)
	}
	if m.Older, err = etaRows(ctx, conn, olderRowsSQL); err != nil {
		return m, fmt.Errorf("the ETAs a night before the cuts: %w", err)
	}
	return m, nil
}

// etaRows reads the rows of query: shipment, carrier, horizon, age,
// error.
func etaRows(ctx context.Context, conn *sql.Conn, query string) ([]etaRow, error) {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []etaRow
	for rows.Next() {
		var r etaRow
		var age, e sql.NullFloat64
		if err := rows.Scan(&r.Shipment, &r.Carrier, &r.Horizon, &age, &e); err != nil {
			return nil, err
		}
		r.Known, r.AgeDays = age.Valid, age.Float64
		r.Usable, r.Error = e.Valid, e.Float64
		out = append(out, r)
	}
	return out, rows.Err()
}

// loadTruth puts the truth and the nights in temporary tables of conn.
func loadTruth(ctx context.Context, conn *sql.Conn, truth []truthRow, nights []time.Time) error {
	if _, err := conn.ExecContext(ctx, `
		CREATE OR REPLACE TEMP TABLE bench_truth (shipment_number VARCHAR, shipment_type VARCHAR, carrier VARCHAR,
			actual_at TIMESTAMPTZ, tracked_at TIMESTAMPTZ);
		CREATE OR REPLACE TEMP TABLE bench_nights (night TIMESTAMPTZ)`); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range truth {
		if _, err := tx.ExecContext(ctx, `INSERT INTO bench_truth VALUES (?, ?, ?, ?, ?)`,
			t.ref.Number, string(t.ref.Type), t.carrier, t.actual, t.trackedAt); err != nil {
			return errors.Join(err, tx.Rollback())
		}
	}
	for _, n := range nights {
		if _, err := tx.ExecContext(ctx, `INSERT INTO bench_nights VALUES (?)`, n); err != nil {
			return errors.Join(err, tx.Rollback())
		}
	}
	return tx.Commit()
}

// inTransitSQL: for each night's run and each shipment tracked by then,
// not arrived, whose true arrival is under 7 days away, the POD ETA the
// warehouse held (the carrier's, its latest observation at or before the
// run) against the true arrival.
const inTransitSQL = `
WITH obs AS (
    SELECT shipment_number, shipment_type, observed_at, eta
    FROM eta_observations
    WHERE target = 'POD' AND source = 'CARRIER' AND NOT is_actual
),
pairs AS (
    SELECT n.night, t.shipment_number, t.shipment_type, t.actual_at
    FROM bench_nights AS n
    JOIN bench_truth AS t
      ON t.tracked_at <= n.night AND t.actual_at > n.night
     AND epoch_us(t.actual_at) - epoch_us(n.night) < 7 * 86400000000
)
SELECT count(*), count(o.eta), avg(abs(epoch_us(o.eta) - epoch_us(p.actual_at))) / 3600e6
FROM pairs AS p
ASOF LEFT JOIN obs AS o
  ON o.shipment_number = p.shipment_number AND o.shipment_type = p.shipment_type AND p.night >= o.observed_at`

// arrivalsSQL: for each shipment tracked whose true POD arrival fell
// between the first night's run and the last's, the first night's run by
// which the warehouse held an actual arrival at the POD (fetched or
// pushed), less the arrival.
const arrivalsSQL = `
WITH seen AS (
    SELECT shipment_number, shipment_type, min(observed_at) AS seen_at
    FROM eta_observations
    WHERE target = 'POD' AND source = 'CARRIER' AND is_actual
    GROUP BY ALL
),
arrived AS (
    SELECT t.shipment_number, t.shipment_type, t.actual_at, s.seen_at
    FROM bench_truth AS t
    LEFT JOIN seen AS s USING (shipment_number, shipment_type)
    WHERE t.tracked_at <= t.actual_at
      AND t.actual_at > (SELECT min(night) FROM bench_nights)
      AND t.actual_at <= (SELECT max(night) FROM bench_nights)
),
first AS (
    SELECT a.*, n.night AS first_night
    FROM arrived AS a
    ASOF LEFT JOIN bench_nights AS n ON a.seen_at <= n.night
)
SELECT count(*), count(first_night), avg(epoch_us(first_night) - epoch_us(actual_at)) / 86400e6
FROM first`

// outsideSQL: the carrier's POSTPOD ETAs usable 1 day out, and the
// revisions of the carrier's POD ETA seen per shipment arrived there.
const outsideSQL = `
SELECT (SELECT count(*) FROM eta_accuracy
        WHERE target = 'POSTPOD' AND source = 'CARRIER' AND horizon_days = 1 AND error_hours IS NOT NULL),
       (SELECT avg(revisions) FROM eta_accuracy_known WHERE target = 'POD' AND source = 'CARRIER')`

// mismatchSQL counts the arrivals at the POD the warehouse holds that
// are not the truth's.
const mismatchSQL = `
SELECT count(*)
FROM shipments AS s
JOIN bench_truth AS t USING (shipment_number, shipment_type)
WHERE s.pod_actual AND abs(epoch_us(s.pod_date) - epoch_us(t.actual_at)) > 60000000`

// etaRowsSQL: the carrier's POD ETA at each horizon, as the report
// judges it; age is how long before the cut (actual − horizon) the ETA
// used was observed, in days.
const etaRowsSQL = `
SELECT shipment_type || '/' || shipment_number, carrier, horizon_days,
       observed_lead_hours / 24 - horizon_days AS age_days,
       error_hours
FROM eta_accuracy
WHERE target = 'POD' AND source = 'CARRIER'
ORDER BY 1, 3`

// olderRowsSQL: as etaRowsSQL, with the ETA of the latest observation a
// day before the cut, stale as eta_accuracy judges it (seen more than
// etalake_max_staleness_hours() before the cut).
const olderRowsSQL = `
WITH obs AS (
    SELECT shipment_number, shipment_type, observed_at, eta
    FROM eta_observations
    WHERE target = 'POD' AND source = 'CARRIER' AND NOT is_actual
),
cuts AS (
    SELECT k.shipment_number, k.shipment_type, k.carrier, k.actual_at, h.horizon_days,
           epoch_us(k.actual_at) - h.horizon_days * 86400000000 AS cut_us,
           to_timestamp((epoch_us(k.actual_at) - (h.horizon_days + 1) * 86400000000) / 1e6) AS older_at
    FROM eta_accuracy_known AS k
    CROSS JOIN (VALUES (1), (3), (7), (14)) AS h(horizon_days)
    WHERE k.target = 'POD' AND k.source = 'CARRIER'
)
SELECT c.shipment_type || '/' || c.shipment_number, c.carrier, c.horizon_days,
       (c.cut_us - epoch_us(o.observed_at)) / 86400e6 AS age_days,
       CASE WHEN c.cut_us - epoch_us(o.observed_at) <= etalake_max_staleness_hours() * 3600e6
            THEN (epoch_us(c.actual_at) - epoch_us(o.eta)) / 3600e6 END AS error_hours
FROM cuts AS c
ASOF LEFT JOIN obs AS o
  ON o.shipment_number = c.shipment_number AND o.shipment_type = c.shipment_type AND c.older_at >= o.observed_at
ORDER BY 1, 3`
