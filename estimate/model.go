package estimate

import (
	"math"
	"sort"
	"time"
)

// The model's constants. They were chosen on bench/estimate's worlds (see
// BENCHMARKS.md) and are the same for every warehouse: a setting per
// warehouse would let an analyst tune the estimate to the arrivals it is
// then judged on.
const (
	// Window is how far back the arrivals a day learns from reach: four
	// half-lives, past which an arrival weighs under 1/16.
	Window = 120 * day
	// HalfLife is the age at which an arrival weighs half as much as one
	// known today: carriers' biases drift over months.
	HalfLife = 30 * day
	// shrink is the number of arrivals at which a level's own mean weighs
	// as much as the coarser level's: a level of n arrivals moves the
	// estimate by n/(n+shrink) of its difference from the coarser one.
	shrink = 10.0
	// minPairs is the fewest arrivals with both the carrier's and the
	// predictive ETA at a horizon before the predictive ETA is used.
	minPairs = 5
	// minResiduals is the fewest past errors of the estimate itself at a
	// horizon from which its intervals are read (else all horizons'
	// errors, else no interval).
	minResiduals = 30
	// minSpreadH is the least spread an estimate is given, hours.
	minSpreadH = 0.5
	// clipMADs: an error further than this many (scaled) median absolute
	// deviations from its horizon's median is clipped there before it is
	// learned from, so that one rolled box does not move a carrier's mean:
	// with heavy tails the mean of what is left is nearer the median, the
	// correction that minimises the absolute error (2 beat 4, 2.5 and 1.5
	// on bench/estimate's world).
	clipMADs = 2.0

	day = 24 * time.Hour
)

// bucketEdges split the horizon of an observation — its ETA minus when it
// was observed, in days: what is known when it is estimated — into the
// buckets the errors are learned by. Bucket 0 is below the first edge.
var bucketEdges = []float64{0.5, 1.5, 2.5, 4, 6, 9, 12, 17, 24}

// buckets is how many horizon buckets there are.
var buckets = len(bucketEdges) + 1

// Bucket is the horizon bucket of an ETA days ahead.
func Bucket(days float64) int {
	return sort.SearchFloat64s(bucketEdges, math.Nextafter(days, math.Inf(1)))
}

// Key names one target of one shipment.
type Key struct {
	Shipment, Type, Target string
}

// Obs is one carrier ETA observed, with what the model reads of it.
type Obs struct {
	Key
	ObservedAt time.Time
	// Carrier is the shipment's SCAC; Port the target's UN/LOCODE as the
	// answer gave it; Lane POL-Port, the POL as that same answer gave it.
	Carrier, Port, Lane string
	ETA                 time.Time
	// Predictive is the service's predictive ETA of the same answer (zero:
	// none).
	Predictive time.Time
}

// Learned is what one arrival teaches at one horizon bucket: the errors,
// actual − estimate, of the latest carrier ETA observed that far before
// the arrival and before it was known (learn), of the predictive ETA of that same answer
// and of the estimate made of it.
type Learned struct {
	Key
	// KnownAt is when the arrival was first reported, ActualAt the arrival
	// it reported; WithdrawnAt when the carrier took it back (an estimate
	// again; zero: never): from the day after, it teaches nothing.
	KnownAt, ActualAt, WithdrawnAt time.Time
	Carrier, Port, Lane            string
	// Bucket is -1 for an arrival no ETA of which was observed: it is
	// recorded so that it is known, and teaches nothing.
	Bucket int
	// CarrierH is actual − carrier ETA, hours; PredictiveH actual −
	// predictive ETA (NaN: none); Own (actual − estimate) / spread of the
	// estimate (NaN: none).
	CarrierH, PredictiveH, Own float64
}

// moments are weighted sums: Σw, Σw·x, Σw·x², and the count of arrivals.
type moments struct {
	w, s, q float64
	n       int
}

func (m *moments) add(w, x float64) {
	m.w += w
	m.s += w * x
	m.q += w * x * x
	m.n++
}

func (m *moments) mean() float64 { return m.s / m.w }

// variance is the weighted variance around the weighted mean.
func (m *moments) variance() float64 {
	mu := m.mean()
	return math.Max(m.q/m.w-mu*mu, 0)
}

// pairs are the weighted sums of arrivals with both a carrier (c) and a
// predictive (p) error at a horizon.
type pairs struct {
	c, p moments
	cp   float64 // Σw·c·p
}

func (p *pairs) add(w, c, pr float64) {
	p.c.add(w, c)
	p.p.add(w, pr)
	p.cp += w * c * pr
}

func (p *pairs) covariance() float64 {
	return p.cp/p.c.w - p.c.mean()*p.p.mean()
}

// weighted is one past error of the estimate and its weight.
type weighted struct{ x, w float64 }

// bucketModel is what a horizon bucket has learned.
type bucketModel struct {
	all     moments
	carrier map[string]*moments
	port    map[string]*moments // carrier|port
	lane    map[string]*moments // carrier|lane
	pairs   pairs
	cpairs  map[string]*pairs // by carrier
	own     []weighted
	// q are the quantiles levels of own, read once (nil: too few of them).
	q []float64
}

// Model is what one UTC day's estimates learn from: the arrivals known in
// the Window before it.
type Model struct {
	buckets []bucketModel
	ownAll  []weighted
	qAll    []float64 // the quantiles levels of ownAll (nil: too few)
}

// levels are the quantiles of the estimate's past errors its intervals
// are read at: 95 % and 80 % central intervals.
var levels = []float64{0.025, 0.10, 0.90, 0.975}

// NewModel learns the model of the day that starts at day from learned,
// the arrivals known in [day − Window, day) and not withdrawn before it.
// It reads them in their order, so that the same arrivals give the same
// model bit for bit.
func NewModel(day time.Time, learned []Learned) *Model {
	return newModel(day, learned, nil)
}

// teaches says whether l is learned from on day, unless it is of the
// target without.
func (l *Learned) teaches(day time.Time, without *Key) bool {
	return l.Bucket >= 0 && l.KnownAt.Before(day) && (l.WithdrawnAt.IsZero() || !l.WithdrawnAt.Before(day)) &&
		(without == nil || l.Key != *without)
}

// newModel is NewModel without the arrivals of the target without (nil:
// none): an observation estimated after its own target's reported
// arrival was taken back learns not from that arrival.
func newModel(day time.Time, learned []Learned, without *Key) *Model {
	m := &Model{buckets: make([]bucketModel, buckets)}
	for b := range m.buckets {
		m.buckets[b] = bucketModel{carrier: map[string]*moments{}, port: map[string]*moments{}, lane: map[string]*moments{}, cpairs: map[string]*pairs{}}
	}
	clipC, clipP := clips(day, learned, without)
	for i := range learned {
		l := &learned[i]
		if !l.teaches(day, without) {
			continue
		}
		w := weight(day, l.KnownAt)
		bm := &m.buckets[l.Bucket]
		x := clipC[l.Bucket][l.Carrier].clip(l.CarrierH)
		bm.all.add(w, x)
		at(bm.carrier, l.Carrier).add(w, x)
		at(bm.port, l.Carrier+"|"+l.Port).add(w, x)
		at(bm.lane, l.Carrier+"|"+l.Lane).add(w, x)
		if !math.IsNaN(l.PredictiveH) {
			p := clipP[l.Bucket].clip(l.PredictiveH)
			bm.pairs.add(w, x, p)
			at(bm.cpairs, l.Carrier).add(w, x, p)
		}
		if !math.IsNaN(l.Own) {
			bm.own = append(bm.own, weighted{l.Own, w})
			m.ownAll = append(m.ownAll, weighted{l.Own, w})
		}
	}
	for b := range m.buckets {
		m.buckets[b].q = intervalQuantiles(m.buckets[b].own)
	}
	m.qAll = intervalQuantiles(m.ownAll)
	return m
}

// intervalQuantiles are the quantiles levels of the past errors own, or
// nil with fewer than minResiduals of them.
func intervalQuantiles(own []weighted) []float64 {
	if len(own) < minResiduals {
		return nil
	}
	return quantiles(own, levels...)
}

// at is m's value of k, made on first use.
func at[T any](m map[string]*T, k string) *T {
	v := m[k]
	if v == nil {
		v = new(T)
		m[k] = v
	}
	return v
}

// weight is how much an arrival known at known weighs on day.
func weight(day, known time.Time) float64 {
	return math.Exp2(-float64(day.Sub(known)) / float64(HalfLife))
}

// bounds are the least and the most error learned from as it is.
type bounds struct{ lo, hi float64 }

var unbounded = bounds{math.Inf(-1), math.Inf(1)}

func (b bounds) clip(x float64) float64 { return math.Min(math.Max(x, b.lo), b.hi) }

// around is med ± clipMADs scaled median absolute deviations of xs about
// it (unbounded without a spread).
func around(med float64, xs []weighted) bounds {
	dev := make([]weighted, len(xs))
	for i, v := range xs {
		dev[i] = weighted{math.Abs(v.x - med), v.w}
	}
	mad := 1.4826 * quantile(dev, 0.5)
	if mad <= 0 {
		return unbounded
	}
	return bounds{med - clipMADs*mad, med + clipMADs*mad}
}

// clips are, per bucket, the bounds of each carrier's errors — its own
// weighted median ± clipMADs of its own median absolute deviations, with
// all carriers' deviation while it has fewer than minResiduals arrivals,
// and all carriers' median while it has fewer than 3 — and of the
// predictive ETA's errors. A carrier's errors are clipped about its own
// centre: clipped about all carriers', an unlike carrier's errors would
// be clipped to look like the others'.
func clips(day time.Time, learned []Learned, without *Key) (carrier []map[string]bounds, predictive []bounds) {
	all := make([][]weighted, buckets)
	pred := make([][]weighted, buckets)
	by := make([]map[string][]weighted, buckets)
	for b := range by {
		by[b] = map[string][]weighted{}
	}
	for i := range learned {
		l := &learned[i]
		if !l.teaches(day, without) {
			continue
		}
		v := weighted{l.CarrierH, weight(day, l.KnownAt)}
		all[l.Bucket] = append(all[l.Bucket], v)
		by[l.Bucket][l.Carrier] = append(by[l.Bucket][l.Carrier], v)
		if !math.IsNaN(l.PredictiveH) {
			pred[l.Bucket] = append(pred[l.Bucket], weighted{l.PredictiveH, v.w})
		}
	}
	carrier, predictive = make([]map[string]bounds, buckets), make([]bounds, buckets)
	for b := range buckets {
		carrier[b], predictive[b] = map[string]bounds{}, unbounded
		if len(pred[b]) >= minResiduals {
			predictive[b] = around(quantile(pred[b], 0.5), pred[b])
		}
		global, med := unbounded, 0.0
		if len(all[b]) >= minResiduals {
			med = quantile(all[b], 0.5)
			global = around(med, all[b])
		}
		for c, xs := range by[b] {
			switch {
			case len(xs) >= minResiduals:
				carrier[b][c] = around(quantile(xs, 0.5), xs)
			case len(xs) >= 3 && !math.IsInf(global.lo, -1):
				half := (global.hi - global.lo) / 2
				own := quantile(xs, 0.5)
				carrier[b][c] = bounds{own - half, own + half}
			default:
				carrier[b][c] = global
			}
		}
	}
	return carrier, predictive
}

// quantile is the weighted q-quantile of xs (sorted in place): the least x
// whose cumulative weight reaches q of the whole.
func quantile(xs []weighted, q float64) float64 {
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].x < xs[j].x })
	total := 0.0
	for _, v := range xs {
		total += v.w
	}
	cum := 0.0
	for _, v := range xs {
		cum += v.w
		if cum >= q*total {
			return v.x
		}
	}
	return xs[len(xs)-1].x
}
