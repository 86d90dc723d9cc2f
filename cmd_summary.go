package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// writeSummary renders what a run did for a person: status, requests by
// status, credits against the server's balance, rows per table, and what
// was not found or failed.
func writeSummary(w io.Writer, res jobs.RunResult) {
	r := res.Run
	dur := ""
	if !r.EndedAt.IsZero() {
		dur = " in " + r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
	}
	date := ""
	if r.LogicalDate != nil {
		date = " for " + r.LogicalDate.Format(time.DateOnly)
	}
	verdict := ""
	if res.Verdict != "" && string(res.Verdict) != r.Status {
		verdict = " (" + string(res.Verdict) + ")" // failed, refused: a setting or the key to fix
	}
	fmt.Fprintf(w, "%s %s%s: %s%s%s\n", r.Job, r.ID, date, r.Status, verdict, dur)
	var statuses []string
	keys := make([]int, 0, len(r.ByStatus))
	for s := range r.ByStatus {
		keys = append(keys, s)
	}
	sort.Ints(keys)
	for _, s := range keys {
		statuses = append(statuses, fmt.Sprintf("%d: %d", s, r.ByStatus[s]))
	}
	if n := r.Requests - sumStatuses(r.ByStatus); n > 0 {
		statuses = append(statuses, fmt.Sprintf("no response: %d", n))
	}
	byStatus := ""
	if len(statuses) > 0 {
		byStatus = " (" + strings.Join(statuses, ", ") + ")"
	}
	fmt.Fprintf(w, "  requests   %d%s, %d skipped as already landed\n", r.Requests, byStatus, res.Plan.AlreadyLanded)
	fmt.Fprintf(w, "  schedule   %d credits%s%s\n", r.SpentSchedule, uncertain(r.UncertainSchedule), balanceText(r.BalanceScheduleBefore, r.BalanceScheduleAfter, r.SpentSchedule+r.UncertainSchedule))
	fmt.Fprintf(w, "  tracking   %d calls%s%s\n", r.CallsTracking, uncertain(r.UncertainTracking), balanceText(r.BalanceTrackingBefore, r.BalanceTrackingAfter, r.CallsTracking+r.UncertainTracking))
	if len(r.Rows) > 0 {
		tables := make([]string, 0, len(r.Rows))
		for t := range r.Rows {
			tables = append(tables, t)
		}
		sort.Slice(tables, func(i, j int) bool {
			return r.Rows[tables[i]] > r.Rows[tables[j]] || r.Rows[tables[i]] == r.Rows[tables[j]] && tables[i] < tables[j]
		})
		var parts []string
		for _, t := range tables {
			parts = append(parts, fmt.Sprintf("%s %d", t, r.Rows[t]))
		}
		fmt.Fprintf(w, "  rows       %s\n", strings.Join(parts, ", "))
	}
	if res.Plan.Finished > 0 {
		fmt.Fprintf(w, "  finished   %d tracked shipments no longer refreshed\n", res.Plan.Finished)
	}
	if rp := res.Plan.Refresh; rp.Mode != "" && rp.Active > 0 {
		fmt.Fprintf(w, "  refresh    %d due of %d tracked shipments active (%s", rp.DueTotal(), rp.Active, rp.Mode)
		if rp.DueTotal() > 0 {
			fmt.Fprintf(w, ": %s", dueText(rp.Due))
		}
		fmt.Fprintf(w, "), %d not due tonight\n", rp.NotDue)
		if n := len(rp.Deferred); n > 0 {
			fmt.Fprintf(w, "  deferred   %d due, left for a later night by the pace (%d credits tonight; %s): %s\n",
				n, rp.Allowance.Credits, dueText(rp.DeferredBy), listed(rp.Deferred, 5))
		}
	}
	if res.DeadLetters > 0 {
		fmt.Fprintf(w, "  dead       %s: kept in raw_responses, the reasons in dead_letters\n", jobs.DeadLetters(res.DeadLetters, res.Quarantined))
	}
	listLine(w, "not found", res.NotFound)
	listLine(w, "failed", res.Failed)
	listLine(w, "refused", res.Refused)
	listLine(w, "broken", res.Broken)
	listLine(w, "paging", res.PagingStopped)
	if len(res.Reopened) > 0 {
		listLine(w, "reopened", res.Reopened)
		fmt.Fprintf(w, "  %-10s given up for the date, asked again: the service answered their product well since, or --reask named them\n", "")
	}
	writeGivenUp(w, r, res.Reask)
	for _, b := range res.Skipped {
		fmt.Fprintf(w, "  skipped    %s\n", b)
	}
	for _, warning := range res.Warnings {
		fmt.Fprintf(w, "  warning    %s\n", warning)
	}
	if len(r.Shortfalls) > 0 {
		fmt.Fprintf(w, "  shortfalls %s\n", shortfallText(r.Shortfalls))
	}
	if r.StopReason != "" {
		fmt.Fprintf(w, "  stopped    %s\n", r.StopReason)
	}
	if r.Error != "" {
		fmt.Fprintf(w, "  error      %s\n", r.Error)
	}
}

func sumStatuses(m map[int]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

func uncertain(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (+%d possibly charged: timed out or broken in transfer)", n)
}

func balanceText(before, after *int64, ours int64) string {
	if before == nil {
		return ""
	}
	s := fmt.Sprintf(", balance %d", *before)
	if after != nil {
		s += fmt.Sprintf(" → %d", *after)
		if d := load.Drift(before, after, ours); d != nil && *d != 0 {
			s += fmt.Sprintf(" (the server counted %+d more than we did)", *d)
		}
	}
	return s
}

func listLine(w io.Writer, label string, items []string) {
	if len(items) == 0 {
		return
	}
	const show = 5
	s := strings.Join(items[:min(show, len(items))], ", ")
	if len(items) > show {
		s += fmt.Sprintf(", … (%d more)", len(items)-show)
	}
	fmt.Fprintf(w, "  %-10s %d: %s\n", label, len(items), s)
}

// shortfallText renders a run's shortfalls by reason, largest first.
func shortfallText(by map[string]int64) string {
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return by[keys[i]] > by[keys[j]] || by[keys[i]] == by[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, by[k])
	}
	return strings.Join(parts, ", ")
}

// writeGivenUp lists the resources given up for the run's date, each with
// why, and the command that asks them all again.
func writeGivenUp(w io.Writer, r load.Run, reask string) {
	if len(r.GivenUp) == 0 {
		return
	}
	date := ""
	if r.LogicalDate != nil {
		date = " for " + r.LogicalDate.Format(time.DateOnly)
	}
	fmt.Fprintf(w, "  %-10s %d%s: not had in --max-reasks jobs; a job of the date asks them again once the service answers their product well\n", "given up", len(r.GivenUp), date)
	const show = 5
	for _, g := range r.GivenUp[:min(show, len(r.GivenUp))] {
		fmt.Fprintf(w, "  %-10s %s (%d jobs: %s)\n", "", g.Resource, g.FailedJobs, g.Why)
	}
	if n := len(r.GivenUp) - show; n > 0 {
		fmt.Fprintf(w, "  %-10s … and %d more (etl_runs.given_up, data_freshness)\n", "", n)
	}
	fmt.Fprintf(w, "  %-10s %s\n", "ask now", reask)
}
