package jobs

import (
	"math"
	"time"

	"github.com/etalake/etalake/load"
)

// etaModel is how fast a carrier's ETA at the port of discharge moves, in
// hours of change per day elapsed, by tier of days to arrival: the mean
// absolute change between consecutive observations in eta_observations
// over the last modelHistory, summed change over summed days. A carrier
// with fewer than modelMinPairs pairs in a tier takes every carrier's
// rate of that tier; a tier with too few pairs altogether, modelFallback.
// The pace ranks by it (candidate.value): what the next answer is
// expected to change, not how old the last one is.
type etaModel struct {
	r         Refresh
	byCarrier map[string][]changeRate
	all       []changeRate
}

// changeRate sums the consecutive observations of one tier.
type changeRate struct {
	pairs       int
	hours, days float64
}

const (
	// modelHistory: the ETAs of the last three months say how carriers
	// revise now.
	modelHistory = 90 * 24 * time.Hour
	// modelMinPairs: fewer pairs say more about the shipments than
	// about the carrier.
	modelMinPairs = 20
	// modelFallback, in hours a day, ranks by nights unasked and
	// nearness alone when the warehouse has no history yet.
	modelFallback = 1.0
)

// newETAModel learns the model from the warehouse's ETA history.
func newETAModel(r Refresh, changes []load.ETAChange) etaModel {
	m := etaModel{r: r, byCarrier: map[string][]changeRate{}, all: make([]changeRate, len(r.Tiers))}
	for _, c := range changes {
		i := m.tier(float64(c.Days) + 0.5) // the middle of that whole day
		rates, ok := m.byCarrier[c.Carrier]
		if !ok {
			rates = make([]changeRate, len(r.Tiers))
			m.byCarrier[c.Carrier] = rates
		}
		for _, into := range []*changeRate{&rates[i], &m.all[i]} {
			into.pairs += c.Pairs
			into.hours += c.AbsHours
			into.days += c.Elapsed
		}
	}
	return m
}

// tier is the index of the tier of an ETA days away (past: the first).
func (m etaModel) tier(days float64) int {
	for i, t := range m.r.Tiers {
		if t.Within == 0 || days <= float64(t.Within) {
			return i
		}
	}
	return len(m.r.Tiers) - 1
}

// perDay is the expected change of carrier's ETA, in hours a day, for an
// ETA days away.
func (m etaModel) perDay(carrier string, days float64) float64 {
	i := m.tier(days)
	if rates, ok := m.byCarrier[carrier]; ok && rates[i].pairs >= modelMinPairs && rates[i].days > 0 {
		return rates[i].hours / rates[i].days
	}
	if m.all[i].pairs >= modelMinPairs && m.all[i].days > 0 {
		return m.all[i].hours / m.all[i].days
	}
	return modelFallback
}

// value is what asking c is worth: the change of its ETA expected since
// its last answer (perDay × the nights since), per day left until that
// ETA (at least one): an hour of change a day before arrival is worth
// what ten are ten days before. A shipment without an ETA held (at its
// POD, or none given) counts as a day away.
func (m etaModel) value(c candidate) float64 {
	days := c.due.DaysToETA
	if math.IsNaN(days) {
		days = 1
	}
	return m.perDay(c.t.Carrier, days) * float64(max(c.due.Nights, 1)) / math.Max(days, 1)
}
