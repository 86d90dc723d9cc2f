package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// dueRow is a tracked shipment's row of data_freshness.
type dueRow struct {
	next           *time.Time
	reason         string
	deferredSince  *time.Time
	lastObservedAt *time.Time
	stale          bool
}

// freshnessDue reads data_freshness's due columns by shipment number.
func freshnessDue(t *testing.T, b *bench) map[string]dueRow {
	t.Helper()
	rows, err := b.wh.DB().QueryContext(context.Background(),
		`SELECT shipment_number, next_due_date, coalesce(due_reason, ''), deferred_since, last_observed_at, is_stale FROM data_freshness WHERE shipment_number IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]dueRow{}
	for rows.Next() {
		var n string
		var r dueRow
		if err := rows.Scan(&n, &r.next, &r.reason, &r.deferredSince, &r.lastObservedAt, &r.stale); err != nil {
			t.Fatal(err)
		}
		out[n] = r
	}
	return out
}

// The first night asks every shipment (never observed); the next, only
// those the policy says are due, and the plan counts them by reason;
// data_freshness shows each shipment's next due night and why, and the
// night after asks exactly those it said were due that night.
func TestTheNightlyRunAsksWhatIsDueAndSaysWhy(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 1000)
	ships := visible(t, b.env.Service.World(), 40)
	first := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}})
	if rp := first.Plan.Refresh; rp.Due[jobs.DueNew] != 40 || first.Run.CallsTracking != 40 || rp.Mode != jobs.RefreshAdaptive {
		t.Fatalf("first night: %+v, %d calls; want all 40 new, asked", rp, first.Run.CallsTracking)
	}
	due := freshnessDue(t, b)
	tomorrow := first.Plan.LogicalDate.AddDate(0, 0, 1)
	var wantTomorrow int
	for _, s := range ships {
		r, ok := due[s.Number]
		if !ok || r.next == nil || r.reason == "" || r.stale {
			t.Fatalf("%s in data_freshness: %+v; want a next due night and reason, not stale", s.Number, r)
		}
		if r.next.Equal(tomorrow) {
			wantTomorrow++
		}
	}
	if wantTomorrow == 0 || wantTomorrow == 40 {
		t.Fatalf("%d of 40 due the next night: the tiers did not spread them", wantTomorrow)
	}

	b.env.Service.Clock().Advance(24 * time.Hour)
	plan := b.run(t, jobs.RunOptions{DryRun: true}).Plan
	rp := plan.Refresh
	if rp.DueTotal() != wantTomorrow || plan.Shipments != wantTomorrow || rp.NotDue != 40-wantTomorrow || rp.Active != 40 {
		t.Fatalf("dry run of the next night: %d due (%v), %d asked, %d not due; want the %d data_freshness said", rp.DueTotal(), rp.Due, plan.Shipments, rp.NotDue, wantTomorrow)
	}
	for reason := range rp.Due {
		if reason == jobs.DueNew || reason == jobs.DueNightly {
			t.Errorf("reason %q the night after every shipment was observed", reason)
		}
	}
	second := b.run(t, jobs.RunOptions{})
	if second.Run.CallsTracking != int64(wantTomorrow) || second.Run.Status != load.StatusOK {
		t.Fatalf("the next night: %d calls, %s; want the %d due", second.Run.CallsTracking, second.Run.Status, wantTomorrow)
	}
	if got := second.Run.Args["refresh"]; got == nil {
		t.Error("etl_runs.args has no refresh")
	}
}

// With a quota too small for what is due, the pace asks what tonight's
// share of the period affords and defers the rest: listed in the plan and
// in data_freshness (deferred_since), not stale, the run ok; a deferred
// shipment is asked on a later night within twice its interval, and the
// quota is never exhausted by the policy.
func TestAPacedRunDefersWhatTheAllowanceDoesNotCoverAndAsksItLater(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 300)
	ships := visible(t, b.env.Service.World(), 60)
	b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}}) // 60 new, asked past the allowance
	deferredOnce := map[string]time.Time{}
	deferred := 0
	for night := 1; night <= 12; night++ {
		b.env.Service.Clock().Advance(24 * time.Hour)
		res := b.run(t, jobs.RunOptions{})
		rp := res.Plan.Refresh
		if res.Run.Status != load.StatusOK {
			t.Fatalf("night %d: %s (%s); want ok: deferring is the plan, not a shortfall", night, res.Run.Status, res.Run.StopReason)
		}
		if !rp.Paced || int64(rp.Asked-rp.Beyond) > rp.Allowance.Credits || rp.Asked+len(rp.Deferred) != rp.DueTotal() {
			t.Fatalf("night %d: %+v; want paced, within the allowance but for the beyond, every due shipment asked or deferred", night, rp)
		}
		deferred += len(rp.Deferred)
		due := freshnessDue(t, b)
		for _, name := range rp.Deferred {
			number := name[strings.LastIndex(name, ":")+1:]
			if r := due[number]; r.deferredSince == nil || r.stale || r.next == nil || r.next.After(res.Plan.LogicalDate) {
				t.Errorf("night %d: deferred %s in data_freshness: %+v; want deferred since a night, due, not stale", night, number, r)
			}
			if _, ok := deferredOnce[number]; !ok {
				deferredOnce[number] = res.Plan.LogicalDate
			}
		}
		for number, since := range deferredOnce {
			if r := due[number]; r.lastObservedAt != nil && r.lastObservedAt.After(since) {
				delete(deferredOnce, number) // asked since
			} else if res.Plan.LogicalDate.Sub(since) > 14*24*time.Hour {
				t.Errorf("%s deferred on %s and still not asked on %s", number, since.Format(time.DateOnly), res.Plan.LogicalDate.Format(time.DateOnly))
			}
		}
	}
	if b.charged() >= 300 {
		t.Errorf("%d tracking credits charged of the month's 300: the pace let the quota run out", b.charged())
	}
	if deferred == 0 {
		t.Error("nothing deferred in 12 nights: the quota did not press the pace")
	}
}

// Billed per shipment-month, the plan prices the tracking requests both
// ways, and a shipment answered this month is asked nightly at no extra
// cost.
func TestThePlanPricesTrackingBothWays(t *testing.T) {
	b := newBench(t, 1000, 1000)
	ships := visible(t, b.env.Service.World(), 20)
	b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}})
	b.env.Service.Clock().Advance(24 * time.Hour)
	perCall := b.run(t, jobs.RunOptions{DryRun: true}).Plan
	month := jobs.DefaultRefresh()
	month.Billing = jobs.BillPerShipmentMonth
	perMonth := b.run(t, jobs.RunOptions{DryRun: true, Refresh: &month}).Plan
	if perCall.ShipmentMonths != 0 || perCall.TrackingCredits() != perCall.Shipments || perCall.Shipments >= 20 {
		t.Errorf("per call: %d requests, %d credits, %d shipment-months; want fewer than 20 asked, a credit each, no new month", perCall.Shipments, perCall.TrackingCredits(), perCall.ShipmentMonths)
	}
	if perMonth.Shipments != 20 || perMonth.Refresh.Due[jobs.DueBilled] != 20 || perMonth.TrackingCredits() != 0 {
		t.Errorf("per shipment-month: %d requests (%v), %d credits; want all 20 billed this month, asked nightly for nothing", perMonth.Shipments, perMonth.Refresh.Due, perMonth.TrackingCredits())
	}
}
