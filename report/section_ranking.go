package report

import (
	"fmt"
	"strconv"
)

func (r *Report) rankingSection() section {
	s := section{
		ID:    secRanking,
		Title: fmt.Sprintf("Carrier ranking: the carrier's ETA %s before arrival", days(RankHorizon)),
		Intro: fmt.Sprintf("Carriers by the mean absolute error (MAE) of the ETA they gave %s before the box arrived "+
			"at its port of discharge. Error = actual − ETA: a positive bias means later than promised. In brackets, "+
			"the 95 %% interval, clustered by vessel call: the boxes of one call share its delay, so they count as one draw.",
			days(RankHorizon)),
	}
	if r.Span.Arrived == 0 {
		s.Missing = sentence(missingArrivals)
		return s
	}
	t := &table{Cols: []column{{Name: "rank", Right: true}, {Name: "carrier"}, {Name: "shipments", Right: true},
		{Name: "calls", Right: true}, {Name: "bias h", Right: true}, {Sub: true}, {Name: "MAE h", Right: true, Heat: true}, {Sub: true},
		{Name: "p90 h", Right: true}, {Name: "±1 d", Right: true}}}
	var tied, unranked, oneCall bool
	for _, c := range r.Carriers {
		a := c.ETA[RankHorizon]
		rank := none
		switch {
		case c.Tied():
			rank, tied = strconv.Itoa(c.Rank)+"–"+strconv.Itoa(c.RankWorst), true
		case c.Rank > 0:
			rank = strconv.Itoa(c.Rank)
		default:
			unranked = true
		}
		oneCall = oneCall || (a.N > 0 && !a.MAE.Known)
		t.Rows = append(t.Rows, accuracyRow(rank, c.Carrier, a))
	}
	t.Total = accuracyRow("", "all", r.All.ETA[RankHorizon])
	s.Table = t
	s.Notes = []string{fmt.Sprintf("shipments: those with a usable carrier ETA %s before arrival / all arrived; "+
		"calls: the distinct vessel calls they arrived on. p90: the 90th percentile of the absolute error; "+
		"±1 d: the share within a day.", days(RankHorizon))}
	rule := "rank: the places the data allow. A carrier ranks above another only when its MAE is lower by more " +
		"than the 95 % margin of the difference, t·√(se₁² + se₂²) with se each MAE's standard error; its places run " +
		"from 1 + the number of carriers clearly better to the number ranked − the number clearly worse"
	if tied {
		rule += ". A range (2–4) is a tie: the carriers in it are not told apart, only listed by MAE."
	} else {
		rule += "; every carrier here has one place."
	}
	s.Notes = append(s.Notes, rule)
	if unranked {
		s.Notes = append(s.Notes, fmt.Sprintf("rank –: fewer than %d distinct vessel calls with such an ETA, too few to rank.",
			r.Rules.MinN))
	}
	if oneCall {
		s.Notes = append(s.Notes, "No interval: the shipments arrived on a single vessel call.")
	}
	return s
}

func accuracyRow(rank, carrier string, a Accuracy) []string {
	known := fmt.Sprintf("%d/%d", a.N, a.Shipments)
	if a.N == 0 {
		return []string{rank, carrier, known, count(a.NCalls), none, "", none, "", none, none}
	}
	return []string{rank, carrier, known, count(a.NCalls), signedHours(a.BiasHours), signedHoursCI(a.Bias),
		hours(a.MAEHours), hoursCI(a.MAE), hours(a.P90AbsHours), percent(a.Within1DShare)}
}
