package report

import (
	"fmt"
	"strconv"
	"strings"
)

// section is one part of the report, the same in the terminal and the
// page: a heading, what it shows, and its table or, when its data does not
// exist yet, what is missing.
type section struct {
	ID      string // the page's anchor, and which chart goes with it
	Title   string
	Intro   string
	Table   *table
	Missing string
	Notes   []string
}

// table is rows of cells already rendered; the columns say how to align
// them.
type table struct {
	Cols  []column
	Rows  [][]string
	Total []string // a row summing up the others, set apart; nil: none
}

type column struct {
	Name  string
	Right bool // a number: aligned right
	// Sub is a note on the cell before it, such as a count in brackets:
	// set close to it, left-aligned and dimmed.
	Sub bool
	// Heat marks hours of error (rendered by hours): the page shades them
	// by size.
	Heat bool
}

// Section IDs.
const (
	secRanking    = "ranking"
	secHorizon    = "horizon"
	secComparison = "predictive"
	secSchedule   = "schedule"
)

func (r *Report) sections() []section {
	return []section{r.rankingSection(), r.horizonSection(), r.comparisonSection(), r.scheduleSection()}
}

// title is the report's heading.
func (r *Report) title() string {
	if r.Warehouse == "" {
		return "ETA accuracy report"
	}
	return "ETA accuracy report: " + r.Warehouse
}

// spanLine says what the warehouse covers.
func (r *Report) spanLine() string {
	var b strings.Builder
	if !r.Span.First.IsZero() {
		fmt.Fprintf(&b, "Observed %s to %s UTC: ", stamp(r.Span.First), stamp(r.Span.Last))
	}
	fmt.Fprintf(&b, "%s arrived at their port of discharge, %s with a planned and an actual arrival.",
		plural(r.Span.Arrived, "shipment", "shipments"), plural(r.Span.Calls, "port call", "port calls"))
	return b.String()
}

// creditLines sum up what the runs spent.
func (r *Report) creditLines() []string {
	c := r.Credits
	if c.Runs == 0 {
		return []string{"Credits: no run recorded in the warehouse."}
	}
	spent := fmt.Sprintf("Credits: %s on %s (%s not ok): %s, %s, %s",
		plural(c.Runs, "run", "runs"), plural(c.Days, "day", "days"), count(c.RunsNotOK),
		plural(c.Requests, "request", "requests"), plural(c.Schedule, "schedule credit", "schedule credits"),
		plural(c.Tracking, "tracking call", "tracking calls"))
	if u := c.UncertainSchedule + c.UncertainTracking; u > 0 {
		spent += fmt.Sprintf(" (%s possibly charged by timed-out requests)", count(u))
	}
	lines := []string{spent + "."}
	var next []string
	if c.DriftSchedule != 0 || c.DriftTracking != 0 {
		next = append(next, fmt.Sprintf("the server counted %s schedule credits and %s tracking calls we did not",
			count(c.DriftSchedule), count(c.DriftTracking)))
	} else {
		next = append(next, "our count matches the server's")
	}
	if c.BalanceKnown {
		next = append(next, fmt.Sprintf("balance after the last run: %s, %s", plural(c.BalanceSchedule, "schedule credit", "schedule credits"),
			plural(c.BalanceTracking, "tracking call", "tracking calls")))
	}
	return append(lines, capitalize(strings.Join(next, "; "))+".")
}

func (r *Report) rankingSection() section {
	s := section{
		ID:    secRanking,
		Title: fmt.Sprintf("Carrier ranking: the carrier's ETA %s before arrival", days(RankHorizon)),
		Intro: fmt.Sprintf("Carriers by the mean absolute error (MAE) of the ETA they gave %s before the box arrived "+
			"at its port of discharge. Error = actual − ETA: a positive bias means later than promised.", days(RankHorizon)),
	}
	if r.Span.Arrived == 0 {
		s.Missing = sentence(missingArrivals)
		return s
	}
	t := &table{Cols: []column{{Name: "rank", Right: true}, {Name: "carrier"}, {Name: "shipments", Right: true}, {Name: "bias h", Right: true},
		{Name: "MAE h", Right: true, Heat: true}, {Name: "p90 |err| h", Right: true}, {Name: "within ±1 d", Right: true}}}
	unranked := false
	for _, c := range r.Carriers {
		rank := none
		if c.Rank > 0 {
			rank = strconv.Itoa(c.Rank)
		} else {
			unranked = true
		}
		t.Rows = append(t.Rows, accuracyRow(rank, c.Carrier, c.ETA[RankHorizon]))
	}
	t.Total = accuracyRow("", "all", r.All.ETA[RankHorizon])
	s.Table = t
	s.Notes = []string{fmt.Sprintf("shipments: those with a carrier ETA %s before arrival / all arrived.", days(RankHorizon))}
	if unranked {
		s.Notes = append(s.Notes, fmt.Sprintf("rank –: fewer than %d such shipments, too few to rank.", MinRanked))
	}
	return s
}

func accuracyRow(rank, carrier string, a Accuracy) []string {
	known := fmt.Sprintf("%d/%d", a.N, a.Shipments)
	if a.N == 0 {
		return []string{rank, carrier, known, none, none, none, none}
	}
	return []string{rank, carrier, known, signedHours(a.BiasHours), hours(a.MAEHours), hours(a.P90AbsHours), percent(a.Within1DShare)}
}

func (r *Report) horizonSection() section {
	s := section{
		ID:    secHorizon,
		Title: "Error by horizon: MAE of the carrier's ETA, hours",
		Intro: "How the error shrinks as arrival nears: the mean absolute error of the ETA each carrier gave " +
			"that many days before arrival; in brackets, the shipments with an ETA then.",
	}
	if r.Span.Arrived == 0 {
		s.Missing = sentence(missingArrivals)
		return s
	}
	t := &table{Cols: []column{{Name: "carrier"}}}
	for _, h := range r.Horizons {
		t.Cols = append(t.Cols, column{Name: days(h), Right: true, Heat: true}, column{Sub: true})
	}
	row := func(c CarrierAccuracy, name string) []string {
		cells := []string{name}
		for _, h := range r.Horizons {
			a := c.ETA[h]
			if a.N == 0 {
				cells = append(cells, none, "")
				continue
			}
			cells = append(cells, hours(a.MAEHours), "("+strconv.Itoa(a.N)+")")
		}
		return cells
	}
	for _, c := range r.Carriers {
		t.Rows = append(t.Rows, row(c, c.Carrier))
	}
	t.Total = row(r.All, "all")
	s.Table = t
	return s
}

func (r *Report) comparisonSection() section {
	s := section{
		ID:    secComparison,
		Title: "Predictive ETA vs the carrier's ETA, all carriers",
		Intro: "The service's predictive ETA against the carrier's, on the same shipments: those with both known " +
			"that many days before arrival. The predictive ETA is published only within about 3 days of arrival.",
	}
	switch {
	case r.Span.Arrived == 0:
		s.Missing = sentence(missingArrivals)
		return s
	case len(r.Comparison) == 0:
		s.Missing = "No arrived shipment had both a carrier and a predictive ETA at the same horizon."
		return s
	}
	t := &table{Cols: []column{{Name: "horizon", Right: true}, {Name: "shipments", Right: true}, {Name: "carrier MAE", Right: true},
		{Name: "pred. MAE", Right: true}, {Name: "carrier bias", Right: true}, {Name: "pred. bias", Right: true},
		{Name: "better"}, {Name: "pred. closer", Right: true}}}
	for _, c := range r.Comparison {
		better := "carrier"
		if c.PredictiveBetter {
			better = "predictive"
		}
		t.Rows = append(t.Rows, []string{days(c.HorizonDays), count(c.N), hours(c.CarrierMAEHours), hours(c.PredictiveMAEHours),
			signedHours(c.CarrierBiasHours), signedHours(c.PredictiveBiasHours), better, percent(c.PredictiveCloserShare)})
	}
	s.Table = t
	s.Notes = []string{"pred.: the predictive ETA. MAE and bias in hours; better: the smaller MAE; pred. closer: the share " +
		"of the shipments where the predictive ETA was closer to the actual arrival than the carrier's."}
	return s
}

func (r *Report) scheduleSection() section {
	s := section{
		ID:    secSchedule,
		Title: "Schedule reliability by carrier",
		Intro: "Port calls whose planned and actual arrivals were both observed, each counted once. A call is on " +
			"time when the vessel arrived within ±24 h of the first planned arrival seen (Sea-Intelligence's definition).",
	}
	if r.Span.Calls == 0 {
		s.Missing = sentence(missingCalls)
		return s
	}
	t := &table{Cols: []column{{Name: "carrier"}, {Name: "calls", Right: true}, {Name: "on time", Right: true}, {Name: "late", Right: true},
		{Name: "mean delay of late h", Right: true}}}
	var calls, late int
	var delay float64
	for _, c := range r.Schedule {
		t.Rows = append(t.Rows, reliabilityRow(c.Carrier, c.Calls, c.OnTimeShare, c.Late, c.AvgDelayLateHours))
		calls += c.Calls
		late += c.Late
		delay += c.AvgDelayLateHours * float64(c.Late)
	}
	if late > 0 {
		delay /= float64(late)
	}
	t.Total = reliabilityRow("all", calls, r.OnTimeShare(), late, delay)
	s.Table = t
	s.Notes = []string{"late: more than 24 h after the plan; the other calls not on time were early."}
	return s
}

func reliabilityRow(carrier string, calls int, share float64, late int, delay float64) []string {
	d := none
	if late > 0 {
		d = hours(delay)
	}
	return []string{carrier, count(calls), percent(share), count(late), d}
}

// days renders a horizon: "1 day", "3 days".
func days(h int) string { return plural(h, "day", "days") }

// sentence makes a clause a sentence.
func sentence(s string) string { return capitalize(s) + "." }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
