package estimate

import (
	"math"
	"time"
)

// Arrival is a target's arrival as the warehouse first knew it: the first
// actual the carrier reported for it (again, after it took one back).
type Arrival struct {
	Key
	KnownAt, ActualAt time.Time
}

// learn is what arrival a teaches: for each horizon bucket, the errors of
// the latest of rows (its estimates, any order) observed before the
// arrival was known. An arrival none of whose ETAs was observed gives one
// row of bucket -1, so that it is recorded as known.
func learn(a Arrival, rows []Row) []Learned {
	latest := map[int]*Row{}
	for i := range rows {
		r := &rows[i]
		if !r.ObservedAt.Before(a.KnownAt) {
			continue
		}
		if l := latest[r.Bucket]; l == nil || r.ObservedAt.After(l.ObservedAt) {
			latest[r.Bucket] = r
		}
	}
	var out []Learned
	for b := range buckets {
		r := latest[b]
		if r == nil {
			continue
		}
		l := Learned{
			Key: a.Key, KnownAt: a.KnownAt, ActualAt: a.ActualAt, Carrier: r.Carrier, Port: r.Port, Lane: r.Lane, Bucket: b,
			CarrierH: a.ActualAt.Sub(r.ETA).Hours(), PredictiveH: math.NaN(),
			Own: a.ActualAt.Sub(r.Estimate).Hours() / r.SpreadH,
		}
		if !r.Predictive.IsZero() {
			l.PredictiveH = a.ActualAt.Sub(r.Predictive).Hours()
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		out = append(out, Learned{Key: a.Key, KnownAt: a.KnownAt, ActualAt: a.ActualAt, Bucket: -1, CarrierH: math.NaN(), PredictiveH: math.NaN(), Own: math.NaN()})
	}
	return out
}
