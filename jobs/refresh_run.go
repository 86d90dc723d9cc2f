package jobs

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// RefreshPlan is what the refresh policy made of the tracked set for the
// night: what is due and why, what the pace allowed and deferred. Only
// the nightly run (RunOptions.Track) has one.
type RefreshPlan struct {
	Mode    RefreshMode
	Billing Billing
	// Active counts the tracked shipments not finished; Due those of
	// them due tonight, by reason (new, overdue, near, …, horizon-14;
	// before the checkpoint and the pace); NotDue the others. Dropped:
	// billed per shipment-month, arrived and not asked this month, so
	// never asked again.
	Active, NotDue, Dropped int
	Due                     map[string]int
	// Paced: the pace chose among what is due, within Allowance; else
	// NotPaced says why not (off, the nightly policy, no balance).
	Paced     bool
	NotPaced  string
	Allowance Allowance
	// Asked counts the due shipments asked tonight (after the
	// checkpoint), Beyond of them those asked past the allowance: never
	// observed, or a night more would leave them unasked past twice their
	// interval. Spent is the credits they cost under Billing.
	Asked, Beyond int
	Spent         int64
	// Deferred are the due shipments the pace left for a later night
	// (shipment:CT:MSCU1234566), the most valuable first, and DeferredBy
	// counts them by reason. They are due again tomorrow, and never wait
	// past twice their interval.
	Deferred   []string
	DeferredBy map[string]int
}

// DueTotal is how many tracked shipments are due tonight, whatever the
// reason.
func (p RefreshPlan) DueTotal() int {
	n := 0
	for _, k := range p.Due {
		n += k
	}
	return n
}

// Reasons are the reasons of counts, the most shipments first (then by
// name): the order the plan lists them in.
func Reasons(counts map[string]int) []string {
	keys := slices.Collect(maps.Keys(counts))
	sort.Slice(keys, func(i, j int) bool {
		a, b := counts[keys[i]], counts[keys[j]]
		return a > b || a == b && keys[i] < keys[j]
	})
	return keys
}

// trackedTonight is the tracked set with each shipment's state as of the
// end of the logical date and when each was last answered.
func (r *runner) trackedTonight(ctx context.Context) ([]Tracked, error) {
	rows, err := r.wh.Tracked(ctx)
	if err != nil {
		return nil, err
	}
	answered, err := r.wh.LastAnswered(ctx)
	if err != nil {
		return nil, err
	}
	tracked := TrackedAsOf(rows, r.logical.Add(24*time.Hour), r.grace)
	for i := range tracked {
		if at, ok := answered[shipmentResource(tracked[i].Ref).String()]; ok {
			tracked[i].LastAnswered = &at
		}
	}
	r.answered = answered
	return tracked, nil
}

// dueTonight is the shipments the refresh policy asks tonight among the
// tracked set (plus those a dry run would add), each decided once; it
// counts the rest in the plan.
func (r *runner) dueTonight(ctx context.Context, adding []wire.ShipmentRef) ([]wire.ShipmentRef, error) {
	tracked, err := r.trackedTonight(ctx)
	if err != nil {
		return nil, err
	}
	rp := &r.res.Plan.Refresh
	rp.Mode, rp.Billing, rp.Due = r.policy.Mode, r.policy.Billing, map[string]int{}
	r.dues = map[string]candidate{}
	var ships []wire.ShipmentRef
	known := map[string]bool{}
	sp := &r.res.Plan.Shard
	for _, t := range tracked {
		name := shipmentResource(t.Ref).String()
		if t.State != TrackRemoved {
			known[name] = true
			sp.Tracked.Of++
		}
		if !r.opt.Shard.Has(name) {
			continue // another worker's: not asked, not counted as this one's
		}
		if t.State != TrackRemoved {
			sp.Tracked.Mine++
		}
		d := r.policy.Decide(t, r.logical)
		switch {
		case t.State == TrackRemoved:
		case d.Reason == DueFinished:
			r.res.Plan.Finished++
		case d.Reason == DueDropped:
			rp.Dropped++
		case !d.Due:
			rp.Active++
			rp.NotDue++
		default:
			rp.Active++
			rp.Due[d.Reason]++
			r.dues[name] = candidate{t: t, due: d}
			ships = append(ships, t.Ref)
		}
	}
	// A dry run has not added the selection's shipments yet: those not
	// tracked are as new.
	for _, ref := range adding {
		name := shipmentResource(ref).String()
		if known[name] || r.dues[name].due.Due {
			continue
		}
		d := Decision{Due: true, Reason: DueNew, Starving: true, Nights: -1, DaysToETA: math.NaN()}
		rp.Active++
		rp.Due[DueNew]++
		r.dues[name] = candidate{t: Tracked{Ref: ref, State: TrackActive}, due: d}
		ships = append(ships, ref)
	}
	return ships, nil
}

// shipmentMonths counts the tracking requests of work whose shipment was
// not answered yet in the logical date's month: what they cost billed
// per shipment-month.
func (r *runner) shipmentMonths(work []workItem) int {
	n := 0
	for _, it := range work {
		if it.resource.Kind == KindShipment && !r.billed(it.resource.String()) {
			n++
		}
	}
	return n
}

// billed reports whether a shipment was answered in the logical date's
// month already: billed per shipment-month, asking it again is free.
func (r *runner) billed(name string) bool {
	at, ok := r.answered[name]
	return ok && sameMonth(at, r.logical)
}

// cost is what asking a shipment costs under the billing model.
func (r *runner) cost(name string) int64 {
	if r.policy.Billing == BillPerShipmentMonth && r.billed(name) {
		return 0
	}
	return 1
}

// pace keeps, of work, the due shipments the night's allowance affords
// (see choose) and defers the rest; everything else in work is asked.
// Without a pace (off, the nightly policy, no balance reported) every
// due shipment is asked.
func (r *runner) pace(ctx context.Context, work []workItem) ([]workItem, error) {
	if !r.opt.Track {
		return work, nil
	}
	rp := &r.res.Plan.Refresh
	cands, other := r.candidates(work)
	r.allow(len(cands))
	if !rp.Paced {
		for _, c := range cands {
			rp.Asked++
			rp.Spent += c.cost
		}
		return work, nil
	}
	allowance := max(0, rp.Allowance.Credits-other)
	var want int64
	for _, c := range cands {
		want += c.cost
	}
	if want > allowance { // values are needed only to choose
		if err := r.appraise(ctx, cands); err != nil {
			return nil, err
		}
	}
	split := choose(cands, allowance)
	rp.Asked, rp.Beyond, rp.Spent = len(split.asked), split.beyond, split.spent
	if len(split.deferred) == 0 {
		return work, nil
	}
	kept := r.deferOut(work, split.deferred)
	r.log.Info("run: paced: the night's allowance is spent on the most valuable shipments due, the rest deferred to a later night",
		"allowance", rp.Allowance.Credits, "remaining", rp.Allowance.Remaining, "reserve", rp.Allowance.Reserve,
		"nights_left", rp.Allowance.NightsLeft, "due", len(cands), "asked", rp.Asked, "beyond_allowance", rp.Beyond,
		"deferred", len(rp.Deferred), "first_deferred", firstOf(rp.Deferred, 3))
	return kept, nil
}

// candidates are the shipments of work the policy found due, each with
// its cost; other is the cost of the tracking asks no policy chose
// (--reask), which the allowance pays first.
func (r *runner) candidates(work []workItem) (cands []candidate, other int64) {
	for _, it := range work {
		if it.resource.Kind != KindShipment {
			continue
		}
		name := it.resource.String()
		c, ok := r.dues[name]
		if !ok {
			other += r.cost(name)
			continue
		}
		c.cost = r.cost(name)
		cands = append(cands, c)
	}
	return cands, other
}

// allow decides whether the night is paced, and its allowance when it is
// (a shard's share of the key's), or says why not; due counts the
// shipments due, for the warning of a pace asked for and impossible.
func (r *runner) allow(due int) {
	rp := &r.res.Plan.Refresh
	switch {
	case r.policy.Pace.Mode == PaceOff:
		rp.NotPaced = "--pace is off"
	case r.policy.Pace.Mode == PaceAuto && r.policy.Mode == RefreshNightly:
		rp.NotPaced = "the nightly policy asks everything unless --pace is on"
	default:
		a, ok := r.policy.Pace.Allowance(r.periods[wire.ProductTracking], r.logical)
		if !ok {
			rp.NotPaced = "the tracking product's balance is not reported"
			if r.policy.Pace.Mode == PaceOn && due > 0 {
				r.log.Warn("run: not paced: --pace is on but the tracking product's balance is not reported; every due shipment is asked",
					"due", due)
			}
			return
		}
		if !r.opt.Shard.Whole() {
			// The key's balance is every worker's: each takes its share.
			a.Credits /= int64(r.opt.Shard.Count)
		}
		rp.Paced, rp.Allowance = true, a
	}
}

// appraise sets each candidate's value, by the model of the warehouse's
// recent ETA changes.
func (r *runner) appraise(ctx context.Context, cands []candidate) error {
	changes, err := r.wh.ETAChanges(ctx, r.logical.Add(-modelHistory))
	if err != nil {
		return err
	}
	model := newETAModel(r.policy, changes)
	for i := range cands {
		cands[i].value = model.value(cands[i])
	}
	return nil
}

// deferOut records the deferred shipments, by name and reason, and
// returns work without them.
func (r *runner) deferOut(work []workItem, deferred []candidate) []workItem {
	rp := &r.res.Plan.Refresh
	rp.DeferredBy = map[string]int{}
	r.deferred = map[string]bool{}
	for _, c := range deferred {
		name := shipmentResource(c.t.Ref).String()
		rp.Deferred = append(rp.Deferred, name)
		rp.DeferredBy[c.due.Reason]++
		r.deferred[name] = true
	}
	kept := work[:0:0]
	for _, it := range work {
		if !r.deferred[it.resource.String()] {
			kept = append(kept, it)
		}
	}
	return kept
}

// saveDue records, for each tracked shipment whose word changed, the
// night the policy next asks it and why, as the warehouse holds it after
// tonight's answers (tracked_shipments.next_due_date, due_reason,
// deferred_since, due_as_of; data_freshness shows them). A shipment due
// tonight and not had — deferred, or its answer failed — keeps the night
// it first fell due, so that a date before the run's says it waits.
func (r *runner) saveDue(ctx context.Context) error {
	rows, err := r.wh.Tracked(ctx)
	if err != nil {
		return err
	}
	tracked, err := r.trackedTonight(ctx)
	if err != nil {
		return err
	}
	var changed []load.TrackedShipment
	for i, t := range tracked {
		name := shipmentResource(t.Ref).String()
		if t.State == TrackRemoved || !r.opt.Shard.Has(name) {
			continue // another worker's word, not this one's
		}
		next, reason := r.policy.NextDue(t, r.logical, r.grace)
		if t.State == TrackFinished {
			next, reason = nil, DueFinished
		}
		had := t.LastObserved != nil && nightsBetween(*t.LastObserved, r.logical) <= 0
		if c, ok := r.dues[name]; ok && !had {
			n := r.logical
			if t.NextDue != nil && t.NextDue.Before(n) {
				n = *t.NextDue
			}
			next, reason = &n, c.due.Reason
		}
		var deferred *time.Time
		if r.deferred[name] {
			d := r.logical
			if t.DeferredSince != nil {
				d = *t.DeferredSince
			}
			deferred = &d
		}
		row := rows[i]
		if sameDate(row.NextDue, next) && row.DueReason == reason && sameDate(row.DeferredSince, deferred) {
			continue
		}
		asOf := r.logical
		row.NextDue, row.DueReason, row.DeferredSince, row.DueAsOf = next, reason, deferred, &asOf
		changed = append(changed, row)
	}
	if err := r.wh.SaveTracked(ctx, changed); err != nil {
		return fmt.Errorf("recording when each tracked shipment is due next: %w", err)
	}
	return nil
}

// sameDate reports whether two optional dates are the same day.
func sameDate(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return dateOf(*a).Equal(dateOf(*b))
}

// refreshArgs is the refresh policy's night as recorded in
// etl_runs.args.refresh.
func refreshArgs(p RefreshPlan) map[string]any {
	args := map[string]any{"mode": p.Mode, "billing": p.Billing, "active": p.Active, "due": p.Due,
		"not_due": p.NotDue, "asked": p.Asked, "deferred": len(p.Deferred), "paced": p.Paced}
	if p.Paced {
		args["allowance"] = p.Allowance.Credits
		args["beyond_allowance"] = p.Beyond
	}
	if p.Dropped > 0 {
		args["dropped"] = p.Dropped
	}
	return args
}
