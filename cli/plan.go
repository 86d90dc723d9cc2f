package cli

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
	writeShard(w, p.Shard)
	fmt.Fprintf(w, "  schedule  %4d requests (%d ports, %d lanes, %d vessels) → %s credits%s\n", ps, p.Ports, p.Lanes, p.Vessels, creditRange(low, high), overCapText(p.ScheduleHigh, high))
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
	tc := p.TrackingCredits()
	fmt.Fprintf(w, "  tracking  %4d requests (shipments) → %d credits %s%s%s\n", pt, tc, billingText(p.Billing), overCapText(pt, st), otherPrice(p))
	writeRefresh(w, p)
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
	scheduleBalance := balanceAfter(p.BalanceSchedule, high)
	if !p.ScheduleAPI.HasConsumption() {
		scheduleBalance = "unknown (the provider has no balance endpoint: the cap bounds the spending)"
	}
	fmt.Fprintf(w, "  balance   schedule %s, tracking %s\n", scheduleBalance, balanceAfter(p.BalanceTracking, tc))
	fmt.Fprintf(w, "  caps      schedule %s, tracking %s\n", capText(p.CapSchedule), capText(p.CapTracking))
	fmt.Fprintf(w, "  time      ~%s at %s\n", p.Duration().Round(time.Second), p.Rate)
}

// otherPrice prices the tracking requests by the billing model the plan
// does not use: the plan prices both ways.
func otherPrice(p jobs.Plan) string {
	_, pt := p.Paid()
	if pt == 0 {
		return ""
	}
	if p.Billing == jobs.BillPerShipmentMonth {
		return fmt.Sprintf(" (%d %s)", pt, billingText(jobs.BillPerCall))
	}
	return fmt.Sprintf(" (%d %s: the shipments not asked yet this month)", p.ShipmentMonths, billingText(jobs.BillPerShipmentMonth))
}

// billingText says how a price is billed: "per call".
func billingText(b jobs.Billing) string {
	if b == jobs.BillPerShipmentMonth {
		return "per shipment-month"
	}
	return "per call"
}

// writeRefresh says what the refresh policy made of the tracked set:
// how many shipments are due tonight and why, and what the pace allowed
// and deferred.
func writeRefresh(w io.Writer, p jobs.Plan) {
	r := p.Refresh
	if r.Mode == "" || r.Active+r.Dropped == 0 { // not the nightly run, or nothing tracked to refresh
		return
	}
	due := r.DueTotal()
	fmt.Fprintf(w, "  refresh   %4d due of %d tracked shipments active (%s), %d not due tonight", due, r.Active, r.Mode, r.NotDue)
	if due > 0 {
		fmt.Fprintf(w, "\n            due: %s", dueText(r.Due))
	}
	fmt.Fprintln(w)
	if r.Dropped > 0 {
		fmt.Fprintf(w, "  dropped   %4d arrived and not asked this month: billed per shipment-month, a new month is not paid for them\n", r.Dropped)
	}
	if !r.Paced {
		if r.NotPaced != "" && due > 0 {
			fmt.Fprintf(w, "  pace      none: %s\n", r.NotPaced)
		}
		return
	}
	a := r.Allowance
	fmt.Fprintf(w, "  pace      %4d credits tonight: %d left of the period less %d in reserve, over %d nights to %s; %d due asked for %d credits",
		a.Credits, a.Remaining, a.Reserve, a.NightsLeft, a.PeriodEnd.Format(time.DateOnly), r.Asked, r.Spent)
	if r.Beyond > 0 {
		fmt.Fprintf(w, ", %d of them past the allowance (never observed, or a night more would leave them unasked past twice their interval)", r.Beyond)
	}
	fmt.Fprintln(w)
	if n := len(r.Deferred); n > 0 {
		fmt.Fprintf(w, "  deferred  %4d due, left for a later night, most valuable first (%s): %s\n", n, dueText(r.DeferredBy), listed(r.Deferred, 5))
	}
}

// dueText renders counts by reason, the most first: "12 near, 3 new".
func dueText(counts map[string]int) string {
	var parts []string
	for _, k := range jobs.Reasons(counts) {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return strings.Join(parts, ", ")
}

// creditRange renders a price: one number when it is known, else a range.
func creditRange(low, high int) string {
	if low == high {
		return fmt.Sprint(low)
	}
	return fmt.Sprintf("%d–%d", low, high)
}

// overCapText says, when a plan wants more than the cap or the balance
// lets it spend, by how much and what then happens.
func overCapText(want, can int) string {
	if can < want {
		return fmt.Sprintf(" — %d over the cap or balance: the run stops there (exit 3)", want-can)
	}
	return ""
}

// balanceAfter writes a balance before and after a plan's spend.
func balanceAfter(balance *int64, spend int) string {
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
