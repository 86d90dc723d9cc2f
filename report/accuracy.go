package report

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
)

// Accuracy is one row of eta_accuracy_summary: how far off the ETAs of a
// source known some days before arrival were. Errors are actual − ETA in
// hours: a positive bias means later than promised. The statistics are
// meaningless (zero) when N is 0.
type Accuracy struct {
	N             int // arrived shipments with an ETA known at the horizon
	Shipments     int // arrived shipments, with an ETA known or not
	BiasHours     float64
	MAEHours      float64 // mean absolute error
	P50AbsHours   float64
	P90AbsHours   float64
	Within1DShare float64 // share of the N within ±24 h, 0 to 1
}

// CarrierAccuracy is the accuracy of one carrier's ETAs (Carrier: its SCAC
// code as the service reports it) and of the predictive ETAs of its
// shipments, at each horizon.
type CarrierAccuracy struct {
	Carrier string
	// Rank is the carrier's place by the MAE of its ETA at RankHorizon,
	// from 1; 0 when it has fewer than MinRanked shipments there.
	Rank       int
	ETA        map[int]Accuracy // the carrier's ETA, by horizon in days
	Predictive map[int]Accuracy // the service's predictive ETA, by horizon
}

// Comparison is one row of eta_accuracy_comparison: the predictive and
// the carrier ETA compared on the same shipments, those with both known
// HorizonDays before arrival.
type Comparison struct {
	HorizonDays         int
	N                   int
	CarrierBiasHours    float64
	CarrierMAEHours     float64
	PredictiveBiasHours float64
	PredictiveMAEHours  float64
	// PredictiveCloserShare is the share of the N shipments where the
	// predictive ETA was strictly closer to the actual, 0 to 1.
	PredictiveCloserShare float64
	// PredictiveBetter: the predictive ETA had the smaller MAE.
	PredictiveBetter bool
}

// ErrorSample is the individual errors (actual − ETA, hours, ascending)
// of one source's ETAs known HorizonDays before arrival, over every
// carrier's arrived shipments: what the distribution chart draws.
type ErrorSample struct {
	Source      string // CARRIER or PREDICTIVE, as in eta_accuracy
	HorizonDays int
	Hours       []float64
}

// errorSamples are the samples the distribution chart compares: the
// carrier ETA at RankHorizon, then the carrier's and the predictive ETA at
// PredictiveHorizon, on a par.
var errorSamples = []struct {
	source  string
	horizon int
}{{"CARRIER", RankHorizon}, {"CARRIER", PredictiveHorizon}, {"PREDICTIVE", PredictiveHorizon}}

// readAccuracy reads the all-ports rows of eta_accuracy_summary: a carrier
// per carrier, and the row of every carrier (carrier NULL too), then ranks
// the carriers.
func readAccuracy(ctx context.Context, db *sql.DB, r *Report) error {
	rows, err := db.QueryContext(ctx, `
		SELECT carrier, source, horizon_days, n, shipments,
		       bias_hours, mae_hours, p50_abs_hours, p90_abs_hours, within_1d_share
		FROM eta_accuracy_summary
		WHERE pod_locode IS NULL
		ORDER BY horizon_days`)
	if err != nil {
		return err
	}
	defer rows.Close()
	byCarrier := map[string]*CarrierAccuracy{}
	r.All = newCarrierAccuracy("")
	for rows.Next() {
		var carrier sql.NullString
		var source string
		var h int
		var a Accuracy
		var bias, mae, p50, p90, within sql.NullFloat64
		if err := rows.Scan(&carrier, &source, &h, &a.N, &a.Shipments, &bias, &mae, &p50, &p90, &within); err != nil {
			return err
		}
		a.BiasHours, a.MAEHours, a.P50AbsHours, a.P90AbsHours, a.Within1DShare = bias.Float64, mae.Float64, p50.Float64, p90.Float64, within.Float64
		c := &r.All
		if carrier.Valid {
			if byCarrier[carrier.String] == nil {
				ca := newCarrierAccuracy(carrier.String)
				byCarrier[carrier.String] = &ca
			}
			c = byCarrier[carrier.String]
		}
		switch source {
		case "CARRIER":
			c.ETA[h] = a
		case "PREDICTIVE":
			c.Predictive[h] = a
		}
		if !slices.Contains(r.Horizons, h) {
			r.Horizons = append(r.Horizons, h)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.Sort(r.Horizons)
	for _, c := range byCarrier {
		r.Carriers = append(r.Carriers, *c)
	}
	rank(r.Carriers)
	// Every arrived shipment has a row at every horizon, ETA known or not.
	for _, a := range r.All.ETA {
		r.Span.Arrived = max(r.Span.Arrived, a.Shipments)
	}
	return nil
}

func newCarrierAccuracy(carrier string) CarrierAccuracy {
	return CarrierAccuracy{Carrier: carrier, ETA: map[int]Accuracy{}, Predictive: map[int]Accuracy{}}
}

// rank orders the carriers by the MAE of their ETA at RankHorizon, those
// with at least MinRanked shipments there first and numbered; then the
// others, those without any ETA there last. Ties go to the carrier with
// more shipments, then by name.
func rank(cs []CarrierAccuracy) {
	ranked := func(c CarrierAccuracy) bool { return c.ETA[RankHorizon].N >= MinRanked }
	slices.SortFunc(cs, func(a, b CarrierAccuracy) int {
		ea, eb := a.ETA[RankHorizon], b.ETA[RankHorizon]
		if c := -cmp.Compare(b2i(ranked(a)), b2i(ranked(b))); c != 0 {
			return c
		}
		if c := -cmp.Compare(b2i(ea.N > 0), b2i(eb.N > 0)); c != 0 {
			return c
		}
		if c := cmp.Compare(ea.MAEHours, eb.MAEHours); c != 0 {
			return c
		}
		if c := -cmp.Compare(ea.N, eb.N); c != 0 {
			return c
		}
		return cmp.Compare(a.Carrier, b.Carrier)
	})
	for i := range cs {
		cs[i].Rank = 0
		if ranked(cs[i]) {
			cs[i].Rank = i + 1
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readComparison reads the every-carrier rows of eta_accuracy_comparison.
func readComparison(ctx context.Context, db *sql.DB, r *Report) error {
	rows, err := db.QueryContext(ctx, `
		SELECT horizon_days, n, carrier_bias_hours, carrier_mae_hours,
		       predictive_bias_hours, predictive_mae_hours, predictive_closer_share, better = 'PREDICTIVE'
		FROM eta_accuracy_comparison
		WHERE carrier IS NULL
		ORDER BY horizon_days`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var c Comparison
		if err := rows.Scan(&c.HorizonDays, &c.N, &c.CarrierBiasHours, &c.CarrierMAEHours,
			&c.PredictiveBiasHours, &c.PredictiveMAEHours, &c.PredictiveCloserShare, &c.PredictiveBetter); err != nil {
			return err
		}
		r.Comparison = append(r.Comparison, c)
	}
	return rows.Err()
}

// readErrors reads the errors behind the distribution chart from
// eta_accuracy.
func readErrors(ctx context.Context, db *sql.DB, r *Report) error {
	for _, s := range errorSamples {
		hs, err := errorHours(ctx, db, s.source, s.horizon)
		if err != nil {
			return err
		}
		r.Errors = append(r.Errors, ErrorSample{Source: s.source, HorizonDays: s.horizon, Hours: hs})
	}
	return nil
}

func errorHours(ctx context.Context, db *sql.DB, source string, horizon int) ([]float64, error) {
	rows, err := db.QueryContext(ctx, `
		SELECT error_hours FROM eta_accuracy
		WHERE target = 'POD' AND source = ? AND horizon_days = ? AND error_hours IS NOT NULL
		ORDER BY error_hours`, source, horizon)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []float64
	for rows.Next() {
		var e float64
		if err := rows.Scan(&e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
