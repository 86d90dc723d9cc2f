package report

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
)

// Comparison is one row of eta_accuracy_comparison: the predictive and
// the carrier ETA compared on the same shipments, those with both usable
// HorizonDays before arrival. The view has rows only at the horizons where
// both exist by design: the predictive ETA, published only while it
// promises arrival within 72 hours, is never compared where it exists
// only for the shipments it expects early.
type Comparison struct {
	// Carrier is "" for every carrier together.
	Carrier     string
	HorizonDays int
	N           int // shipments with both ETAs
	NCalls      int // the distinct vessel calls they arrived on
	// Enough: NCalls reaches Rules.MinN; without it Better is "".
	Enough              bool
	CarrierBiasHours    float64
	CarrierMAEHours     float64
	PredictiveBiasHours float64
	PredictiveMAEHours  float64
	// DiffHours is the predictive MAE − the carrier's (negative: the
	// predictive ETA was closer), Diff its 95 % interval.
	DiffHours float64
	Diff      Interval
	// PredictiveCloserShare is the share of the N shipments where the
	// predictive ETA was strictly closer to the actual, 0 to 1.
	PredictiveCloserShare float64
	// Better is the view's verdict: PREDICTIVE or CARRIER when Diff
	// excludes 0, TIE when not, "" when there are too few vessel calls.
	Better string
}

// Values of Comparison.Better.
const (
	betterPredictive = "PREDICTIVE"
	betterCarrier    = "CARRIER"
	betterTie        = "TIE"
)

// readComparison reads eta_accuracy_comparison: every carrier's rows
// into Comparison, each carrier's into ComparisonByCarrier.
func readComparison(ctx context.Context, db *sql.DB, r *Report) error {
	rows, err := db.QueryContext(ctx, `
		SELECT level, carrier, horizon_days, n, n_calls, enough,
		       carrier_bias_hours, carrier_mae_hours, predictive_bias_hours, predictive_mae_hours,
		       mae_diff_hours, mae_diff_lo_hours, mae_diff_hi_hours, predictive_closer_share, better
		FROM eta_accuracy_comparison
		WHERE level IN ('carrier', 'all')`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var level string
		var carrier, better sql.NullString
		var c Comparison
		var lo, hi sql.NullFloat64
		if err := rows.Scan(&level, &carrier, &c.HorizonDays, &c.N, &c.NCalls, &c.Enough,
			&c.CarrierBiasHours, &c.CarrierMAEHours, &c.PredictiveBiasHours, &c.PredictiveMAEHours,
			&c.DiffHours, &lo, &hi, &c.PredictiveCloserShare, &better); err != nil {
			return err
		}
		c.Diff, c.Better = newInterval(lo, hi), better.String
		if level == "all" {
			r.Comparison = append(r.Comparison, c)
			continue
		}
		c.Carrier = cmp.Or(carrier.String, unknownCarrier)
		r.ComparisonByCarrier = append(r.ComparisonByCarrier, c)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.SortFunc(r.Comparison, func(a, b Comparison) int { return cmp.Compare(a.HorizonDays, b.HorizonDays) })
	slices.SortFunc(r.ComparisonByCarrier, func(a, b Comparison) int {
		return cmp.Or(cmp.Compare(a.HorizonDays, b.HorizonDays), cmp.Compare(a.Carrier, b.Carrier))
	})
	return nil
}

// verdict says in words what Better concludes.
func (c Comparison) verdict() string {
	switch c.Better {
	case betterPredictive:
		return "predictive closer"
	case betterCarrier:
		return "carrier closer"
	case betterTie:
		return "no clear difference"
	}
	return "too few"
}
