package report

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"time"
)

// EstimateAccuracy is one row of arrival_estimate_accuracy: etalake's own
// arrival estimate against another source (Versus) on the same shipments,
// those with both usable HorizonDays before arrival, and how often the
// arrivals fell inside its intervals at that horizon.
type EstimateAccuracy struct {
	// Carrier is "" for every carrier together.
	Carrier     string
	HorizonDays int
	// Versus is the source compared with: CARRIER, or PREDICTIVE at 1 day
	// only (further out the predictive ETA exists only for the shipments
	// it expects early).
	Versus string
	N      int // shipment targets with both usable
	NCalls int // the distinct vessel calls they arrived on
	// Enough: NCalls reaches Rules.MinN; without it Better is "".
	Enough bool
	// MAEHours is the estimate's mean absolute error, OtherMAEHours the
	// other source's on the same shipments.
	MAEHours, OtherMAEHours float64
	// DiffHours is the estimate's MAE − the other's (negative: etalake
	// was closer), Diff its 95 % interval clustered by vessel call;
	// DiffPct and DiffPctCI the same as a percentage of the other's MAE.
	DiffHours float64
	Diff      Interval
	DiffPct   float64
	DiffPctCI Interval
	// Better is the view's verdict: ETALAKE or Versus when the interval
	// excludes 0, TIE when not, "" when there are too few vessel calls.
	Better string
	// NIntervals counts the estimates at that horizon that had intervals;
	// Coverage80 and Coverage95 the share of them whose arrival fell
	// inside the 80 % and the 95 % interval, with Wilson intervals over
	// the vessel calls. The same in every Versus row of a horizon.
	NIntervals                 int
	Coverage80, Coverage95     float64
	Coverage80CI, Coverage95CI Interval
}

// Arrival is one shipment target of arrival_outlook: not arrived yet, and
// its latest estimate.
type Arrival struct {
	Shipment string
	Target   string // POD or POSTPOD
	Carrier  string
	Locode   string
	// ETA is the carrier's latest ETA, Estimate etalake's estimate made
	// of it; Lo80 to Hi95 are zero when too few past errors were known
	// for an interval.
	ETA, Estimate          time.Time
	Lo80, Hi80, Lo95, Hi95 time.Time
	BasisLevel             string
}

// OutlookDays is how far past the report's as-of time (Span.Last, the
// newest observation: the same warehouse reports the same, whenever) the
// outlook lists the arrivals etalake expects, and OutlookRows how many of
// them at most.
const (
	OutlookDays = 7
	OutlookRows = 20
)

// Values of EstimateAccuracy.Better beside betterCarrier, betterPredictive
// and betterTie.
const betterETALAKE = "ETALAKE"

// readEstimate reads arrival_estimate_accuracy: every carrier's rows into
// Estimate, each carrier's into EstimateByCarrier.
func readEstimate(ctx context.Context, db *sql.DB, r *Report) error {
	rows, err := db.QueryContext(ctx, `
		SELECT level, carrier, horizon_days, versus, n, n_calls, enough, etalake_mae_hours, other_mae_hours,
		       mae_diff_hours, mae_diff_lo_hours, mae_diff_hi_hours, mae_diff_pct, mae_diff_lo_pct, mae_diff_hi_pct, better,
		       coalesce(n_intervals, 0), coverage_80, coverage_80_lo, coverage_80_hi, coverage_95, coverage_95_lo, coverage_95_hi
		FROM arrival_estimate_accuracy
		WHERE level IN ('carrier', 'all')`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var level string
		var carrier, better sql.NullString
		var e EstimateAccuracy
		var pct, lo, hi, pctLo, pctHi, c80, c80Lo, c80Hi, c95, c95Lo, c95Hi sql.NullFloat64
		if err := rows.Scan(&level, &carrier, &e.HorizonDays, &e.Versus, &e.N, &e.NCalls, &e.Enough, &e.MAEHours, &e.OtherMAEHours,
			&e.DiffHours, &lo, &hi, &pct, &pctLo, &pctHi, &better,
			&e.NIntervals, &c80, &c80Lo, &c80Hi, &c95, &c95Lo, &c95Hi); err != nil {
			return err
		}
		e.Diff, e.DiffPct, e.DiffPctCI, e.Better = newInterval(lo, hi), pct.Float64, newInterval(pctLo, pctHi), better.String
		e.Coverage80, e.Coverage80CI = c80.Float64, newInterval(c80Lo, c80Hi)
		e.Coverage95, e.Coverage95CI = c95.Float64, newInterval(c95Lo, c95Hi)
		if level == "all" {
			r.Estimate = append(r.Estimate, e)
			continue
		}
		e.Carrier = cmp.Or(carrier.String, unknownCarrier)
		r.EstimateByCarrier = append(r.EstimateByCarrier, e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	order := func(a, b EstimateAccuracy) int {
		return cmp.Or(cmp.Compare(a.HorizonDays, b.HorizonDays), cmp.Compare(a.Carrier, b.Carrier), cmp.Compare(versusOrder(a.Versus), versusOrder(b.Versus)))
	}
	slices.SortFunc(r.Estimate, order)
	slices.SortFunc(r.EstimateByCarrier, order)
	return nil
}

// versusOrder lists the carrier's ETA before the predictive one.
func versusOrder(v string) int {
	if v == betterCarrier {
		return 0
	}
	return 1
}

// readOutlook reads from arrival_outlook the arrivals etalake expects
// within OutlookDays of Span.Last, the earliest OutlookRows of them, and
// counts them all and those whose estimate has passed with no arrival
// reported.
func readOutlook(ctx context.Context, db *sql.DB, r *Report) error {
	if r.Span.Last.IsZero() {
		return nil
	}
	asOf, until := r.Span.Last, r.Span.Last.Add(OutlookDays*24*time.Hour)
	if err := db.QueryRowContext(ctx, `
		SELECT count(*) FILTER (WHERE estimate_at >= ? AND estimate_at < ?), count(*) FILTER (WHERE estimate_at < ?)
		FROM arrival_outlook`, asOf, until, asOf).Scan(&r.OutlookDue, &r.OutlookOverdue); err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `
		SELECT shipment_number, target, coalesce(carrier, ''), coalesce(locode, ''), eta, estimate_at,
		       lo_80, hi_80, lo_95, hi_95, basis_level
		FROM arrival_outlook
		WHERE estimate_at >= ? AND estimate_at < ?
		ORDER BY estimate_at, shipment_number, shipment_type, target
		LIMIT ?`, asOf, until, OutlookRows)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a Arrival
		var lo80, hi80, lo95, hi95 sql.NullTime
		if err := rows.Scan(&a.Shipment, &a.Target, &a.Carrier, &a.Locode, &a.ETA, &a.Estimate,
			&lo80, &hi80, &lo95, &hi95, &a.BasisLevel); err != nil {
			return err
		}
		a.Carrier = cmp.Or(a.Carrier, unknownCarrier)
		a.ETA, a.Estimate = a.ETA.UTC(), a.Estimate.UTC()
		a.Lo80, a.Hi80, a.Lo95, a.Hi95 = lo80.Time.UTC(), hi80.Time.UTC(), lo95.Time.UTC(), hi95.Time.UTC()
		if !lo80.Valid || !hi80.Valid || !lo95.Valid || !hi95.Valid {
			a.Lo80, a.Hi80, a.Lo95, a.Hi95 = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		}
		r.Outlook = append(r.Outlook, a)
	}
	return rows.Err()
}

// verdict says in words what Better concludes.
func (e EstimateAccuracy) verdict() string {
	switch e.Better {
	case betterETALAKE:
		return "etalake closer"
	case betterCarrier:
		return "carrier closer"
	case betterPredictive:
		return "predictive closer"
	case betterTie:
		return "no clear difference"
	}
	return "too few"
}
