package jobs_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// night0 is the night the policy tests start on; every shipment of them
// was last observed at 02:00 that night, as a nightly run at 02:00 sees
// it.
var night0 = time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)

// observedAt is a shipment observed at 02:00 of night, its POD ETA days
// away from that night's start (none when days is NaN-free nil).
func observedAt(night time.Time, etaDays float64) jobs.Tracked {
	seen := night.Add(2 * time.Hour)
	eta := night.Add(time.Duration(etaDays * 24 * float64(time.Hour)))
	return jobs.Tracked{Ref: wire.ShipmentRef{Number: "MSCU1234566", Type: wire.ShipmentContainer}, State: jobs.TrackActive,
		Carrier: "MSCU", LastObserved: &seen, ETA: &eta}
}

// nextDue is the night after night0 the policy next asks t, as days
// after night0 (0: never), and why.
func nextDue(t *testing.T, r jobs.Refresh, s jobs.Tracked) (int, string) {
	t.Helper()
	at, why := r.NextDue(s, night0, 0)
	if at == nil {
		return 0, why
	}
	return int(at.Sub(night0) / (24 * time.Hour)), why
}

// Each tier is asked at its interval from the night it was last
// observed: the ETA 5 days away or less (or past) nightly, 5 to 10 every
// 2 nights, 10 to 20 every 3, further weekly; at the port of discharge
// with the final destination to come every 3; arrived at its final place
// never again. (Without horizons, which add asks of their own.)
func TestDueDatesFollowTheTiers(t *testing.T) {
	r := jobs.DefaultRefresh()
	r.Horizons = nil
	atPOD := observedAt(night0, 0)
	atPOD.ETA, atPOD.AtPOD = nil, true
	arrived := observedAt(night0, 0)
	arrivedAt := night0.Add(-time.Hour)
	arrived.ETA, arrived.Arrived, arrived.State = nil, &arrivedAt, jobs.TrackFinished
	noETA := observedAt(night0, 0)
	noETA.ETA = nil
	for _, tc := range []struct {
		name   string
		s      jobs.Tracked
		nights int
		reason string
	}{
		{"3 days away: nightly", observedAt(night0, 3.5), 1, "near"},
		{"ETA passed, not arrived: nightly", observedAt(night0, -0.5), 1, jobs.DueOverdue},
		{"9.5 days away: every 2 nights", observedAt(night0, 9.5), 2, "mid"},
		{"19.5 days away: every 3 nights", observedAt(night0, 19.5), 3, "far"},
		{"40 days away: weekly", observedAt(night0, 40), 7, "beyond"},
		{"21 days away: the tier it reaches by then", observedAt(night0, 21), 3, "far"},
		{"discharged, final destination to come: every 3 nights", atPOD, 3, jobs.DueAtPOD},
		{"observed without an ETA: nightly", noETA, 1, jobs.DueNoETA},
		{"arrived at its final place: never", arrived, 0, jobs.DueFinished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n, why := nextDue(t, r, tc.s); n != tc.nights || why != tc.reason {
				t.Errorf("next due %d nights after it was observed (%s); want %d (%s)", n, why, tc.nights, tc.reason)
			}
		})
	}
	// Never observed: due at once, whatever else.
	never := jobs.Tracked{Ref: wire.ShipmentRef{Number: "MSCU1234566", Type: wire.ShipmentContainer}, State: jobs.TrackActive}
	if d := r.Decide(never, night0); !d.Due || d.Reason != jobs.DueNew || !d.Starving {
		t.Errorf("never observed: %+v; want due now as new, never deferred", d)
	}
	// Observed tonight already: not due again tonight.
	if d := r.Decide(observedAt(night0, 2), night0); d.Due {
		t.Errorf("observed tonight: %+v; want not due", d)
	}
}

// The tier intervals are settings: a slower far tier asks later.
func TestTierIntervalsAreSettings(t *testing.T) {
	r := jobs.DefaultRefresh()
	r.Horizons = nil
	r.Tiers[2].Every, r.Tiers[3].Every = 5, 14
	if n, why := nextDue(t, r, observedAt(night0, 19.5)); n != 5 || why != "far" {
		t.Errorf("far every 5: next due after %d nights (%s)", n, why)
	}
	if n, why := nextDue(t, r, observedAt(night0, 60)); n != 14 || why != "beyond" {
		t.Errorf("beyond every 14: next due after %d nights (%s)", n, why)
	}
}

// A shipment asked as the policy says, night after night with a fake
// clock, from 30 days out to its arrival: each report horizon is asked on
// the last night before the ETA comes within it, so the ETA the report
// uses at 14, 7, 3 and 1 days was seen at most a night before; and it is
// asked about half as often as every night.
func TestEachHorizonIsAskedOnTheLastNightBeforeTheETAComesWithinIt(t *testing.T) {
	r := jobs.DefaultRefresh()
	clock := fakeclock.New(night0)
	eta := night0.AddDate(0, 0, 30).Add(7 * time.Hour)
	s := jobs.Tracked{Ref: wire.ShipmentRef{Number: "MSCU1234566", Type: wire.ShipmentContainer}, State: jobs.TrackActive, ETA: &eta}
	var asked []time.Time
	reasons := map[string]int{}
	for clock.Now().Before(eta) {
		night := clock.Now()
		if d := r.Decide(s, night); d.Due {
			seen := night.Add(2 * time.Hour)
			s.LastObserved = &seen
			asked = append(asked, seen)
			reasons[d.Reason]++
		}
		clock.Advance(24 * time.Hour)
	}
	for _, h := range []int{14, 7, 3, 1} {
		cut := eta.AddDate(0, 0, -h)
		var used time.Time
		for _, a := range asked {
			if !a.After(cut) {
				used = a
			}
		}
		if age := cut.Sub(used); age > 24*time.Hour {
			t.Errorf("%d days before the ETA: the latest answer is %s old; want a night at most", h, age)
		}
	}
	if n := len(asked); n > 30*6/10 {
		t.Errorf("asked %d times in 30 nights (%v); want well under nightly's 30", n, reasons)
	}
	if reasons["horizon-14"] != 1 {
		t.Errorf("the 14-day horizon asked %d times (%v); want once", reasons["horizon-14"], reasons)
	}
}

// A shipment updated by a pushed answer (observed mid-afternoon, no
// fetch) is not due again until its tier says so, counted from the push.
func TestAShipmentUpdatedByAPushIsNotDueUntilItsTierSays(t *testing.T) {
	r := jobs.DefaultRefresh()
	r.Horizons = nil
	s := observedAt(night0.AddDate(0, 0, -2), 9.5+2) // asked two nights ago, 9.5 days out tonight
	if d := r.Decide(s, night0); !d.Due || d.Reason != "mid" {
		t.Fatalf("before the push: %+v; want due (mid)", d)
	}
	pushed := night0.Add(-9 * time.Hour) // yesterday 15:00
	s.LastObserved = &pushed
	if d := r.Decide(s, night0); d.Due {
		t.Errorf("the night after a push: %+v; want not due", d)
	}
	if at, why := r.NextDue(s, night0, 0); at == nil || !at.Equal(night0.AddDate(0, 0, 1)) {
		t.Errorf("after the push: next due %v (%s); want two nights after the push", at, why)
	}
}

// --refresh nightly asks every shipment not finished every night, even
// one observed an hour ago: the spend of etalake before the policy.
func TestNightlyAsksEveryShipmentEveryNight(t *testing.T) {
	r := jobs.NightlyRefresh()
	for _, days := range []float64{40, 12, 3, -1} {
		if d := r.Decide(observedAt(night0, days), night0); !d.Due || d.Reason != jobs.DueNightly {
			t.Errorf("ETA %g days away: %+v; want due nightly", days, d)
		}
	}
}

// Billed per shipment-month, a shipment already asked this month is asked
// nightly (it costs nothing more); one arrived is not asked in a month it
// was not asked in yet, while nightly it would be for its grace.
func TestBilledPerShipmentMonth(t *testing.T) {
	r := jobs.DefaultRefresh()
	r.Billing = jobs.BillPerShipmentMonth
	s := observedAt(night0, 40) // beyond: weekly if billed per call
	answered := night0
	s.LastAnswered = &answered
	if n, why := nextDue(t, r, s); n != 1 || why != jobs.DueBilled {
		t.Errorf("asked this month: next due after %d nights (%s); want the next night, billed", n, why)
	}
	// Asked on the last night of February: March is another month.
	feb := time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)
	s = observedAt(feb, 40)
	s.LastAnswered = &feb
	if at, why := r.NextDue(s, feb, 0); at == nil || !at.Equal(feb.AddDate(0, 0, 7)) || why != "beyond" {
		t.Errorf("asked on 02-28: next due %v (%s); want 03-07 by its tier, not nightly into a new month", at, why)
	}
	// Arrived on 02-27, with a grace of 3 days: nightly within February,
	// dropped before March.
	arrived := feb.Add(-22 * time.Hour)
	s.ETA, s.Arrived = nil, &arrived
	if at, why := r.NextDue(s, feb, 72*time.Hour); at != nil || why != jobs.DueDropped {
		t.Errorf("arrived, in its grace, at a month's end: next due %v (%s); want dropped", at, why)
	}
	r.Billing = jobs.BillPerCall
	if at, why := r.NextDue(s, feb, 72*time.Hour); at == nil || why != jobs.DueGrace {
		t.Errorf("billed per call, in its grace: next due %v (%s); want asked for its grace", at, why)
	}
}

// The pace's allowance is what remains of the period, less the reserve,
// over the nights left in it, tonight included: at the period's start,
// in its middle and on its last night (which may spend all but the
// reserve).
func TestPaceAllowanceAtPeriodStartMiddleAndEnd(t *testing.T) {
	ptr := func(n int64) *int64 { return &n }
	at := func(y int, m time.Month, d int) *time.Time { t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC); return &t }
	march := func(credits int64) *wire.ConsumptionPeriod {
		return &wire.ConsumptionPeriod{CreditsInitial: ptr(3100), Credits: ptr(credits), PeriodStart: at(2026, 3, 1), PeriodEnd: at(2026, 4, 1)}
	}
	noReserve := jobs.Pace{Mode: jobs.PaceOn}
	tenPercent := jobs.Pace{Mode: jobs.PaceOn, ReservePercent: 10}
	for _, tc := range []struct {
		name    string
		pace    jobs.Pace
		period  *wire.ConsumptionPeriod
		night   time.Time
		nights  int
		credits int64
	}{
		{"start: 31 nights", noReserve, march(3100), *at(2026, 3, 1), 31, 100},
		{"middle: 16 nights", noReserve, march(1600), *at(2026, 3, 16), 16, 100},
		{"middle, behind: less each night", noReserve, march(800), *at(2026, 3, 16), 16, 50},
		{"end: all that is left", noReserve, march(77), *at(2026, 3, 31), 1, 77},
		{"end, with 10 % in reserve", tenPercent, march(400), *at(2026, 3, 31), 1, 90},
		{"reserve larger than what is left", tenPercent, march(300), *at(2026, 3, 20), 12, 0},
		{"a count in reserve", jobs.Pace{Mode: jobs.PaceOn, ReserveCredits: 100}, march(1700), *at(2026, 3, 16), 16, 100},
		{"the night of a run at 02:00 counts as that night", noReserve, march(1600), at(2026, 3, 16).Add(2 * time.Hour), 16, 100},
		{"a period ending at its last second", noReserve,
			&wire.ConsumptionPeriod{Credits: ptr(1600), PeriodEnd: func() *time.Time { t := time.Date(2026, 3, 31, 23, 59, 59, 0, time.UTC); return &t }()},
			*at(2026, 3, 16), 16, 100},
		{"a period without an end: the calendar month", noReserve, &wire.ConsumptionPeriod{Credits: ptr(1600)}, *at(2026, 3, 16), 16, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := tc.pace.Allowance(tc.period, tc.night)
			if !ok || a.NightsLeft != tc.nights || a.Credits != tc.credits {
				t.Errorf("%+v (%v); want %d nights left, %d credits tonight", a, ok, tc.nights, tc.credits)
			}
		})
	}
	if _, ok := noReserve.Allowance(&wire.ConsumptionPeriod{CreditsInitial: ptr(10)}, night0); ok {
		t.Error("an allowance without a balance")
	}
}

// A policy that makes no sense is refused, naming the setting and what
// it wants.
func TestNonsensePoliciesAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*jobs.Refresh)
		setting string
		mention string
	}{
		{"unknown mode", func(r *jobs.Refresh) { r.Mode = "sometimes" }, "Mode", "want adaptive or nightly"},
		{"tiers out of order", func(r *jobs.Refresh) { r.Tiers[1].Within = 4 }, "Tiers", "mid=4 is not beyond near=5"},
		{"a bound on the last tier", func(r *jobs.Refresh) { r.Tiers[3].Within = 40 }, "Tiers", "has no bound"},
		{"a nearer tier asked less often", func(r *jobs.Refresh) { r.Tiers[0].Every = 4 }, "Tiers.Every", "mid=2 is more often than near=4"},
		{"zero nights", func(r *jobs.Refresh) { r.Tiers[0].Every = 0 }, "Tiers.Every", "near=0: want 1 to 60 nights"},
		{"at-pod of a year", func(r *jobs.Refresh) { r.AtPOD = 365 }, "AtPOD", "at-pod=365"},
		{"a horizon of 0 days", func(r *jobs.Refresh) { r.Horizons = []int{14, 0} }, "Horizons", "0: want 1 to 60 days"},
		{"a horizon twice", func(r *jobs.Refresh) { r.Horizons = []int{7, 7} }, "Horizons", "7 twice"},
		{"a guard of no nights", func(r *jobs.Refresh) { r.Guard.Every = 0 }, "Guard", "every=0: want 1 to 60 nights"},
		{"a guard below by minus", func(r *jobs.Refresh) { r.Guard.Below = -1 }, "Guard", "below=-1: want 0 to 60 days"},
		{"a guard above by a year", func(r *jobs.Refresh) { r.Guard.Above = 365 }, "Guard", "above=365: want 0 to 60 days"},
		{"a reserve of everything", func(r *jobs.Refresh) { r.Pace.ReservePercent = 100 }, "Pace.Reserve", "want 0 to 90%"},
		{"unknown billing", func(r *jobs.Refresh) { r.Billing = "per-byte" }, "Billing", "per-call or per-shipment-month"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := jobs.DefaultRefresh()
			tc.change(&r)
			var se *setting.Error
			err := r.Validate()
			if !errors.As(err, &se) || se.Field != tc.setting || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("%v; want the %s setting refused, saying %q", err, tc.setting, tc.mention)
			}
		})
	}
	if err := jobs.DefaultRefresh().Validate(); err != nil {
		t.Errorf("the default policy: %v", err)
	}
	none := jobs.DefaultRefresh()
	none.Guard = jobs.Guard{Every: 1}
	if err := none.Validate(); err != nil {
		t.Errorf("no guard (below=0,above=0): %v", err)
	}
}
