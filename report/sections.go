package report

import (
	"fmt"
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
	secMonths     = "months"
	// etalake's own estimate, after the sections that judge the
	// carrier's and the predictive ETA, whose numbers it leaves as they
	// were.
	secEstimate         = "estimate"
	secEstimateCarriers = "estimate-carriers"
	secOutlook          = "outlook"
)

func (r *Report) sections() []section {
	return []section{r.rankingSection(), r.horizonSection(), r.comparisonSection(), r.scheduleSection(), r.monthsSection(),
		r.estimateSection(), r.estimateByCarrierSection(), r.outlookSection()}
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
	fmt.Fprintf(&b, "%s arrived at their port of discharge, %s judged against their schedule",
		plural(r.Span.Arrived, "shipment", "shipments"), plural(r.Span.Calls, "port call", "port calls"))
	var apart []string
	if r.Span.Pending > 0 {
		apart = append(apart, count(r.Span.Pending)+" due, not judged yet")
	}
	if r.Span.Omitted > 0 {
		apart = append(apart, count(r.Span.Omitted)+" dropped from the schedule before they were due")
	}
	if len(apart) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(apart, "; "))
	}
	b.WriteString(".")
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

// days renders a horizon: "1 day", "3 days".
func days(h int) string { return plural(h, "day", "days") }

// list joins words as prose: "a", "a and b", "a, b and c".
func list(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// sentence makes a clause a sentence.
func sentence(s string) string { return capitalize(s) + "." }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
