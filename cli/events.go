package cli

import (
	"log/slog"
	"strconv"
	"time"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// summaryAttrs is a run's summary as the attributes of its "summary"
// event (--log-format json): the facts writeSummary renders for a person,
// read from the same fields of the result, every list whole. Every key is
// always there (an empty list, an empty object, null when unknown), so a
// machine reads one shape whatever the run did. A field added to
// jobs.RunResult, load.Run or jobs.Plan fails TestTheJSONSummaryCarriesEveryFact
// until it is rendered here (or said to be none of a summary's business).
func summaryAttrs(res jobs.RunResult) []slog.Attr {
	r := res.Run
	attrs := []slog.Attr{
		slog.String("job", r.Job),
		slog.String("run", r.ID),
		slog.Any("logical_date", dateOrNil(r.LogicalDate)),
		slog.Any("shard", stringOrNil(r.Shard)),
		slog.String("status", r.Status),
		slog.String("verdict", string(res.Verdict)),
		slog.Any("exit_code", intOrNil(r.ExitCode)),
		slog.Time("started_at", r.StartedAt),
		slog.Any("ended_at", timeOrNil(r.EndedAt)),
		slog.Float64("duration_seconds", durationSeconds(r.StartedAt, r.EndedAt)),
		requestsAttr(res),
		slog.Group("schedule",
			slog.Int64("credits", r.SpentSchedule),
			slog.Int64("possibly_charged", r.UncertainSchedule),
			slog.Any("balance_before", r.BalanceScheduleBefore),
			slog.Any("balance_after", r.BalanceScheduleAfter),
			slog.Any("drift", r.DriftSchedule()),
		),
		slog.Group("tracking",
			slog.Int64("calls", r.CallsTracking),
			slog.Int64("possibly_charged", r.UncertainTracking),
			slog.Any("balance_before", r.BalanceTrackingBefore),
			slog.Any("balance_after", r.BalanceTrackingAfter),
			slog.Any("drift", r.DriftTracking()),
		),
		slog.Any("rows", orEmpty(r.Rows)),
		slog.Int("finished", res.Plan.Finished),
		refreshAttr(res.Plan.Refresh),
		slog.Int("dead_letters", res.DeadLetters),
		slog.Int("quarantined", res.Quarantined),
		slog.Any("not_found", emptyList(res.NotFound)),
		slog.Any("failed", emptyList(res.Failed)),
		slog.Any("refused", emptyList(res.Refused)),
		slog.Any("broken", emptyList(res.Broken)),
		slog.Any("paging_stopped", emptyList(res.PagingStopped)),
		slog.Any("given_up", givenUpOrEmpty(r.GivenUp)),
		slog.Any("reopened", emptyList(res.Reopened)),
		slog.String("reask", res.Reask),
		slog.Any("skipped", emptyList(res.Skipped)),
		slog.Any("warnings", emptyList(res.Warnings)),
	}
	attrs = append(attrs, stopAttrs(res)...)
	return append(attrs,
		slog.Any("shortfalls", orEmpty(r.Shortfalls)),
		slog.String("stop_reason", r.StopReason),
		slog.String("error", r.Error),
	)
}

// requestsAttr is the summary's "requests": those sent, by HTTP status
// ("200", "404") and without a response, and those the plan spared or
// asked again.
func requestsAttr(res jobs.RunResult) slog.Attr {
	r := res.Run
	byStatus := map[string]int64{}
	for s, n := range r.ByStatus {
		byStatus[strconv.Itoa(s)] = n
	}
	return slog.Group("requests",
		slog.Int64("sent", r.Requests),
		slog.Any("by_status", byStatus),
		slog.Int64("no_response", max(r.Requests-sumStatuses(r.ByStatus), 0)),
		slog.Int("already_landed", res.Plan.AlreadyLanded),
		slog.Int("resumed", res.Plan.Resumed),
		slog.Int("asked_again", res.Plan.Reasked),
		slog.Int("reopened", res.Plan.Reopened),
	)
}

// stopAttrs are, per product stopped early (a cap, a quota), why, the
// requests it did not send, and what its stop left unanswered, keyed by
// the product's name; empty objects when none stopped.
func stopAttrs(res jobs.RunResult) []slog.Attr {
	stopped := map[string]string{}
	for p, why := range res.Stopped {
		stopped[string(p)] = why
	}
	unasked := map[string]int{}
	for p, n := range res.Unasked {
		unasked[string(p)] = n
	}
	rest := map[string]map[string]int{}
	for p, m := range res.Rest {
		rest[string(p)] = map[string]int{"requests": m.Requests, "credits": m.Credits}
	}
	return []slog.Attr{slog.Any("stopped", stopped), slog.Any("unasked", unasked), slog.Any("rest", rest)}
}

// givenUpOrEmpty is the resources given up, [] rather than null.
func givenUpOrEmpty(g []load.GivenUp) []load.GivenUp {
	if g == nil {
		return []load.GivenUp{}
	}
	return g
}

// planAttrs is a run's plan as the attributes of its "plan" event: the
// facts writePlan renders for a person.
func planAttrs(p jobs.Plan) []slog.Attr {
	ps, pt := p.Paid()
	_, st := p.Spend()
	low, high := p.ScheduleCredits()
	var scheduleAfter, trackingAfter *int64
	if p.BalanceSchedule != nil && p.ScheduleAPI.HasConsumption() {
		n := *p.BalanceSchedule - int64(high)
		scheduleAfter = &n
	}
	if p.BalanceTracking != nil {
		n := *p.BalanceTracking - int64(p.TrackingCredits())
		trackingAfter = &n
	}
	return []slog.Attr{
		slog.String("job", p.Job),
		slog.String("logical_date", p.LogicalDate.Format(time.DateOnly)),
		shardAttr(p.Shard),
		slog.Group("schedule",
			slog.Int("requests", ps),
			slog.Int("ports", p.Ports), slog.Int("lanes", p.Lanes), slog.Int("vessels", p.Vessels),
			slog.Int("credits_low", low), slog.Int("credits_high", high),
			slog.Int("over_cap_or_balance", max(p.ScheduleHigh-high, 0)),
			slog.Int("priced_by_guess", p.Guessed), slog.Int("max_pages", p.MaxPages),
			slog.String("api", string(p.ScheduleAPI)),
			slog.Any("cap", capOrNil(p.CapSchedule)),
			slog.Any("balance", p.BalanceSchedule), slog.Any("balance_after", scheduleAfter),
		),
		slog.Group("tracking",
			slog.Int("requests", pt), slog.Int("credits", p.TrackingCredits()), slog.String("billing", string(p.Billing)),
			slog.Int("credits_per_call", st), slog.Int("credits_per_shipment_month", p.ShipmentMonths),
			slog.Int("over_cap_or_balance", max(pt-st, 0)),
			slog.Any("cap", capOrNil(p.CapTracking)),
			slog.Any("balance", p.BalanceTracking), slog.Any("balance_after", trackingAfter),
		),
		slog.Int("free", p.Free),
		slog.Int("already_landed", p.AlreadyLanded),
		slog.Int("finished", p.Finished),
		refreshAttr(p.Refresh),
		slog.Int("resumed", p.Resumed),
		slog.Int("asked_again", p.Reasked),
		slog.Any("given_up", emptyList(p.GivenUp)),
		slog.Int("reopened", p.Reopened),
		slog.String("rate", p.Rate.String()),
		slog.Float64("duration_seconds", p.Duration().Seconds()),
	}
}

// outcomeAttrs are the attributes of the "summary" event of a job that
// derives responses (import, replay) and ended with err: how it ended,
// with what exit code, and what it loaded.
func outcomeAttrs(job string, o jobs.Outcome, err error) []slog.Attr {
	return []slog.Attr{
		slog.String("job", job),
		slog.String("run", o.Run),
		slog.String("status", o.Status),
		slog.Int("exit_code", jobExit(o.Verdict, err)),
		slog.Any("rows", orEmpty(o.Rows)),
		slog.Int("dead_letters", o.DeadLetters),
		slog.Int("quarantined", o.Quarantined),
	}
}

// emptyList is items, or an empty list for none: JSON's [] rather than null.
func emptyList[T any](items []T) []T {
	if items == nil {
		return []T{}
	}
	return items
}

func orEmpty[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

func dateOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Format(time.DateOnly)
}

func timeOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

func intOrNil(n *int) any {
	if n == nil {
		return nil
	}
	return *n
}

// capOrNil is a cap, nil when there is none.
func capOrNil(c int64) any {
	if c < 0 {
		return nil
	}
	return c
}

func durationSeconds(from, to time.Time) float64 {
	if to.IsZero() {
		return 0
	}
	return to.Sub(from).Round(time.Millisecond).Seconds()
}

// refreshAttr is what the refresh policy made of the tracked set, as the
// plan and the summary events carry it: null for a job that refreshes
// nothing (a backfill).
func refreshAttr(r jobs.RefreshPlan) slog.Attr {
	if r.Mode == "" {
		return slog.Any("refresh", nil)
	}
	var allowance any
	if r.Paced {
		a := r.Allowance
		allowance = map[string]any{"credits": a.Credits, "remaining": a.Remaining, "reserve": a.Reserve,
			"nights_left": a.NightsLeft, "period_end": a.PeriodEnd.Format(time.DateOnly)}
	}
	return slog.Group("refresh",
		slog.String("mode", string(r.Mode)), slog.String("billing", string(r.Billing)),
		slog.Int("active", r.Active), slog.Int("due", r.DueTotal()), slog.Any("due_by_reason", orEmpty(r.Due)),
		slog.Int("not_due", r.NotDue), slog.Int("dropped", r.Dropped),
		slog.Bool("paced", r.Paced), slog.String("not_paced", r.NotPaced), slog.Any("allowance", allowance),
		slog.Int("asked", r.Asked), slog.Int("beyond_allowance", r.Beyond), slog.Int64("credits", r.Spent),
		slog.Any("deferred", emptyList(r.Deferred)), slog.Any("deferred_by_reason", orEmpty(r.DeferredBy)),
	)
}

// stringOrNil is s, or null when it is empty.
func stringOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}
