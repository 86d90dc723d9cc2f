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
	N         int // arrived shipments with a usable ETA at the horizon
	Shipments int // arrived shipments, with a usable ETA or not
	// NCalls counts the distinct vessel calls the N shipments arrived on:
	// the independent draws, since the boxes of one call share its delay.
	NCalls int
	// NStale counts the shipments whose latest ETA at the horizon was
	// seen too long before it (Rules.MaxStalenessHours) to stand for it.
	NStale int
	// Enough: NCalls reaches Rules.MinN, the view's rule for ranking.
	Enough bool
	// Selective: the source exists at this horizon only for shipments it
	// chose by its own value (the predictive ETA 3 days out or more):
	// biased by construction, never a finding.
	Selective   bool
	BiasHours   float64
	BiasSEHours float64 // standard error, clustered by vessel call
	Bias        Interval
	MAEHours    float64 // mean absolute error
	MAESEHours  float64
	MAE         Interval
	P50AbsHours float64
	P90AbsHours float64
	// Within1DShare is the share of the N within ±24 h, 0 to 1.
	Within1DShare float64
	// MeanLeadHours is how long before the arrival the ETAs used were
	// seen, on average: at 1 day, 24 h plus the age of the ETA at the cut.
	MeanLeadHours float64
}

// CarrierAccuracy is the accuracy of one carrier's ETAs (Carrier: its SCAC
// code as the service reports it) and of the predictive ETAs of its
// shipments, at each horizon.
type CarrierAccuracy struct {
	Carrier string
	// Rank to RankWorst are the places the carrier may hold by the MAE of
	// its ETA at RankHorizon: from 1 plus the number of carriers clearly
	// better to the number ranked minus the number clearly worse (see
	// rank); 0 when it is not Enough there.
	Rank, RankWorst int
	ETA             map[int]Accuracy // the carrier's ETA, by horizon in days
	Predictive      map[int]Accuracy // the service's predictive ETA, by horizon
}

// Tied reports whether the carrier's places span more than one: the data
// do not tell it apart from the carriers whose places overlap.
func (c CarrierAccuracy) Tied() bool { return c.Rank > 0 && c.RankWorst > c.Rank }

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

// unknownCarrier names the rows of no carrier: a shipment or a port call
// the service gave no SCAC for.
const unknownCarrier = "(unknown)"

// readAccuracy reads the rows of eta_accuracy_summary per carrier and of
// every carrier together, of the carrier's and the predictive ETA only
// (etalake's own estimate, source ETALAKE, has a section of its own and
// is neither ranked nor charted with them); rankCarriers ranks them.
func readAccuracy(ctx context.Context, db *sql.DB, r *Report) error {
	rows, err := db.QueryContext(ctx, `
		SELECT level, carrier, source, horizon_days, selective, n, shipments, n_calls, n_stale, enough,
		       bias_hours, bias_se_hours, bias_lo_hours, bias_hi_hours,
		       mae_hours, mae_se_hours, mae_lo_hours, mae_hi_hours,
		       p50_abs_hours, p90_abs_hours, within_1d_share, mean_lead_hours
		FROM eta_accuracy_summary
		WHERE level IN ('carrier', 'all') AND source IN ('CARRIER', 'PREDICTIVE')`)
	if err != nil {
		return err
	}
	defer rows.Close()
	byCarrier := map[string]*CarrierAccuracy{}
	r.All = newCarrierAccuracy("")
	for rows.Next() {
		var level, source string
		var carrier sql.NullString
		var h int
		var a Accuracy
		var bias, biasSE, biasLo, biasHi, mae, maeSE, maeLo, maeHi, p50, p90, within, lead sql.NullFloat64
		if err := rows.Scan(&level, &carrier, &source, &h, &a.Selective, &a.N, &a.Shipments, &a.NCalls, &a.NStale, &a.Enough,
			&bias, &biasSE, &biasLo, &biasHi, &mae, &maeSE, &maeLo, &maeHi, &p50, &p90, &within, &lead); err != nil {
			return err
		}
		a.BiasHours, a.BiasSEHours, a.Bias = bias.Float64, biasSE.Float64, newInterval(biasLo, biasHi)
		a.MAEHours, a.MAESEHours, a.MAE = mae.Float64, maeSE.Float64, newInterval(maeLo, maeHi)
		a.P50AbsHours, a.P90AbsHours, a.Within1DShare, a.MeanLeadHours = p50.Float64, p90.Float64, within.Float64, lead.Float64
		c := &r.All
		if level == "carrier" {
			name := cmp.Or(carrier.String, unknownCarrier)
			if byCarrier[name] == nil {
				ca := newCarrierAccuracy(name)
				byCarrier[name] = &ca
			}
			c = byCarrier[name]
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
	// Every arrived shipment has a row at every horizon, ETA known or not.
	for _, a := range r.All.ETA {
		r.Span.Arrived = max(r.Span.Arrived, a.Shipments)
	}
	return nil
}

func newCarrierAccuracy(carrier string) CarrierAccuracy {
	return CarrierAccuracy{Carrier: carrier, ETA: map[int]Accuracy{}, Predictive: map[int]Accuracy{}}
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

// errorHours reads the usable errors of a source at a horizon, never
// those of a selective one: a chart of them would show a bias the source
// chose, not one it has.
func errorHours(ctx context.Context, db *sql.DB, source string, horizon int) ([]float64, error) {
	rows, err := db.QueryContext(ctx, `
		SELECT error_hours FROM eta_accuracy
		WHERE target = 'POD' AND source = ? AND horizon_days = ? AND error_hours IS NOT NULL AND NOT selective
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
