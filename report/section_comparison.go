package report

import (
	"fmt"
	"strings"
)

func (r *Report) comparisonSection() section {
	s := section{
		ID:    secComparison,
		Title: "Predictive ETA vs the carrier's ETA, all carriers",
		Intro: "The service's predictive ETA against the carrier's, on the same shipments: those with both usable " +
			"that many days before arrival, at the horizons where both exist by design. The predictive ETA is published " +
			"only while it promises arrival within 72 h, so 3 days or more before arrival it exists only for the " +
			"shipments it expects early, and would look better there for a reason of its own making: those horizons " +
			"are not compared.",
	}
	switch {
	case r.Span.Arrived == 0:
		s.Missing = sentence(missingArrivals)
		return s
	case len(r.Comparison) == 0:
		s.Missing = "No arrived shipment had both a carrier and a predictive ETA at a horizon where both exist by design."
		return s
	}
	t := &table{Cols: []column{{Name: "horizon", Right: true}, {Name: "shipments", Right: true}, {Name: "calls", Right: true},
		{Name: "carrier MAE", Right: true}, {Name: "pred. MAE", Right: true}, {Name: "difference", Right: true}, {Sub: true},
		{Name: "verdict"}}}
	var horizons []string
	for _, c := range r.Comparison {
		horizons = append(horizons, days(c.HorizonDays))
		t.Rows = append(t.Rows, []string{days(c.HorizonDays), count(c.N), count(c.NCalls), hours(c.CarrierMAEHours),
			hours(c.PredictiveMAEHours), signedHours(c.DiffHours), signedHoursCI(c.Diff), c.verdict()})
	}
	s.Intro += fmt.Sprintf(" Hence only %s here.", list(horizons))
	s.Table = t
	s.Notes = []string{fmt.Sprintf("pred.: the predictive ETA. MAE in hours; difference: the predictive MAE − the carrier's "+
		"(negative: the predictive ETA was closer), with its 95 %% interval clustered by vessel call. Verdict: closer only "+
		"when the interval excludes 0 (else no clear difference), and only with at least %d distinct vessel calls (else too few).",
		r.Rules.MinN)}
	for _, c := range r.Comparison {
		s.Notes = append(s.Notes, fmt.Sprintf("At %s, the bias (actual − ETA) was %s h for the carrier's ETA and %s h for "+
			"the predictive one, which was closer for %s of the shipments.", days(c.HorizonDays),
			signedHours(c.CarrierBiasHours), signedHours(c.PredictiveBiasHours), percent(c.PredictiveCloserShare)))
	}
	s.Notes = append(s.Notes, r.perCarrierVerdicts()...)
	return s
}

// perCarrierVerdicts sum up the comparison per carrier, a line per
// horizon: which carriers' shipments the predictive ETA was closer for,
// and so on.
func (r *Report) perCarrierVerdicts() []string {
	var out []string
	for _, h := range r.Comparison {
		by := map[string][]string{}
		for _, c := range r.ComparisonByCarrier {
			if c.HorizonDays == h.HorizonDays {
				by[c.verdict()] = append(by[c.verdict()], c.Carrier)
			}
		}
		var parts []string
		for _, v := range []string{"predictive closer", "carrier closer", "no clear difference", "too few"} {
			if len(by[v]) > 0 {
				parts = append(parts, v+" for "+strings.Join(by[v], ", "))
			}
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("Per carrier at %s: %s.", days(h.HorizonDays), strings.Join(parts, "; ")))
		}
	}
	return out
}
