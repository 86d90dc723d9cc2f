package report

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
)

// The carriers are ranked by the MAE of their ETA at RankHorizon, but a
// difference of MAEs smaller than its own uncertainty is no ranking: two
// carriers whose intervals overlap that much share a place rather than
// being ordered by chance.
//
// a is clearly better than b when MAE_b − MAE_a > t·√(se_a² + se_b²): the
// difference exceeds its 95 % margin, se being each MAE's standard error
// clustered by vessel call and t the 97.5 % quantile of Student's t with
// min(calls_a, calls_b) − 1 degrees of freedom (the smaller sample sets
// the uncertainty; the views use the same t for their intervals). A
// carrier's rank is a range: from 1 plus the number of carriers clearly
// better than it to the number ranked minus the number clearly worse.
// Carriers that nothing separates have overlapping ranges, and the list,
// ordered by MAE, never puts a carrier above one it is not better than
// for a rank it owes to a wide interval.
//
// It asks less than disjoint intervals, which would need the difference
// to exceed t·(se_a + se_b): the two MAEs are taken as independent. When
// two carriers share vessels (an alliance), their errors move together
// and the true margin is smaller, so the rule errs towards a tie.

// rankCarriers ranks r.Carriers, reading from the warehouse the t
// quantiles the pairs of ranked carriers need.
func rankCarriers(ctx context.Context, db *sql.DB, r *Report) error {
	var dfs []int
	for _, a := range r.Carriers {
		for _, b := range r.Carriers {
			if ea, eb := a.ETA[RankHorizon], b.ETA[RankHorizon]; ea.Enough && eb.Enough {
				dfs = append(dfs, min(ea.NCalls, eb.NCalls)-1)
			}
		}
	}
	ts, err := tQuantiles(ctx, db, dfs)
	if err != nil {
		return err
	}
	rank(r.Carriers, func(df int) float64 {
		if t, ok := ts[df]; ok {
			return t
		}
		return math.NaN()
	})
	return nil
}

// clearlyBetter reports whether the ETA a was clearly more accurate than
// b, t being the quantile for their degrees of freedom. An unknown t or
// standard error (NaN) separates nothing.
func clearlyBetter(a, b Accuracy, t float64) bool {
	return b.MAEHours-a.MAEHours > t*math.Hypot(a.MAESEHours, b.MAESEHours)
}

// rank gives the carriers Enough at RankHorizon (the view's rule on
// distinct vessel calls) their range of places and orders them: the
// ranked first, by MAE; then the others, those without any ETA there
// last, by MAE. t gives the 97.5 % quantile of Student's t for df degrees
// of freedom.
func rank(cs []CarrierAccuracy, t func(df int) float64) {
	ranked := 0
	for _, c := range cs {
		if c.ETA[RankHorizon].Enough {
			ranked++
		}
	}
	for i := range cs {
		cs[i].Rank, cs[i].RankWorst = 0, 0
		a := cs[i].ETA[RankHorizon]
		if !a.Enough {
			continue
		}
		better, worse := 0, 0
		for j := range cs {
			b := cs[j].ETA[RankHorizon]
			if j == i || !b.Enough {
				continue
			}
			tq := t(min(a.NCalls, b.NCalls) - 1)
			if clearlyBetter(b, a, tq) {
				better++
			}
			if clearlyBetter(a, b, tq) {
				worse++
			}
		}
		cs[i].Rank, cs[i].RankWorst = 1+better, ranked-worse
	}
	slices.SortFunc(cs, func(a, b CarrierAccuracy) int {
		ea, eb := a.ETA[RankHorizon], b.ETA[RankHorizon]
		if c := -cmp.Compare(b2i(a.Rank > 0), b2i(b.Rank > 0)); c != 0 {
			return c
		}
		if c := -cmp.Compare(b2i(ea.N > 0), b2i(eb.N > 0)); c != 0 {
			return c
		}
		if c := cmp.Compare(ea.MAEHours, eb.MAEHours); c != 0 {
			return c
		}
		if c := -cmp.Compare(ea.NCalls, eb.NCalls); c != 0 {
			return c
		}
		return cmp.Compare(a.Carrier, b.Carrier)
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
