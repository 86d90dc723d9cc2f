package cli

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
// status, credits against the server's balance, rows per table, the
// refresh policy's word, and what was not had and why.
func writeSummary(w io.Writer, res jobs.RunResult) {
	r := res.Run
	fmt.Fprintln(w, runHeadline(res))
	fmt.Fprintf(w, "  requests   %d%s, %d skipped as already landed\n", r.Requests, byStatusText(r), res.Plan.AlreadyLanded)
	fmt.Fprintf(w, "  schedule   %d credits%s%s\n", r.SpentSchedule, uncertain(r.UncertainSchedule), balanceText(r.BalanceScheduleBefore, r.BalanceScheduleAfter, r.SpentSchedule+r.UncertainSchedule))
	fmt.Fprintf(w, "  tracking   %d calls%s%s\n", r.CallsTracking, uncertain(r.UncertainTracking), balanceText(r.BalanceTrackingBefore, r.BalanceTrackingAfter, r.CallsTracking+r.UncertainTracking))
	if len(r.Rows) > 0 {
		fmt.Fprintf(w, "  rows       %s\n", rowsSummary(r.Rows))
	}
	if res.Plan.Finished > 0 {
		fmt.Fprintf(w, "  finished   %d tracked shipments no longer refreshed\n", res.Plan.Finished)
	}
	writeRefreshSummary(w, res.Plan.Refresh)
	writeShortfalls(w, res)
}

// runHeadline is the summary's first line: the job, its run, the date,
// how it ended and how long it took, then the verdict when it says more
// than the status (a failed run refused: a setting or the key to fix).
func runHeadline(res jobs.RunResult) string {
	r := res.Run
	dur := ""
	if !r.EndedAt.IsZero() {
		dur = " in " + r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond).String()
	}
	date := ""
	if r.LogicalDate != nil {
		date = " for " + r.LogicalDate.Format(time.DateOnly)
	}
	if r.Shard != "" {
		date += " (shard " + r.Shard + ")"
	}
	verdict := ""
	if res.Verdict != "" && string(res.Verdict) != r.Status {
		verdict = " (" + string(res.Verdict) + ")"
	}
	return fmt.Sprintf("%s %s%s: %s%s%s", r.Job, r.ID, date, r.Status, dur, verdict)
}

// byStatusText counts a run's requests by HTTP status, and those that had
// no response: " (200: 12, 404: 1, no response: 2)".
func byStatusText(r load.Run) string {
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
	if len(statuses) == 0 {
		return ""
	}
	return " (" + strings.Join(statuses, ", ") + ")"
}

// writeRefreshSummary says what the refresh policy asked of the tracked
// set, and what the pace deferred; nothing when nothing is tracked.
func writeRefreshSummary(w io.Writer, rp jobs.RefreshPlan) {
	if rp.Mode == "" || rp.Active == 0 {
		return
	}
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

// writeShortfalls says what the run did not have, and why: dead letters,
// resources not found, failed, refused, broken, not paged to the end,
// reopened or given up, input rows skipped, warnings, the shortfalls by
// reason, why it stopped and its error.
func writeShortfalls(w io.Writer, res jobs.RunResult) {
	r := res.Run
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

// rowsSummary renders rows per table, largest first.
func rowsSummary(rows map[string]int64) string {
	if len(rows) == 0 {
		return "no rows changed"
	}
	var parts []string
	for _, t := range sortedByValue(rows) {
		parts = append(parts, fmt.Sprintf("%s %d", t, rows[t]))
	}
	return strings.Join(parts, ", ")
}

// sortedByValue lists the keys of m, largest value first, then by name.
func sortedByValue(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}
