package report

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// RankHorizon is the number of days before arrival at which carriers are
// ranked: far enough out for the ETA to matter to planning, near enough
// for most shipments to have one.
const RankHorizon = 3

// PredictiveHorizon is the number of days before arrival at which the
// error distribution of the predictive ETA is shown: the service publishes
// it only while it promises arrival within 72 hours, so further out it
// exists only for the shipments it expects early (selective in the views)
// and its errors there are biased by construction.
const PredictiveHorizon = 1

// Report is everything the accuracy report shows, read from the views.
// A section whose data does not exist yet is empty (Span says which):
// Carriers, Horizons, Comparison and Errors need an arrived shipment,
// Schedule a port call due.
type Report struct {
	// Warehouse names the warehouse in the headings when not "": Build
	// leaves it empty, the caller sets it.
	Warehouse string
	// Made and Version say when and by which etalake the page was made,
	// in its footer: Build leaves them zero (the renderer reads no clock),
	// the caller sets them; a page of zero Made says neither.
	Made    time.Time
	Version string
	Span    Span
	Rules   Rules
	// Horizons are the days before arrival the views measure ETAs at,
	// ascending (1, 3, 7, 14).
	Horizons []int
	// Carriers are the ranked carriers, by rank, then the unranked ones
	// (Rank 0); see rank.
	Carriers []CarrierAccuracy
	// All is every carrier together (Carrier "").
	All CarrierAccuracy
	// Comparison is the predictive ETA against the carrier's, all
	// carriers, at each horizon where both exist by design, ascending;
	// ComparisonByCarrier the same per carrier, by horizon and carrier.
	Comparison          []Comparison
	ComparisonByCarrier []Comparison
	// Schedule is the reliability of each carrier's port calls: the
	// carriers with enough calls judged first, the most punctual first.
	// ScheduleMonths is every carrier's by month of the planned arrival,
	// ascending, and ScheduleAll every call's.
	Schedule       []Reliability
	ScheduleMonths []Reliability
	ScheduleAll    Reliability
	// Errors are the individual errors behind the distribution chart:
	// the carrier ETA at RankHorizon, then the carrier's and the
	// predictive ETA at PredictiveHorizon.
	Errors []ErrorSample
	// Estimate is etalake's own arrival estimate against the carrier's
	// ETA at each horizon and the predictive one at 1 day, every carrier,
	// by horizon (the carrier's first); EstimateByCarrier the same per
	// carrier, by horizon and carrier.
	Estimate          []EstimateAccuracy
	EstimateByCarrier []EstimateAccuracy
	// Outlook is the arrivals etalake expects within OutlookDays of
	// Span.Last, the earliest first, at most OutlookRows of them;
	// OutlookDue counts them all, OutlookOverdue the targets not arrived
	// whose estimate was already past then.
	Outlook                    []Arrival
	OutlookDue, OutlookOverdue int
	Credits                    Credits
}

// Span is the extent of the warehouse.
type Span struct {
	// First and Last are the first and last observation of an ETA or a
	// port call (zero when there is none).
	First, Last time.Time
	// Arrived counts the shipments arrived at their port of discharge
	// (POD), those the accuracy sections are about.
	Arrived int
	// Calls counts the port calls whose outcome is known (arrived, or
	// already more than 24 h late), those the schedule section judges;
	// Pending those due but not judged yet; Omitted those the schedule
	// dropped before they were due, never judged.
	Calls, Pending, Omitted int
}

// Build reads the report from the views of the warehouse db. It returns an
// error wrapping ErrNothingToReport when the warehouse has neither an
// arrived shipment nor a port call due, and one wrapping ErrNoViews when
// it lacks the views or the macros they share.
func Build(ctx context.Context, db *sql.DB) (*Report, error) {
	if err := checkViews(ctx, db); err != nil {
		return nil, err
	}
	r := &Report{}
	steps := []struct {
		what string
		read func(context.Context, *sql.DB, *Report) error
	}{
		{"span", readSpan},
		{"the rules of the views", readRules},
		{"eta_accuracy_summary", readAccuracy},
		{"the t quantiles of the ranking", rankCarriers},
		{"eta_accuracy_comparison", readComparison},
		{"eta_accuracy", readErrors},
		{"arrival_estimate_accuracy", readEstimate},
		{"arrival_outlook", readOutlook},
		{"schedule_reliability", readSchedule},
		{"credit_usage", readCredits},
	}
	for _, s := range steps {
		if err := s.read(ctx, db, r); err != nil {
			return nil, fmt.Errorf("report: reading %s: %w", s.what, err)
		}
	}
	if r.Span.Arrived == 0 && r.Span.Calls == 0 && r.Span.Pending == 0 {
		return nil, fmt.Errorf("report: %w: %s, and %s", ErrNothingToReport, missingArrivals, missingCalls)
	}
	return r, nil
}

// What a section says when its data does not exist yet.
const (
	missingArrivals = "no tracked shipment has arrived at its port of discharge yet (ETA accuracy needs an actual arrival)"
	missingCalls    = "no port call a schedule by port or by vessel showed is due yet (schedule reliability needs those schedules observed before and after a call)"
)

// views are the views Build reads, and the macros of their rules: a
// warehouse last written by an etalake whose views predate the macros has
// views of other columns.
var views = []string{"eta_accuracy", "eta_accuracy_summary", "eta_accuracy_comparison", "arrival_estimate_accuracy", "arrival_outlook",
	"schedule_reliability", "credit_usage",
	"etalake_min_n", "etalake_max_staleness_hours", "etalake_t975"}

// checkViews returns an error wrapping ErrNoViews naming the views and
// macros the warehouse lacks.
func checkViews(ctx context.Context, db *sql.DB) error {
	have := map[string]bool{}
	rows, err := db.QueryContext(ctx, `
		SELECT view_name FROM duckdb_views() WHERE NOT internal
		UNION ALL
		SELECT table_name FROM duckdb_tables() WHERE NOT internal
		UNION ALL
		SELECT function_name FROM duckdb_functions() WHERE function_type = 'macro' AND starts_with(function_name, 'etalake_')`)
	if err != nil {
		return fmt.Errorf("report: listing views: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		have[name] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var missing []string
	for _, v := range views {
		if !have[v] {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("report: %w (missing %s): open it once with this version of etalake (a run, or etalake replay) to create them",
			ErrNoViews, strings.Join(missing, ", "))
	}
	return nil
}
