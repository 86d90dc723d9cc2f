package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/etalake/etalake/jobs"
)

// writePlan renders a run's plan for a person.
func writePlan(w io.Writer, p jobs.Plan) {
	ps, pt := p.Paid()
	_, st := p.Spend()
	low, high := p.ScheduleCredits()
	fmt.Fprintf(w, "plan of %s for %s:\n", p.Job, p.LogicalDate.Format(time.DateOnly))
	fmt.Fprintf(w, "  schedule  %4d requests (%d ports, %d lanes, %d vessels) → %s credits%s\n", ps, p.Ports, p.Lanes, p.Vessels, creditRange(low, high), short(p.ScheduleHigh, high))
	if ps > 0 {
		fmt.Fprintf(w, "            a credit a page (schedule API %s), at the pages each answer took last time", p.ScheduleAPI)
		if p.Guessed > 0 {
			fmt.Fprintf(w, "; %d never answered here, priced at the fewest to the most pages of their kind, or 1 to --max-pages %d", p.Guessed, p.MaxPages)
		}
		fmt.Fprintln(w)
	}
	if p.Resumed > 0 {
		fmt.Fprintf(w, "  resumed   %4d answers start at the page after those landed earlier for this date\n", p.Resumed)
	}
	fmt.Fprintf(w, "  tracking  %4d requests (shipments) → %d credits%s\n", pt, st, short(pt, st))
	fmt.Fprintf(w, "  free      %4d consumption requests (balance before and after)\n", p.Free)
	if p.AlreadyLanded > 0 || p.Finished > 0 {
		fmt.Fprintf(w, "  skipped   %4d already landed for this date, %d finished shipments\n", p.AlreadyLanded, p.Finished)
	}
	if p.Reasked > 0 {
		fmt.Fprintf(w, "  again     %4d asked again: an earlier job's answer for this date was broken in transfer or stopped paging\n", p.Reasked)
	}
	if p.Reopened > 0 {
		fmt.Fprintf(w, "  reopened  %4d given up for this date, asked again: the service answered their product well since, or --reask names them\n", p.Reopened)
	}
	if n := len(p.GivenUp); n > 0 {
		fmt.Fprintf(w, "  given up  %4d not had for this date in --max-reasks jobs (%s): not priced; asked once at the end only if this job's answers of their product all come whole (--reask asks them now)\n",
			n, listed(p.GivenUp, 5))
	}
	scheduleBalance := after(p.BalanceSchedule, high)
	if !p.ScheduleAPI.HasConsumption() {
		scheduleBalance = "unknown (the provider has no balance endpoint: the cap bounds the spending)"
	}
	fmt.Fprintf(w, "  balance   schedule %s, tracking %s\n", scheduleBalance, after(p.BalanceTracking, st))
	fmt.Fprintf(w, "  caps      schedule %s, tracking %s\n", capText(p.CapSchedule), capText(p.CapTracking))
	fmt.Fprintf(w, "  time      ~%s at %s\n", p.Duration().Round(time.Second), p.Rate)
}

// creditRange renders a price: one number when it is known, else a range.
func creditRange(low, high int) string {
	if low == high {
		return fmt.Sprint(low)
	}
	return fmt.Sprintf("%d–%d", low, high)
}

func short(want, can int) string {
	if can < want {
		return fmt.Sprintf(" — %d over the cap or balance: the run stops there (exit 3)", want-can)
	}
	return ""
}

func after(balance *int64, spend int) string {
	if balance == nil {
		return "not reported"
	}
	return fmt.Sprintf("%d → %d after", *balance, *balance-int64(spend))
}

func capText(c int64) string {
	if c < 0 {
		return "none"
	}
	return fmt.Sprint(c)
}

// listed renders at most n of items, and how many more.
func listed(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
