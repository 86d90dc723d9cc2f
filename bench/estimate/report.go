package main

import (
	"fmt"
	"io"
	"math"
	"sort"

	"github.com/etalake/etalake/sim"
)

// horizonResult is one horizon of one world, pooled over its seeds.
type horizonResult struct {
	h                        int
	rows                     []row
	carrier, predictive, own mean // MAEs: the carrier's and etalake's on every row, the predictive's on its rows
	ownOnPredictive          mean // etalake's MAE on the predictive's rows
	best                     string
	diff                     mean    // etalake − best, hours, on the best's rows
	bestMAE                  float64 // the best's MAE on its rows
	cover80, cover95         share
}

func abs(f func(row) float64) func(row) (float64, bool) {
	return func(r row) (float64, bool) { return math.Abs(f(r)), true }
}

func evaluate(rows []row, h int) horizonResult {
	rs := at(rows, func(r row) bool { return r.horizon == h })
	res := horizonResult{h: h, rows: rs}
	res.carrier = clusteredMean(rs, abs(func(r row) float64 { return r.carrierErr }))
	res.own = clusteredMean(rs, abs(func(r row) float64 { return r.mine }))
	withP := func(f func(row) float64) func(row) (float64, bool) {
		return func(r row) (float64, bool) { return math.Abs(f(r)), r.hasPredictive }
	}
	res.predictive = clusteredMean(rs, withP(func(r row) float64 { return r.predictive }))
	res.ownOnPredictive = clusteredMean(rs, withP(func(r row) float64 { return r.mine }))
	// The best source: the predictive ETA where it is closer than the
	// carrier's on the rows that have both.
	carrierOnP := clusteredMean(rs, withP(func(r row) float64 { return r.carrierErr }))
	res.best, res.bestMAE = "CARRIER", res.carrier.m
	res.diff = clusteredMean(rs, func(r row) (float64, bool) { return math.Abs(r.mine) - math.Abs(r.carrierErr), true })
	if res.predictive.n > 0 && res.predictive.m < carrierOnP.m {
		res.best, res.bestMAE = "PREDICTIVE", res.predictive.m
		res.diff = clusteredMean(rs, func(r row) (float64, bool) { return math.Abs(r.mine) - math.Abs(r.predictive), r.hasPredictive })
	}
	res.cover80 = shareOf(rs, func(r row) (bool, bool) { return r.in80, r.hasInterval })
	res.cover95 = shareOf(rs, func(r row) (bool, bool) { return r.in95, r.hasInterval })
	return res
}

func pct(m mean, base float64) (p, lo, hi float64) {
	return 100 * m.m / base, 100 * m.lo / base, 100 * m.hi / base
}

func report(w io.Writer, name string, e sim.ETAErrors, rows []row) {
	fmt.Fprintf(w, "## %s: lane bias %g h, drift %g h / 30 days, tails %s, predictive bias %g h, gaps %g\n\n",
		name, e.LaneBiasH, e.DriftH, tails(e.TailsDF), e.PredictiveBiasH, e.PredictiveGaps)
	fmt.Fprintln(w, "| horizon | rows | calls | carrier MAE h | predictive MAE h (rows) | etalake MAE h | best | etalake − best | 80 % covers | 95 % covers |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	var results []horizonResult
	for _, h := range horizons(rows) {
		r := evaluate(rows, h)
		results = append(results, r)
		pm := "—"
		if r.predictive.n > 0 {
			pm = fmt.Sprintf("%.2f (%d)", r.predictive.m, r.predictive.n)
		}
		p, lo, hi := pct(r.diff, r.bestMAE)
		fmt.Fprintf(w, "| %d d | %d | %d | %.2f | %s | %.2f | %s | %+.2f h (%+.1f %% [%+.1f, %+.1f]) | %.1f %% [%.1f, %.1f] | %.1f %% [%.1f, %.1f] |\n",
			h, r.carrier.n, r.carrier.calls, r.carrier.m, pm, r.own.m, r.best, r.diff.m, p, lo, hi,
			100*r.cover80.p, 100*r.cover80.lo, 100*r.cover80.hi, 100*r.cover95.p, 100*r.cover95.lo, 100*r.cover95.hi)
	}
	fmt.Fprintln(w)
	byCarrier(w, rows)
	learning(w, rows)
	acceptance(w, results, rows)
}

func tails(df float64) string {
	if df == 0 {
		return "normal"
	}
	return fmt.Sprintf("t(%g)", df)
}

// byCarrier prints, per carrier and horizon with at least 10 rows, the
// estimate's MAE minus the carrier's own, hours, with its interval.
func byCarrier(w io.Writer, rows []row) {
	hs := horizons(rows)
	carriers := map[string]bool{}
	for _, r := range rows {
		carriers[r.carrier] = true
	}
	var names []string
	for c := range carriers {
		names = append(names, c)
	}
	sort.Strings(names)
	fmt.Fprint(w, "etalake's MAE − the carrier's own, hours [95 %], carriers with at least 10 rows at a horizon:\n\n| carrier |")
	for _, h := range hs {
		fmt.Fprintf(w, " %d d |", h)
	}
	fmt.Fprint(w, "\n|---|")
	for range hs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, c := range names {
		fmt.Fprintf(w, "| %s |", c)
		for _, h := range hs {
			m := carrierDiff(rows, c, h)
			if m.n < 10 {
				fmt.Fprint(w, " — |")
				continue
			}
			fmt.Fprintf(w, " %+.1f [%+.1f, %+.1f] (%d) |", m.m, m.lo, m.hi, m.n)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

func carrierDiff(rows []row, c string, h int) mean {
	return clusteredMean(rows, func(r row) (float64, bool) {
		return math.Abs(r.mine) - math.Abs(r.carrierErr), r.carrier == c && r.horizon == h
	})
}

// learningBins are the arrivals of a carrier at a horizon the estimate
// had learned from.
var learningBins = []struct {
	lo, hi int
}{{0, 0}, {1, 4}, {5, 9}, {10, 19}, {20, 49}, {50, 99}, {100, math.MaxInt}}

// learning prints how the difference from the carrier's ETA goes with
// the arrivals learned from: how many the estimate needs before it helps.
func learning(w io.Writer, rows []row) {
	fmt.Fprintln(w, "etalake's MAE − the carrier's, by the arrivals of that carrier at that horizon it had learned from (every horizon):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| arrivals learned | rows | MAE − carrier's, h [95 %] |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, b := range learningBins {
		m := clusteredMean(rows, func(r row) (float64, bool) {
			return math.Abs(r.mine) - math.Abs(r.carrierErr), r.learned >= b.lo && r.learned <= b.hi
		})
		label := fmt.Sprintf("%d–%d", b.lo, b.hi)
		if b.hi == math.MaxInt {
			label = fmt.Sprintf("%d or more", b.lo)
		} else if b.lo == b.hi {
			label = fmt.Sprint(b.lo)
		}
		if m.n == 0 {
			fmt.Fprintf(w, "| %s | 0 | — |\n", label)
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %+.2f [%+.2f, %+.2f] |\n", label, m.n, m.m, m.lo, m.hi)
	}
	fmt.Fprintln(w)
}

// acceptance prints the acceptance, each line PASS or FAIL.
func acceptance(w io.Writer, results []horizonResult, rows []row) {
	fmt.Fprintln(w, "Acceptance (issue 43):")
	fmt.Fprintln(w)
	verdict := func(ok bool) string {
		if ok {
			return "PASS"
		}
		return "FAIL"
	}
	for _, r := range results {
		p, _, _ := pct(r.diff, r.bestMAE)
		switch r.h {
		case 1:
			fmt.Fprintf(w, "- %s 1 d: within 0.25 h of the best source (%s): %+.2f h\n", verdict(r.diff.m <= 0.25), r.best, r.diff.m)
		default:
			fmt.Fprintf(w, "- %s %d d: at least 10 %% below the best source (%s), interval excluding 0: %+.1f %%, [%+.2f, %+.2f] h\n",
				verdict(p <= -10 && r.diff.hi < 0), r.h, r.best, p, r.diff.lo, r.diff.hi)
		}
		fmt.Fprintf(w, "- %s %d d: 80 %% intervals cover 75–85 %%: %.1f %%; 95 %% intervals cover 92–98 %%: %.1f %%\n",
			verdict(r.cover80.p >= 0.75 && r.cover80.p <= 0.85 && r.cover95.p >= 0.92 && r.cover95.p <= 0.98), r.h, 100*r.cover80.p, 100*r.cover95.p)
	}
	var worse []string
	carriers := map[string]bool{}
	for _, r := range rows {
		carriers[r.carrier] = true
	}
	checked := 0
	for c := range carriers {
		for _, r := range results {
			m := carrierDiff(rows, c, r.h)
			if m.n < 10 || !m.ok {
				continue
			}
			checked++
			if m.lo > 0.5 {
				worse = append(worse, fmt.Sprintf("%s at %d d: [%+.2f, %+.2f] h", c, r.h, m.lo, m.hi))
			}
		}
	}
	sort.Strings(worse)
	fmt.Fprintf(w, "- %s no carrier with at least 10 rows at a horizon has its interval wholly above +0.5 h (%d carrier × horizons checked)", verdict(len(worse) == 0), checked)
	if len(worse) > 0 {
		fmt.Fprintf(w, ": %v", worse)
	}
	fmt.Fprint(w, "\n\n")
}
