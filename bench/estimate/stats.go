package main

import (
	"math"
	"sort"
)

// row is one shipment target at one horizon where etalake's estimate and
// the carrier's ETA are both usable: their errors (actual − estimate,
// hours), the predictive ETA's where usable, whether the actual fell in
// the estimate's intervals, and how many arrivals of its carrier at that
// horizon the estimate had learned from.
type row struct {
	carrier                 string
	horizon                 int
	call                    string // seed and vessel call: the cluster
	mine, carrierErr        float64
	predictive              float64
	hasPredictive           bool
	hasInterval, in80, in95 bool
	learned                 int
}

// mean is a mean with its 95 % interval clustered by vessel call.
type mean struct {
	n, calls  int
	m, lo, hi float64
	ok        bool // at least 2 calls
}

// clusteredMean is the mean of f over rows (those f accepts) and its
// cluster-robust (CR1) interval, t with calls − 1 degrees of freedom: the
// rule of the warehouse's views (etalake_cluster_se, etalake_t975).
func clusteredMean(rows []row, f func(row) (float64, bool)) mean {
	type cl struct{ s, n float64 }
	cls := map[string]*cl{}
	var sum float64
	var n int
	for _, r := range rows {
		x, ok := f(r)
		if !ok {
			continue
		}
		c := cls[r.call]
		if c == nil {
			c = &cl{}
			cls[r.call] = c
		}
		c.s += x
		c.n++
		sum += x
		n++
	}
	out := mean{n: n, calls: len(cls)}
	if n == 0 {
		return out
	}
	out.m = sum / float64(n)
	g := float64(len(cls))
	if len(cls) < 2 {
		out.lo, out.hi = math.NaN(), math.NaN()
		return out
	}
	var ss float64
	for _, c := range cls {
		d := c.s - c.n*out.m
		ss += d * d
	}
	se := math.Sqrt(g/(g-1)*ss) / float64(n)
	t := t975(g - 1)
	out.lo, out.hi, out.ok = out.m-t*se, out.m+t*se, true
	return out
}

// t975 is the 97.5 % quantile of Student's t with df degrees of freedom
// (the warehouse's etalake_t975).
func t975(df float64) float64 {
	table := []float64{12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
		2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
		2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423}
	if df <= 30 {
		return table[int(df)-1]
	}
	return 1.959964 + 2.372271/df + 2.822499/(df*df) + 2.555850/(df*df*df)
}

// share is a share with Wilson's 95 % interval over the calls (an
// effective n: the boxes of a call share its delay).
type share struct {
	n, calls  int
	p, lo, hi float64
}

func shareOf(rows []row, in func(row) (bool, bool)) share {
	calls := map[string]bool{}
	var hit, n int
	for _, r := range rows {
		x, ok := in(r)
		if !ok {
			continue
		}
		n++
		calls[r.call] = true
		if x {
			hit++
		}
	}
	s := share{n: n, calls: len(calls)}
	if n == 0 {
		return s
	}
	s.p = float64(hit) / float64(n)
	s.lo, s.hi = wilson(s.p, float64(len(calls)), 1.959964)
	return s
}

func wilson(p, n, z float64) (lo, hi float64) {
	c := (p + z*z/(2*n)) / (1 + z*z/n)
	h := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / (1 + z*z/n)
	return math.Max(0, c-h), math.Min(1, c+h)
}

func horizons(rows []row) []int {
	seen := map[int]bool{}
	for _, r := range rows {
		seen[r.horizon] = true
	}
	var out []int
	for h := range seen {
		out = append(out, h)
	}
	sort.Ints(out)
	return out
}

func at(rows []row, keep func(row) bool) []row {
	var out []row
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}
