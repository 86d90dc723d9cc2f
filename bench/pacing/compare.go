package main

import (
	"math"
	"math/rand/v2"
	"sort"
)

// The acceptance, a policy against nightly on the same world.
const (
	maxCreditShare  = 0.50 // of nightly's credits
	maxInTransitUp  = 0.05 // in-transit error, relative to nightly's
	maxArrivalLater = 0.25 // days to see an arrival, more than nightly's
	maxExtraAge     = 0.75 // days, at each horizon
	maxCarrierDiff  = 0.5  // hours, each carrier at each horizon, either way
)

// horizonStat is one horizon of one policy, every carrier.
type horizonStat struct {
	Known, Usable int
	MAE           float64 // hours, over the usable
	// ExtraAge: over the shipments whose ETA at this horizon both the
	// policy and nightly knew (Paired), the mean of the policy's age less
	// nightly's, days; Age the policy's own mean age over its known.
	Paired        int
	Age, ExtraAge float64
}

// carrierStat is one carrier at one horizon: the policy's MAE and
// nightly's, each over its own usable ETAs, and what a paired bootstrap
// over shipments says of the difference.
type carrierStat struct {
	Carrier string
	Horizon int
	// N and NRef count the usable ETAs of the policy and of nightly;
	// Differ those shipments usable in both whose ETA used differs.
	N, NRef, Differ int
	MAE, MAERef     float64
	Diff            float64 // MAE − MAERef, hours
	// Lo, Hi: the 95 % interval of Diff from the bootstrap; SD its
	// standard deviation.
	Lo, Hi, SD float64
}

// comparison is a policy judged against nightly on one world.
type comparison struct {
	Policy      string
	CreditShare float64 // of nightly's
	InTransitUp float64 // (error − nightly's) / nightly's
	ArrivalDiff float64 // days
	Horizons    map[int]horizonStat
	Carriers    []carrierStat
	// Pooled is every carrier at once, per horizon, with its bootstrap.
	Pooled []carrierStat
	Fails  []string
}

// olderName names the calibration: nightly's own ETAs a night older.
const olderName = "nightly, a night older"

// older compares nightly's ETAs held a night before each cut with its
// ETAs at the cuts: how far each carrier's error moves when every ETA is
// exactly one night older, the scale against which ± 0.5 h is judged.
func older(ref *outcome, boot int) comparison {
	return comparison{
		Policy:   olderName,
		Horizons: horizonStats(ref.M.Older, ref.M.ETAs),
		Carriers: carrierStats(ref.M.Older, ref.M.ETAs, boot),
		Pooled:   carrierStats(pooled(ref.M.Older), pooled(ref.M.ETAs), boot),
	}
}

// stats sums one policy's horizon rows up (ExtraAge against ref; ref nil:
// the policy is nightly).
func horizonStats(rows, ref []etaRow) map[int]horizonStat {
	type key struct {
		ship string
		h    int
	}
	refAge := map[key]float64{}
	for _, r := range ref {
		if r.Known {
			refAge[key{r.Shipment, r.Horizon}] = r.AgeDays
		}
	}
	out := map[int]horizonStat{}
	sumErr, sumAge, sumExtra := map[int]float64{}, map[int]float64{}, map[int]float64{}
	for _, r := range rows {
		s := out[r.Horizon]
		if r.Known {
			s.Known++
			sumAge[r.Horizon] += r.AgeDays
			if a, ok := refAge[key{r.Shipment, r.Horizon}]; ok {
				s.Paired++
				sumExtra[r.Horizon] += r.AgeDays - a
			}
		}
		if r.Usable {
			s.Usable++
			sumErr[r.Horizon] += math.Abs(r.Error)
		}
		out[r.Horizon] = s
	}
	for h, s := range out {
		s.MAE = sumErr[h] / float64(max(s.Usable, 1))
		s.Age = sumAge[h] / float64(max(s.Known, 1))
		s.ExtraAge = sumExtra[h] / float64(max(s.Paired, 1))
		out[h] = s
	}
	return out
}

// compare judges o against nightly's outcome ref, with boot bootstrap
// draws per carrier and horizon.
func compare(o, ref *outcome, boot int) comparison {
	c := comparison{Policy: o.Trial.Policy.Name}
	c.CreditShare = float64(o.Charged) / float64(max(ref.Charged, 1))
	c.InTransitUp = (o.M.InTransit.MAE - ref.M.InTransit.MAE) / ref.M.InTransit.MAE
	c.ArrivalDiff = o.M.Arrivals.MeanDays - ref.M.Arrivals.MeanDays
	c.Horizons = horizonStats(o.M.ETAs, ref.M.ETAs)
	c.Carriers = carrierStats(o.M.ETAs, ref.M.ETAs, boot)
	c.Pooled = carrierStats(pooled(o.M.ETAs), pooled(ref.M.ETAs), boot)
	if c.CreditShare > maxCreditShare {
		c.Fails = append(c.Fails, "credits")
	}
	if c.InTransitUp > maxInTransitUp {
		c.Fails = append(c.Fails, "in-transit error")
	}
	if c.ArrivalDiff > maxArrivalLater {
		c.Fails = append(c.Fails, "days to see an arrival")
	}
	for _, h := range horizons {
		if c.Horizons[h].ExtraAge > maxExtraAge {
			c.Fails = append(c.Fails, "extra age at "+itoa(h)+" d")
		}
	}
	for _, cs := range c.Carriers {
		if math.Abs(cs.Diff) > maxCarrierDiff {
			c.Fails = append(c.Fails, "carrier error")
			break
		}
	}
	return c
}

// errorPair is a shipment's error under the policy (a) and under the
// reference (b), hours, each when usable.
type errorPair struct {
	a, b     float64
	okA, okB bool
}

// statKey is a carrier at a horizon.
type statKey struct {
	carrier string
	h       int
}

// carrierStats is each carrier's MAE at each horizon against ref's, with
// a paired bootstrap over shipments: a draw takes as many shipments as
// either policy has a usable ETA for, with replacement, and computes both
// MAEs over the same draw, each over the drawn shipments it has a usable
// ETA for.
func carrierStats(rows, ref []etaRow, boot int) []carrierStat {
	var out []carrierStat
	for k, ps := range pairErrors(rows, ref) {
		cs := carrierStat{Carrier: k.carrier, Horizon: k.h}
		cs.MAE, cs.MAERef, cs.N, cs.NRef = pairMAE(ps, func(i int) int { return i }, len(ps))
		cs.Diff = cs.MAE - cs.MAERef
		for _, p := range ps {
			if p.okA && p.okB && p.a != p.b {
				cs.Differ++
			}
		}
		if boot > 0 && len(ps) > 0 {
			cs.Lo, cs.Hi, cs.SD = bootstrapDiff(k, ps, boot)
		}
		out = append(out, cs)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Carrier != out[j].Carrier {
			return out[i].Carrier < out[j].Carrier
		}
		return out[i].Horizon < out[j].Horizon
	})
	return out
}

// pairErrors pairs the usable errors of rows (a) and ref (b) by carrier,
// horizon and shipment; each group's pairs ordered by shipment, so that a
// seeded bootstrap draws the same shipments every run.
func pairErrors(rows, ref []etaRow) map[statKey][]errorPair {
	groups := map[statKey]map[string]*errorPair{}
	add := func(r etaRow, mine bool) {
		if !r.Usable {
			return
		}
		k := statKey{r.Carrier, r.Horizon}
		if groups[k] == nil {
			groups[k] = map[string]*errorPair{}
		}
		p := groups[k][r.Shipment]
		if p == nil {
			p = &errorPair{}
			groups[k][r.Shipment] = p
		}
		if mine {
			p.a, p.okA = r.Error, true
		} else {
			p.b, p.okB = r.Error, true
		}
	}
	for _, r := range rows {
		add(r, true)
	}
	for _, r := range ref {
		add(r, false)
	}
	out := make(map[statKey][]errorPair, len(groups))
	for k, g := range groups {
		ships := make([]string, 0, len(g))
		for s := range g {
			ships = append(ships, s)
		}
		sort.Strings(ships)
		ps := make([]errorPair, len(ships))
		for i, s := range ships {
			ps[i] = *g[s]
		}
		out[k] = ps
	}
	return out
}

// pairMAE is the MAE of each side over the n pairs idx(0) … idx(n-1), and
// how many of them each side has.
func pairMAE(ps []errorPair, idx func(int) int, n int) (maeA, maeB float64, na, nb int) {
	var sa, sb float64
	for i := range n {
		p := ps[idx(i)]
		if p.okA {
			sa += math.Abs(p.a)
			na++
		}
		if p.okB {
			sb += math.Abs(p.b)
			nb++
		}
	}
	return sa / float64(max(na, 1)), sb / float64(max(nb, 1)), na, nb
}

// bootstrapDiff is the 95 % interval and the standard deviation of the
// difference of MAEs over boot paired draws of the group's shipments.
func bootstrapDiff(k statKey, ps []errorPair, boot int) (lo, hi, sd float64) {
	// Seeded by the group, so that a report is the same every run.
	rng := rand.New(rand.NewPCG(uint64(k.h), hashString(k.carrier)))
	diffs := make([]float64, boot)
	draw := make([]int, len(ps))
	for b := range boot {
		for i := range draw {
			draw[i] = rng.IntN(len(ps))
		}
		a, r, _, _ := pairMAE(ps, func(i int) int { return draw[i] }, len(draw))
		diffs[b] = a - r
	}
	sort.Float64s(diffs)
	return quantile(diffs, 0.025), quantile(diffs, 0.975), stddev(diffs)
}

// pooled is rows with every carrier named allCarriers.
func pooled(rows []etaRow) []etaRow {
	out := make([]etaRow, len(rows))
	for i, r := range rows {
		r.Carrier = allCarriers
		out[i] = r
	}
	return out
}

const allCarriers = "all"

// quantile of sorted xs at q, interpolated.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	f := pos - float64(i)
	return xs[i]*(1-f) + xs[i+1]*f
}

func stddev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)-1))
}

// hashString is FNV-1a, to seed a group's draws by its name.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
