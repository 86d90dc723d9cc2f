package jobs

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/etalake/etalake/wire"
)

// Allowance is tonight's share of the tracking product's credits: what
// remains of the period, less the reserve, divided by the nights left in
// it (tonight included), rounded down.
type Allowance struct {
	Remaining, Reserve int64
	NightsLeft         int
	PeriodEnd          time.Time
	Credits            int64
}

// Allowance is the allowance of night from the current period as the
// provider reported it. A period without an end is taken to end with the
// UTC calendar month (the spec's periods are monthly); the last night of
// a period may spend all but the reserve. ok is false without a balance.
func (p Pace) Allowance(period *wire.ConsumptionPeriod, night time.Time) (Allowance, bool) {
	if period == nil || period.Credits == nil {
		return Allowance{}, false
	}
	night = dateOf(night)
	a := Allowance{Remaining: *period.Credits}
	if period.PeriodEnd != nil && period.PeriodEnd.After(night) {
		a.PeriodEnd = period.PeriodEnd.UTC()
	} else {
		a.PeriodEnd = time.Date(night.Year(), night.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	}
	// An end given as the period's last instant (23:59:59) and one given
	// as the next period's start count the same nights.
	a.NightsLeft = max(1, int(math.Ceil(a.PeriodEnd.Sub(night).Hours()/24)))
	switch {
	case p.ReserveCredits > 0:
		a.Reserve = p.ReserveCredits
	case period.CreditsInitial != nil:
		a.Reserve = int64(math.Ceil(float64(*period.CreditsInitial) * p.ReservePercent / 100))
	default:
		a.Reserve = int64(math.Ceil(float64(a.Remaining) * p.ReservePercent / 100))
	}
	a.Credits = max(0, a.Remaining-a.Reserve) / int64(a.NightsLeft)
	return a, true
}

// candidate is a tracked shipment due tonight, with what asking it costs
// under the billing model and what it is worth.
type candidate struct {
	t    Tracked
	due  Decision
	cost int64
	// value is the expected change of its ETA since its last answer, in
	// hours, per day left until that ETA (see etaModel.value).
	value float64
}

// paced is how the pace split the shipments due tonight.
type paced struct {
	asked, deferred []candidate
	// beyond counts the asked that the allowance did not cover: never
	// observed, or due so long that a night more would starve them.
	beyond int
	spent  int64
}

// choose splits what is due tonight within allowance credits: what costs
// nothing, what was never observed and what would otherwise wait past
// twice its interval are asked whatever the allowance (the balance and
// the caps still bound them); the rest by rank — overdue first (its ETA
// passed: the arrival is what is missing), then horizon crossings (a
// crossing deferred is lost: the report's ETA at that horizon would be
// the one before), then the largest expected change of the ETA since the
// last answer, nearer arrivals weighted up — while the allowance lasts.
// The others are deferred: due again tomorrow, never lost.
func choose(cands []candidate, allowance int64) paced {
	var out paced
	var rest []candidate
	for _, c := range cands {
		switch {
		case c.cost == 0:
			out.asked = append(out.asked, c)
		case c.due.Starving:
			out.asked = append(out.asked, c)
			out.spent += c.cost
		default:
			rest = append(rest, c)
		}
	}
	out.beyond = max(0, int(out.spent-allowance))
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].before(rest[j]) })
	for _, c := range rest {
		if out.spent+c.cost > allowance {
			out.deferred = append(out.deferred, c)
			continue
		}
		out.asked = append(out.asked, c)
		out.spent += c.cost
	}
	return out
}

// rank is the class of a candidate: lower is asked first.
func (c candidate) rank() int {
	switch {
	case c.due.Reason == DueOverdue:
		return 0
	case strings.HasPrefix(c.due.Reason, horizonPrefix):
		return 1
	}
	return 2
}

// before orders candidates by rank, then value, then the longest unasked,
// then name: the same shipments every time for the same warehouse.
func (c candidate) before(o candidate) bool {
	if a, b := c.rank(), o.rank(); a != b {
		return a < b
	}
	if c.value != o.value {
		return c.value > o.value
	}
	if c.due.Nights != o.due.Nights {
		return c.due.Nights > o.due.Nights
	}
	return shipmentResource(c.t.Ref).String() < shipmentResource(o.t.Ref).String()
}
