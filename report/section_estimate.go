package report

import (
	"fmt"
	"strings"
	"time"
)

// The sections of etalake's own arrival estimate: how it did against the
// carrier's and the predictive ETA, all carriers and by carrier, and what
// it expects in the coming days.

func (r *Report) estimateSection() section {
	s := section{
		ID:    secEstimate,
		Title: "etalake's estimate against the carriers' and the service's ETA",
		Intro: "etalake's own arrival estimate, made of each carrier ETA from the arrivals known before the day it was " +
			"observed, against the carrier's ETA it was made of and, 1 day before arrival, the service's predictive ETA, " +
			"on the same shipments: those with both usable that many days before arrival, all carriers. Further out the " +
			"predictive ETA exists only for the shipments it expects early: it is not compared there.",
	}
	switch {
	case r.Span.Arrived == 0:
		s.Missing = sentence(missingArrivals)
		return s
	case len(r.Estimate) == 0:
		s.Missing = "No arrived shipment had etalake's estimate and another ETA usable at the same horizon yet."
		return s
	}
	t := &table{Cols: []column{{Name: "horizon", Right: true}, {Name: "against"}, {Name: "shipments", Right: true},
		{Name: "calls", Right: true}, {Name: "etalake", Right: true}, {Name: "other", Right: true},
		{Name: "difference", Right: true}, {Sub: true}, {Name: "verdict"}}}
	for _, e := range r.Estimate {
		t.Rows = append(t.Rows, []string{days(e.HorizonDays), versusName(e.Versus), count(e.N), count(e.NCalls),
			hours(e.MAEHours), hours(e.OtherMAEHours), signedPercent(e.DiffPct), signedPercentCI(e.DiffPctCI), e.verdict()})
	}
	s.Table = t
	s.Notes = []string{fmt.Sprintf("against: the carrier's ETA, or the predictive one (pred.); etalake, other: the mean absolute error "+
		"(MAE) of etalake's estimate and of the other ETA on those shipments, hours. difference: etalake's MAE − the other's, "+
		"as a share of the other's (negative: etalake was closer), with its 95 %% interval clustered by vessel call. Verdict: "+
		"closer only when the interval excludes 0 (else no clear difference), and only with at least %d distinct vessel "+
		"calls (else too few).", r.Rules.MinN)}
	var bare []string
	for _, e := range r.Estimate {
		switch {
		case e.Versus != betterCarrier:
		case e.NIntervals == 0:
			bare = append(bare, days(e.HorizonDays))
		default:
			s.Notes = append(s.Notes, coverageNote(e))
		}
	}
	if len(bare) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("At %s, no estimate had intervals yet: they come from the estimate's own past "+
			"errors at that horizon, and need 30 of them.", list(bare)))
	}
	return s
}

// coverageNote says how often the arrivals fell inside the estimate's
// intervals at e's horizon, and whether that is what they promise.
func coverageNote(e EstimateAccuracy) string {
	return fmt.Sprintf("At %s, the arrival fell inside the 80 %% interval of %s %s of %s with intervals: %s; "+
		"inside the 95 %% interval of %s %s: %s.", days(e.HorizonDays),
		percent(e.Coverage80), percentCI(e.Coverage80CI), plural(e.NIntervals, "estimate", "estimates"), coverageVerdict(e, e.Coverage80CI, 0.80),
		percent(e.Coverage95), percentCI(e.Coverage95CI), coverageVerdict(e, e.Coverage95CI, 0.95))
}

// coverageVerdict judges a coverage by its Wilson interval: as promised
// when the interval holds the share promised, else too narrow or wider
// than needed; never on fewer estimates than minIntervals.
func coverageVerdict(e EstimateAccuracy, ci Interval, promised float64) string {
	switch {
	case !ci.Known || e.NIntervals < minIntervals:
		return "too few to tell"
	case ci.Hi < promised:
		return "too narrow: fewer inside than promised"
	case ci.Lo > promised:
		return "wider than needed"
	}
	return "as promised"
}

// minIntervals is the fewest estimates with intervals whose coverage
// the report judges: the view gives its Wilson interval over vessel
// calls but not how many calls, and the share of a handful of estimates
// says little whatever its interval.
const minIntervals = 10

func (r *Report) estimateByCarrierSection() section {
	s := section{
		ID:    secEstimateCarriers,
		Title: "etalake's estimate by carrier",
		Intro: fmt.Sprintf("The same per carrier, where the carrier's shipments compared arrived on at least %d distinct "+
			"vessel calls.", r.Rules.MinN),
	}
	if r.Span.Arrived == 0 {
		s.Missing = sentence(missingArrivals)
		return s
	}
	t := &table{Cols: []column{{Name: "carrier"}, {Name: "horizon", Right: true}, {Name: "against"}, {Name: "calls", Right: true},
		{Name: "difference", Right: true}, {Sub: true}, {Name: "verdict"}, {Name: "80 %", Right: true}, {Name: "95 %", Right: true}}}
	few := map[int][]string{}
	var fewHorizons []int
	for _, e := range r.EstimateByCarrier {
		if !e.Enough {
			if e.Versus == betterCarrier {
				if len(few[e.HorizonDays]) == 0 {
					fewHorizons = append(fewHorizons, e.HorizonDays)
				}
				few[e.HorizonDays] = append(few[e.HorizonDays], e.Carrier)
			}
			continue
		}
		in80, in95 := none, none
		if e.NIntervals > 0 {
			in80, in95 = percent(e.Coverage80), percent(e.Coverage95)
		}
		t.Rows = append(t.Rows, []string{e.Carrier, days(e.HorizonDays), versusName(e.Versus), count(e.NCalls),
			signedPercent(e.DiffPct), signedPercentCI(e.DiffPctCI), e.verdict(), in80, in95})
	}
	if len(t.Rows) == 0 {
		s.Missing = fmt.Sprintf("No carrier's shipments compared arrived on %d distinct vessel calls yet.", r.Rules.MinN)
		return s
	}
	s.Table = t
	s.Notes = []string{"pred.: the predictive ETA. difference and verdict as above. 80 %, 95 %: the share of the carrier's " +
		"estimates at that horizon whose arrival fell inside their 80 % or 95 % interval, without its own interval: a carrier " +
		"has few estimates with intervals at a horizon, and the shares of every carrier above are the ones to judge the " +
		"intervals by; –: none had intervals yet."}
	if len(fewHorizons) > 0 {
		var parts []string
		for _, h := range fewHorizons {
			parts = append(parts, list(few[h])+" at "+days(h))
		}
		s.Notes = append(s.Notes, fmt.Sprintf("Too few vessel calls to compare (fewer than %d): %s.", r.Rules.MinN, strings.Join(parts, "; ")))
	}
	return s
}

func (r *Report) outlookSection() section {
	asOf := r.Span.Last
	s := section{
		ID:    secOutlook,
		Title: fmt.Sprintf("Due in the next %s, by etalake's estimate", days(OutlookDays)),
		Intro: fmt.Sprintf("The shipments not arrived yet (arrival_outlook) whose arrival etalake expects within %s of the "+
			"newest observation, %s UTC, the earliest first: the carrier's latest ETA, etalake's estimate made of it, and "+
			"how many hours before and after the estimate its 80 %% and 95 %% intervals run.", days(OutlookDays), stamp(asOf)),
	}
	if len(r.Outlook) == 0 {
		s.Missing = fmt.Sprintf("No shipment on its way is expected within %s of %s UTC.", days(OutlookDays), stamp(asOf))
		if r.OutlookOverdue > 0 {
			s.Missing += " " + r.overdueNote()
		}
		return s
	}
	t := &table{Cols: []column{{Name: "shipment"}, {Name: "to"}, {Sub: true}, {Name: "carrier"}, {Name: "carrier ETA"},
		{Name: "estimate"}, {Name: "80 %", Right: true}, {Name: "95 %", Right: true}}}
	thin := 0
	for _, a := range r.Outlook {
		target := "(POD)"
		if a.Target == "POSTPOD" {
			target = "(final)"
		}
		if a.BasisLevel == "none" || a.BasisLevel == "all" {
			thin++
		}
		t.Rows = append(t.Rows, []string{a.Shipment, a.Locode, target, a.Carrier, day(a.ETA), day(a.Estimate),
			offsets(a.Lo80, a.Hi80, a.Estimate), offsets(a.Lo95, a.Hi95, a.Estimate)})
	}
	s.Table = t
	s.Notes = []string{"Times UTC. (POD): the port of discharge; (final): the final place after it. 80 %, 95 %: the hours " +
		"before and after the estimate its intervals run; –: too few past errors of the estimate known at that horizon " +
		"for an interval yet."}
	if more := r.OutlookDue - len(r.Outlook); more > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("And %s more due within those %s: arrival_outlook lists them all.",
			count(more), days(OutlookDays)))
	}
	if thin > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s of these rest on no arrival of the carrier's own yet (basis all or none): "+
			"docs/analytics.md says when the estimate is not to be trusted.", capitalize(count(thin))))
	}
	if r.OutlookOverdue > 0 {
		s.Notes = append(s.Notes, r.overdueNote())
	}
	return s
}

// overdueNote counts the targets whose estimate has passed with no
// arrival reported: not listed, not forgotten.
func (r *Report) overdueNote() string {
	return fmt.Sprintf("Not listed: %s whose estimate was already past by then with no arrival reported.",
		plural(r.OutlookOverdue, "shipment target", "shipment targets"))
}

// versusName is the column's word for the source compared with.
func versusName(v string) string {
	if v == betterPredictive {
		return "pred."
	}
	return "carrier"
}

// day renders an instant of the coming days in UTC, to the minute: the
// intro gives the year.
func day(t time.Time) string { return t.UTC().Format("Jan 02 15:04") }

// offsets renders an interval as the hours its ends lie from est:
// "-12 to +30 h"; none when there is no interval.
func offsets(lo, hi, est time.Time) string {
	if lo.IsZero() || hi.IsZero() {
		return none
	}
	return signedWhole(lo.Sub(est).Hours()) + " to " + signedWhole(hi.Sub(est).Hours()) + " h"
}

// signedWhole renders whole hours with their sign: +3, -5, 0.
func signedWhole(v float64) string {
	v = roundTo(v, 0)
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.0f", v)
}

// signedPercent renders a difference in percent with its sign: -12%.
func signedPercent(v float64) string { return signedWhole(v) + "%" }

// signedPercentCI renders its 95 % interval: (-30 to +4%); "" when there
// is none.
func signedPercentCI(i Interval) string {
	if !i.Known {
		return ""
	}
	return "(" + signedWhole(i.Lo) + " to " + signedWhole(i.Hi) + "%)"
}
