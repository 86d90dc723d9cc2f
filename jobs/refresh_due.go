package jobs

import (
	"fmt"
	"math"
	"time"
)

// Why a tracked shipment is due, or not (Plan.Refresh.Due counts them;
// tracked_shipments.due_reason and data_freshness show them). A tier's
// reason is its name (near, mid, far, beyond) and a horizon's
// "horizon-<days>" (horizon-14).
const (
	DueNew     = "new"     // never observed: asked at once
	DueOverdue = "overdue" // its ETA passed and it has not arrived at its POD
	DueAtPOD   = atPODName // discharged at its POD, its final destination to come
	DueNoETA   = "no-eta"  // observed, but no ETA at its POD held
	DueGrace   = "grace"   // arrived at its final place, within RunOptions.Grace
	DueBilled  = "billed"  // asked this month, billed per shipment-month: free
	DueNightly = "nightly" // the nightly policy: every shipment not finished
	// Never due again.
	DueFinished = "finished" // arrived at its final place, and the grace passed
	DueDropped  = "dropped"  // billed per shipment-month: arrived, not asked this month
)

// horizonReason is the reason of a horizon crossing: horizon-14.
func horizonReason(days int) string { return fmt.Sprintf("%s%d", horizonPrefix, days) }

const horizonPrefix = "horizon-"

// horizonLead is how many days before a horizon's crossing a shipment is
// asked for it: the night whose start is within horizon + horizonLead days
// of the ETA is the last one before the ETA comes within the horizon, so
// the answer is the one the report takes at that horizon (the latest seen
// at or before arrival − horizon), a night old at most.
const horizonLead = 1.0

// Decision is the policy's word on a tracked shipment for one night.
type Decision struct {
	Due    bool
	Reason string
	// Every is the nights its reason allows between asks (0 for a
	// shipment never observed); Nights those since the night it was last
	// observed (−1: never).
	Every, Nights int
	// DaysToETA is the days from the night's start to the ETA held (NaN
	// when none is held).
	DaysToETA float64
	// Starving: deferred tonight, it would go unasked longer than twice
	// Every, which the pace never lets happen.
	Starving bool
}

// nightsBetween counts the nights from the UTC date of a to that of b.
func nightsBetween(a, b time.Time) int {
	return int(dateOf(b).Sub(dateOf(a)) / (24 * time.Hour))
}

// sameMonth reports whether a and b are in the same UTC calendar month.
func sameMonth(a, b time.Time) bool {
	a, b = a.UTC(), b.UTC()
	return a.Year() == b.Year() && a.Month() == b.Month()
}

// Decide is the policy's word on t for night (a logical date, whose UTC
// date counts): due or not, and why. It reads no clock: the night is the
// policy's now. t carries its state as of that night (Tracked.State:
// finished once it arrived at its final place grace before the night
// ends).
func (r Refresh) Decide(t Tracked, night time.Time) Decision {
	night = dateOf(night)
	d := Decision{Nights: -1, DaysToETA: math.NaN()}
	if t.ETA != nil {
		d.DaysToETA = t.ETA.Sub(night).Hours() / 24
	}
	billed := r.Billing == BillPerShipmentMonth && t.LastAnswered != nil && sameMonth(*t.LastAnswered, night)
	switch {
	case t.State == TrackRemoved:
		return d
	case t.State == TrackFinished:
		d.Reason = DueFinished
		return d
	case t.Arrived != nil && r.Billing == BillPerShipmentMonth && !billed:
		// A new month would bill it again for the last container
		// events of a shipment already arrived.
		d.Reason = DueDropped
		return d
	case r.Mode == RefreshNightly:
		// Every night, whatever was observed when: as etalake always did
		// (the checkpoint keeps a second job of the date from asking).
		d.Due, d.Reason, d.Every, d.Starving = true, DueNightly, 1, true
		if t.LastObserved != nil {
			d.Nights = nightsBetween(*t.LastObserved, night)
			d.Starving = d.Nights >= 2
		}
		return d
	case t.LastObserved == nil:
		d.Due, d.Reason, d.Starving = true, DueNew, true
		return d
	}
	d.Nights = nightsBetween(*t.LastObserved, night)
	every := func(reason string, nights int) Decision {
		d.Reason, d.Every = reason, nights
		d.Due = d.Nights >= nights
		d.Starving = d.Nights >= 2*nights
		return d
	}
	near := r.Tiers[0].Every
	switch {
	case billed:
		return every(DueBilled, 1)
	case t.Arrived != nil:
		return every(DueGrace, near)
	case t.AtPOD:
		return every(DueAtPOD, r.AtPOD)
	case t.ETA == nil:
		return every(DueNoETA, near)
	case d.DaysToETA <= 0:
		return every(DueOverdue, near)
	}
	tier := r.tierOf(d.DaysToETA)
	if h, ok := r.crossing(*t.ETA, *t.LastObserved, night); ok && d.Nights >= 1 {
		d = every(horizonReason(h), r.guarded(d.DaysToETA, tier.Every))
		d.Due = true
		return d
	}
	return every(tier.Name, r.guarded(d.DaysToETA, tier.Every))
}

// tierOf is the tier of a shipment whose ETA is days away.
func (r Refresh) tierOf(days float64) Tier {
	for _, t := range r.Tiers {
		if t.Within == 0 || days <= float64(t.Within) {
			return t
		}
	}
	return r.Tiers[len(r.Tiers)-1]
}

// crossing reports the nearest horizon whose crossing night has come
// since the shipment was last observed: its ETA was more than horizon +
// horizonLead days from the night it was observed, and is no more from
// tonight's start. Once asked, it is observed within that lead, and not
// due for it again unless its ETA moves out past it.
func (r Refresh) crossing(eta, observed, night time.Time) (int, bool) {
	now := eta.Sub(night).Hours() / 24
	then := eta.Sub(dateOf(observed)).Hours() / 24
	best := 0
	for _, h := range r.Horizons {
		edge := float64(h) + horizonLead
		if now <= edge && then > edge && (best == 0 || h < best) {
			best = h
		}
	}
	return best, best > 0
}

// NextDue is the first night after night on which the policy asks t,
// with its reason, if t stays as the warehouse holds it now; nil with
// the reason when it is never asked again (finished, dropped).
func (r Refresh) NextDue(t Tracked, night time.Time, grace time.Duration) (*time.Time, string) {
	night = dateOf(night)
	// A tier's interval or a horizon comes within maxEveryNight nights;
	// a grace can last a year.
	for k := 1; k <= maxEveryNight+maxTierDays+1; k++ {
		n := night.AddDate(0, 0, k)
		d := r.Decide(t.asOf(n.Add(24*time.Hour), grace), n)
		switch {
		case d.Due:
			return &n, d.Reason
		case d.Reason == DueFinished || d.Reason == DueDropped:
			return nil, d.Reason
		}
	}
	return nil, ""
}
