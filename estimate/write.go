package estimate

import (
	"context"
	"database/sql"
	"math"
	"strings"
	"time"
)

// batch is how many rows one INSERT writes.
const batch = 500

// writer inserts the rows of an Update in batches of many rows per
// statement: a statement per row would cost more than the model.
type writer struct {
	conn               *sql.Conn
	est, learnt        []any
	nEst, nLearnt      int
	estimates, learned int
}

const (
	estimateInsert = "INSERT INTO arrival_estimates (shipment_number, shipment_type, target, observed_at, carrier, locode, lane, eta, predictive_eta, horizon_days, estimate_at, lo_80, hi_80, lo_95, hi_95, spread_hours, predictive_weight, basis_level, basis_arrivals, basis) VALUES "
	estimateCols   = 20
	learnInsert    = "INSERT INTO arrival_learning (shipment_number, shipment_type, target, known_at, actual_at, withdrawn_at, carrier, locode, lane, bucket, carrier_error_hours, predictive_error_hours, estimate_error_spreads) VALUES "
	learnCols      = 13
)

func (w *writer) estimate(ctx context.Context, r Row) error {
	var lo80, hi80, lo95, hi95 any
	if r.Intervals {
		lo80, hi80, lo95, hi95 = r.Lo80, r.Hi80, r.Lo95, r.Hi95
	}
	w.est = append(w.est, r.Shipment, r.Type, r.Target, r.ObservedAt, r.Carrier, r.Port, r.Lane, r.ETA, timeOrNil(r.Predictive),
		r.HorizonDays, r.Estimate, lo80, hi80, lo95, hi95, floatOrNil(r.SpreadH), r.PredictiveWeight, r.Level, r.Arrivals, r.Basis)
	w.nEst++
	w.estimates++
	if w.nEst == batch {
		return w.flushEstimates(ctx)
	}
	return nil
}

func (w *writer) learn(ctx context.Context, l Learned) error {
	var bucket any
	if l.Bucket >= 0 {
		bucket = l.Bucket
	}
	w.learnt = append(w.learnt, l.Shipment, l.Type, l.Target, l.KnownAt, l.ActualAt, timeOrNil(l.WithdrawnAt), nilIfEmpty(l.Carrier), nilIfEmpty(l.Port), nilIfEmpty(l.Lane),
		bucket, floatOrNil(l.CarrierH), floatOrNil(l.PredictiveH), floatOrNil(l.Own))
	w.nLearnt++
	w.learned++
	if w.nLearnt == batch {
		return w.flushLearned(ctx)
	}
	return nil
}

func (w *writer) flushEstimates(ctx context.Context) error {
	err := w.insert(ctx, estimateInsert, estimateCols, w.nEst, w.est)
	w.est, w.nEst = w.est[:0], 0
	return err
}

func (w *writer) flushLearned(ctx context.Context) error {
	err := w.insert(ctx, learnInsert, learnCols, w.nLearnt, w.learnt)
	w.learnt, w.nLearnt = w.learnt[:0], 0
	return err
}

func (w *writer) insert(ctx context.Context, head string, cols, n int, args []any) error {
	if n == 0 {
		return nil
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	q := head + strings.TrimSuffix(strings.Repeat(row+", ", n), ", ")
	_, err := w.conn.ExecContext(ctx, q, args...)
	return err
}

// flush writes what is left.
func (w *writer) flush(ctx context.Context) error {
	if err := w.flushEstimates(ctx); err != nil {
		return err
	}
	return w.flushLearned(ctx)
}

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func floatOrNil(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
