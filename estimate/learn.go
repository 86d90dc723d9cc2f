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
// the latest of rows (its estimates, any order) observed that far before
// the arrival (actual − observed, as eta_accuracy picks the ETA it judges)
// and before the arrival was known. Not the bucket of the ETA's own
// distance (ETA − observed, by which an ETA is corrected): the latest ETA
// of that bucket is the one whose error kept it inside, so a late
// carrier's worst misses would fall out of the bucket's near end and its
// correction come out too small (BENCHMARKS.md: 3 days 8.4 % better than
// the carrier's ETA that way, 9.1 % this way). An arrival none of whose ETAs was observed gives one
// row of bucket -1, so that it is recorded as known.
func learn(a Arrival, rows []Row) []Learned {
	latest := map[int]*Row{}
	for i := range rows {
		r := &rows[i]
		if !r.ObservedAt.Before(a.KnownAt) {
			continue
		}
		b := Bucket(a.ActualAt.Sub(r.ObservedAt).Hours() / 24)
		if l := latest[b]; l == nil || r.ObservedAt.After(l.ObservedAt) {
			latest[b] = r
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
