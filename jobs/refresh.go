package jobs

import (
	"slices"
	"time"

	"github.com/etalake/etalake/internal/setting"
)

// Refresh is the policy that decides which tracked shipments the nightly
// run asks each night, and how it spends the tracking product's credits:
// from what the warehouse already holds of each shipment (when it was
// last observed, fetched or pushed, and the ETA that answer gave), the
// report's horizons, and the period's remaining credits. DefaultRefresh
// is the default; Validate says what is wrong with one.
//
// Adaptive (the default) asks a shipment never observed at once; one
// whose ETA is at most Tiers[0].Within days away, or past, every
// Tiers[0].Every nights; further out, the interval of its tier, at most
// Guard.Every nights while a horizon's cut may be near; once on the last
// night before its ETA comes within each of Horizons days; one
// discharged at its port of discharge with its final destination pending
// every AtPOD nights; and one arrived at its final place no more (unless
// RunOptions.Grace says otherwise). Nightly asks every shipment not
// finished every night, as etalake did before: its spend is the
// reference the adaptive policy is measured against.
//
// Measured on the simulator as issue 31 reports it (sim responses, seed 7,
// 400 shipments, 60 days, replayed), these tiers spent 58 % fewer
// tracking credits than nightly (4 181 instead of 9 874; on another seed
// 3 979 instead of 9 306) with the same ETA error under 7 days out (39.6 h
// against 39.8), the same time to see an arrival (0.51 day) and the same
// error 3 days out: an ETA 5 or more days out moves about 11 h a night
// there, and that movement is revision noise, not knowledge.
type Refresh struct {
	Mode RefreshMode
	// Tiers by days until the ETA held, nearest first: a shipment whose
	// ETA is at most Within days away (the last tier: any further) is
	// asked every Every nights. Within grows and Every never shrinks from
	// one tier to the next.
	Tiers []Tier
	// AtPOD is the nights between asks of a shipment discharged at its
	// port of discharge whose final destination is still to come.
	AtPOD int
	// Horizons are the report's horizons, in days: a shipment is asked
	// once on the last night before its ETA comes within each, so that
	// the ETA the report uses at that horizon is at most a night old.
	Horizons []int
	// Guard asks more often, whatever the tier, while a horizon's cut
	// may be near (see Guard).
	Guard   Guard
	Pace    Pace
	Billing Billing
}

// Tier is a band of days until the ETA and how often it is asked.
type Tier struct {
	Name   string
	Within int // days until the ETA held, at most; 0 on the last tier: any
	Every  int // nights between asks
}

// RefreshMode says how tracked shipments are chosen each night.
type RefreshMode string

// Refresh modes.
const (
	RefreshAdaptive RefreshMode = "adaptive"
	RefreshNightly  RefreshMode = "nightly"
)

// Billing says how the tracking product is paid for, which changes what
// costs a credit and so what is due.
type Billing string

// Billing models.
const (
	// BillPerCall: a credit per tracking call (the service's spec).
	BillPerCall Billing = "per-call"
	// BillPerShipmentMonth: a credit per shipment asked in a calendar
	// month (UTC), however often; a shipment already asked this month is
	// asked nightly at no extra cost, and one arrived at its final place
	// is not asked in a month it was not asked in yet.
	BillPerShipmentMonth Billing = "per-shipment-month"
)

// Pace spreads the tracking credits of a period over its nights: tonight's
// allowance is the period's remaining credits, less a reserve, divided by
// the nights left in it. When more is due than that, the most valuable are
// asked and the rest deferred to a later night (see pace.go).
type Pace struct {
	Mode PaceMode
	// The reserve kept out of the allowance, for asks no policy plans
	// (a backfill, shipments added in bulk): ReservePercent of the
	// period's initial credits (of the balance when the provider does not
	// say them), or ReserveCredits; not both.
	ReservePercent float64
	ReserveCredits int64
}

// PaceMode says when the run paces its tracking credits.
type PaceMode string

// Pace modes.
const (
	// PaceAuto paces the adaptive policy when the provider reports the
	// balance; the nightly policy asks everything, as before.
	PaceAuto PaceMode = "auto"
	PaceOn   PaceMode = "on"  // whenever the balance is reported
	PaceOff  PaceMode = "off" // never
)

// Grace defaults of each mode: how long after a shipment arrived at its
// final place it is still asked (RunOptions.Grace 0). The adaptive policy
// stops at the arrival: a grace of 3 days cost 7 % of the credits in the
// measurement above and changed no figure of the report. The nightly
// policy keeps the 3 days it always had, so that it spends what it did.
const (
	DefaultGrace time.Duration = 0
	NightlyGrace               = 3 * 24 * time.Hour
)

// NoGrace is the RunOptions.Grace of none whatever the mode: a shipment is
// not asked once it finished (a zero Grace is the mode's default).
const NoGrace time.Duration = -1

// DefaultRefresh is the adaptive policy with the tiers measured above:
// near (≤ 5 days or past) nightly, mid (≤ 10) every 2 nights, far (≤ 20)
// every 3, beyond weekly; at the POD with the final destination pending
// every 3 nights; the horizons 14, 7, 3 and 1 days, guarded by
// DefaultGuard; paced when the balance is known, 5 % of the period kept
// in reserve; billed per call.
func DefaultRefresh() Refresh {
	return Refresh{
		Mode: RefreshAdaptive,
		Tiers: []Tier{
			{Name: "near", Within: 5, Every: 1},
			{Name: "mid", Within: 10, Every: 2},
			{Name: "far", Within: 20, Every: 3},
			{Name: "beyond", Every: 7},
		},
		AtPOD:    3,
		Horizons: []int{14, 7, 3, 1},
		Guard:    DefaultGuard(),
		Pace:     Pace{Mode: PaceAuto, ReservePercent: 5},
		Billing:  BillPerCall,
	}
}

// NightlyRefresh is the nightly policy: every tracked shipment not
// finished, every night (with NightlyGrace), as etalake did before the
// adaptive policy; not paced unless Pace.Mode says PaceOn.
func NightlyRefresh() Refresh {
	r := DefaultRefresh()
	r.Mode = RefreshNightly
	return r
}

// Limits of the settings: no operator means a tier or a horizon past a
// year, nor a shipment left unasked for two months.
const (
	maxTierDays   = 366
	maxEveryNight = 60
	maxHorizon    = 60
	maxReserve    = 90 // percent
	maxTiers      = 8
)

// Validate says what is wrong with the policy, one rule at a time, as a
// *setting.Error naming the field (Mode, Tiers, Tiers.Every, AtPOD,
// Horizons, Guard, Pace.Mode, Pace.Reserve, Billing), or nil.
func (r Refresh) Validate() error {
	bad := setting.Wrong
	switch r.Mode {
	case RefreshAdaptive, RefreshNightly:
	default:
		return bad(fieldMode, "%q: want %s or %s", r.Mode, RefreshAdaptive, RefreshNightly)
	}
	if err := validateTiers(r.Tiers); err != nil {
		return err
	}
	if r.AtPOD < 1 || r.AtPOD > maxEveryNight {
		return bad(fieldAtPOD, "%s=%d: want 1 to %d nights", atPODName, r.AtPOD, maxEveryNight)
	}
	for i, h := range r.Horizons {
		if h < 1 || h > maxHorizon {
			return bad(fieldHorizons, "%d: want 1 to %d days", h, maxHorizon)
		}
		if slices.Contains(r.Horizons[:i], h) {
			return bad(fieldHorizons, "%d twice", h)
		}
	}
	if err := r.Guard.validate(); err != nil {
		return err
	}
	if err := r.Pace.validate(); err != nil {
		return err
	}
	switch r.Billing {
	case BillPerCall, BillPerShipmentMonth:
	default:
		return bad(fieldBilling, "%q: want %s or %s", r.Billing, BillPerCall, BillPerShipmentMonth)
	}
	return nil
}

// validateTiers refuses tiers that do not cover the future in order:
// each named once, each further out than the one before (the last
// unbounded), none asked more often than a nearer one.
func validateTiers(tiers []Tier) error {
	bad := setting.Wrong
	if len(tiers) == 0 || len(tiers) > maxTiers {
		return bad(fieldTiers, "%d tiers: want 1 to %d", len(tiers), maxTiers)
	}
	names := map[string]bool{}
	for i, t := range tiers {
		last := i == len(tiers)-1
		switch {
		case t.Name == "":
			return bad(fieldTiers, "tier %d has no name", i+1)
		case names[t.Name] || t.Name == atPODName:
			return bad(fieldTiers, "tier name %q twice", t.Name)
		case last && t.Within != 0:
			return bad(fieldTiers, "%s=%d: the last tier takes every shipment further out, it has no bound", t.Name, t.Within)
		case !last && (t.Within < 1 || t.Within > maxTierDays):
			return bad(fieldTiers, "%s=%d: want 1 to %d days until the ETA", t.Name, t.Within, maxTierDays)
		case i > 0 && !last && t.Within <= tiers[i-1].Within:
			return bad(fieldTiers, "%s=%d is not beyond %s=%d: want each tier further out than the one before", t.Name, t.Within, tiers[i-1].Name, tiers[i-1].Within)
		case t.Every < 1 || t.Every > maxEveryNight:
			return bad(fieldEvery, "%s=%d: want 1 to %d nights", t.Name, t.Every, maxEveryNight)
		case i > 0 && t.Every < tiers[i-1].Every:
			return bad(fieldEvery, "%s=%d is more often than %s=%d: a shipment further out would be asked more often than a nearer one", t.Name, t.Every, tiers[i-1].Name, tiers[i-1].Every)
		}
		names[t.Name] = true
	}
	return nil
}

// validate refuses a pacing mode not known, or a reserve out of range or
// given both as a share and as a count.
func (p Pace) validate() error {
	bad := setting.Wrong
	switch p.Mode {
	case PaceAuto, PaceOn, PaceOff:
	default:
		return bad(fieldPace, "%q: want %s, %s or %s", p.Mode, PaceAuto, PaceOn, PaceOff)
	}
	switch {
	case p.ReservePercent < 0 || p.ReservePercent > maxReserve:
		return bad(fieldReserve, "%g%%: want 0 to %d%% of the period's credits", p.ReservePercent, maxReserve)
	case p.ReserveCredits < 0:
		return bad(fieldReserve, "%d: want a count of 0 or more credits", p.ReserveCredits)
	case p.ReservePercent > 0 && p.ReserveCredits > 0:
		return bad(fieldReserve, "both %g%% and %d credits: want one", p.ReservePercent, p.ReserveCredits)
	}
	return nil
}

// The fields of a Refresh, as its *setting.Error names them.
const (
	fieldMode     = "Mode"
	fieldTiers    = "Tiers"
	fieldEvery    = "Tiers.Every"
	fieldAtPOD    = "AtPOD"
	fieldHorizons = "Horizons"
	fieldGuard    = "Guard"
	fieldPace     = "Pace.Mode"
	fieldReserve  = "Pace.Reserve"
	fieldBilling  = "Billing"
)

// atPODName is the name AtPOD goes by among the tiers' intervals (the
// command line's --refresh-every at-pod=3) and as a due reason.
const atPODName = "at-pod"

// grace is the grace of the policy for RunOptions.Grace g: g itself, the
// mode's default for 0, none for NoGrace.
func (r Refresh) grace(g time.Duration) time.Duration {
	switch {
	case g < 0:
		return 0
	case g > 0:
		return g
	case r.Mode == RefreshNightly:
		return NightlyGrace
	}
	return DefaultGrace
}
