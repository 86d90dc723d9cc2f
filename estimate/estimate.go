package estimate

import (
	"fmt"
	"math"
	"time"
)

// Row is the estimate of one observation.
type Row struct {
	Obs
	// HorizonDays is ETA − ObservedAt in days; Bucket its horizon bucket.
	HorizonDays float64
	Bucket      int
	// Estimate is the arrival etalake expects; SpreadH the standard
	// deviation of its error the model expects, hours, by which its past
	// errors are scaled.
	Estimate time.Time
	SpreadH  float64
	// Intervals is false when too few past errors of the estimate are
	// known to read intervals from; else Lo80…Hi95 bound them.
	Intervals              bool
	Lo80, Hi80, Lo95, Hi95 time.Time
	// PredictiveWeight is the weight the predictive ETA had (0: not used).
	PredictiveWeight float64
	// Level is the finest level learned from (lane, port, carrier, all,
	// none), Arrivals how many arrivals it had, Basis says all of it.
	Level    string
	Arrivals int
	Basis    string
}

// Estimate is the model's estimate of o: the carrier's ETA corrected by
// the error its carrier, port and lane have shown at its horizon, blended
// with the predictive ETA corrected likewise where the past errors of
// both say it helps, and the interval the estimate's own past errors give.
func (m *Model) Estimate(o Obs) Row {
	r := Row{Obs: o, HorizonDays: o.ETA.Sub(o.ObservedAt).Hours() / 24}
	r.Bucket = Bucket(r.HorizonDays)
	bm := &m.buckets[r.Bucket]
	bias, varC := m.carrierBias(bm, &r)
	est := hoursAfter(o.ETA, bias)
	spread := math.Sqrt(varC)
	if !o.Predictive.IsZero() {
		if w, pBias, v, ok := predictiveBlend(bm, o.Carrier, varC); ok {
			pEst := hoursAfter(o.Predictive, pBias)
			est = est + w*(pEst-est)
			spread = math.Sqrt(v)
			r.PredictiveWeight = w
		}
	}
	r.Estimate = toTime(est)
	if math.IsNaN(spread) {
		// Nothing known: no spread to scale the past errors by, and no
		// interval.
		r.SpreadH = math.NaN()
		return r
	}
	r.SpreadH = math.Max(spread, minSpreadH)
	qs := bm.q
	if qs == nil {
		qs = m.qAll
	}
	if qs != nil {
		r.Intervals = true
		r.Lo95, r.Lo80 = toTime(est+3600*r.SpreadH*qs[0]), toTime(est+3600*r.SpreadH*qs[1])
		r.Hi80, r.Hi95 = toTime(est+3600*r.SpreadH*qs[2]), toTime(est+3600*r.SpreadH*qs[3])
	}
	return r
}

// carrierBias is the expected error (actual − ETA, hours) of r's carrier
// ETA at its horizon and the variance of the error around it: the
// carrier's mean error shrunk towards none (the carrier's ETA as it is)
// by n/(n+shrink) of its weight of arrivals, then its port's and its
// lane's, each shrunk likewise towards the level before. A carrier none
// of whose arrivals is known at that horizon keeps its ETA, with all
// carriers' variance (level all). It says in r which level it reached.
//
// Towards none, not towards all carriers' mean: one carrier whose ETAs
// are pessimistic among optimistic ones (Wan Hai's) would be pulled the
// wrong way for as long as its own arrivals are few, and end worse than
// its own ETA (bench/estimate measured +8 h at 14 days), and a carrier
// not seen yet would take the others' habit (Hapag-Lloyd's estimates 3
// days out were 73 % further off than its own ETA in a 30-night demo);
// shrunk towards none, a carrier's estimate is never far from its own ETA
// until its own arrivals say so. On bench/estimate's worlds the others'
// mean had bought nothing measurable for the carriers not seen yet.
func (m *Model) carrierBias(bm *bucketModel, r *Row) (bias, variance float64) {
	r.Level, r.Basis = "none", "no arrival known at this horizon: the carrier's ETA as it is"
	if bm.all.n == 0 {
		return 0, math.NaN()
	}
	bias, variance = 0, bm.all.variance()
	r.Level, r.Arrivals = "all", bm.all.n
	counts := [4]int{bm.all.n}
	levels := []struct {
		name string
		m    *moments
	}{
		{"carrier", bm.carrier[r.Carrier]},
		{"port", bm.port[r.Carrier+"|"+r.Port]},
		{"lane", bm.lane[r.Carrier+"|"+r.Lane]},
	}
	for i, l := range levels {
		if l.m == nil || l.m.n == 0 {
			break
		}
		if i == 0 {
			bias = 0
		}
		bias = (l.m.s + shrink*bias) / (l.m.w + shrink)
		if i == 0 {
			variance = (l.m.w*l.m.variance() + shrink*variance) / (l.m.w + shrink)
		}
		counts[i+1] = l.m.n
		r.Level, r.Arrivals = l.name, l.m.n
	}
	r.Basis = fmt.Sprintf("%s: %d arrivals (carrier×lane %d, carrier×port %d, carrier %d, all %d)", r.Level, r.Arrivals, counts[3], counts[2], counts[1], counts[0])
	return bias, variance
}

// predictiveBlend is the weight the predictive ETA gets beside the
// carrier's corrected one (of error variance varC), its own bias, and the
// variance of the blend: the weight that minimises that variance given
// both sources' variances and their covariance, learned from the arrivals
// that had both, by carrier shrunk towards all carriers; with fewer than
// minPairs such arrivals, half and half. ok is false when it cannot say.
func predictiveBlend(bm *bucketModel, carrier string, varC float64) (w, bias, variance float64, ok bool) {
	all := &bm.pairs
	if all.c.n < minPairs {
		// Too few arrivals had both to weigh them by: the two halves
		// (forecasts combined with equal weights, the robust default
		// where weights cannot be estimated), its spread that of two
		// alike errors averaged.
		return 0.5, 0, varC / 2, true
	}
	if math.IsNaN(varC) {
		return 0, 0, 0, false
	}
	bias = all.p.mean()
	vp, cov := all.p.variance(), all.covariance()
	if cp := bm.cpairs[carrier]; cp != nil && cp.c.n > 0 {
		k := cp.c.w / (cp.c.w + shrink)
		bias = k*cp.p.mean() + (1-k)*bias
		vp = k*cp.p.variance() + (1-k)*vp
		cov = k*cp.covariance() + (1-k)*cov
	}
	den := varC + vp - 2*cov
	if den <= 0 {
		return 0, 0, 0, false
	}
	w = math.Min(math.Max((varC-cov)/den, 0), 1)
	variance = (1-w)*(1-w)*varC + w*w*vp + 2*w*(1-w)*cov
	return w, bias, math.Max(variance, 0), true
}

// quantiles are the weighted quantiles qs of xs (a copy is sorted).
func quantiles(xs []weighted, qs ...float64) []float64 {
	c := append([]weighted(nil), xs...)
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = quantile(c, q)
	}
	return out
}

// hoursAfter is t + h hours, as Unix seconds (a float, so that blends
// stay exact until toTime rounds them).
func hoursAfter(t time.Time, h float64) float64 {
	return float64(t.Unix()) + h*3600
}

// toTime rounds Unix seconds to the second.
func toTime(sec float64) time.Time {
	return time.Unix(int64(math.Round(sec)), 0).UTC()
}
