package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// policy is one way of refreshing the tracked set that the benchmark
// judges: a refresh policy, the tracking credits the key gets a period,
// and whether the vendor pushes.
type policy struct {
	Name string
	// Refresh is the policy of every night's run.
	Refresh jobs.Refresh
	// Paced: the key's tracking credits a period are set so that the
	// pace's allowance adds up to Share (-pace-share, a half by default)
	// of what nightly spent on the same world (pacedCredits); otherwise
	// the key has plentyCredits, which no allowance reaches.
	Paced bool
	Share float64
	// Pushes: the simulator pushes its webhooks, through a receiver, into
	// the warehouse's push landing before each night's run.
	Pushes bool
}

// plentyCredits a period are more than nightly asks in a month of the
// benchmark's worlds (a few thousand): the pace's allowance, (credits −
// 5 %) over the nights left in the month, never binds, as in the demo.
const plentyCredits = 50_000

// Names of the policies, as -policies takes them.
const (
	polNightly  = "nightly"
	polAdaptive = "adaptive"
	polPaced    = "paced"
	polWebhooks = "webhooks"
)

// policies are the benchmark's, in the order of its tables: nightly
// first, the reference the others are measured against.
func policies() []policy {
	return []policy{
		{Name: polNightly, Refresh: jobs.NightlyRefresh()},
		{Name: polAdaptive, Refresh: jobs.DefaultRefresh()},
		{Name: polPaced, Refresh: jobs.DefaultRefresh(), Paced: true},
		{Name: polWebhooks, Refresh: jobs.DefaultRefresh(), Pushes: true},
	}
}

// describe is what a policy is, for the report.
func (p policy) describe() string {
	d := p.kind()
	if p.Name != polNightly && p.Refresh.Guard != jobs.DefaultGuard() {
		d += ", the horizon guard set to " + p.Refresh.Guard.String() + " (`--refresh-guard`)"
	}
	return d
}

// kind is what a policy is with the default guard.
func (p policy) kind() string {
	switch p.Name {
	case polNightly:
		return "every tracked shipment not finished every night, grace 72 h (`--refresh nightly`)"
	case polAdaptive:
		return "the default: tiers, horizon crossings, grace 0, pace on but never reached"
	case polPaced:
		return fmt.Sprintf("the default, the key's credits set so that the pace's allowance adds up to %s of nightly's spend", percent(p.Share))
	case polWebhooks:
		return "the default, the simulator pushing its webhooks into the push landing between nights"
	}
	return p.Name
}

// choosePolicies keeps the policies named in list (comma-separated),
// nightly always included: the others are measured against it.
func choosePolicies(list string) ([]policy, error) {
	all := policies()
	if list == "" || list == "all" {
		return all, nil
	}
	want := map[string]bool{polNightly: true}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, p := range all {
			found = found || p.Name == n
		}
		if !found {
			return nil, fmt.Errorf("-policies: %q: want a list of %s, %s, %s, %s", n, polNightly, polAdaptive, polPaced, polWebhooks)
		}
		want[n] = true
	}
	var out []policy
	for _, p := range all {
		if want[p.Name] {
			out = append(out, p)
		}
	}
	return out, nil
}

// pacedCredits is the least tracking credits a period that make the
// pace's allowances over nights add up to share of spent, nightly's
// spend over the same nights (rounded up): the allowance of each night as
// pace computes it (jobs.Pace.Allowance: the period's remaining credits
// less the reserve, over the nights left in it), spent whole every
// night, the periods calendar months (the simulator's).
func pacedCredits(nights []time.Time, spent int64, share float64, pace jobs.Pace) int64 {
	target := int64(math.Ceil(float64(spent) * share))
	lo, hi := int64(0), max(spent, 1)*4
	for lo < hi {
		mid := (lo + hi) / 2
		if allowances(nights, mid, pace) >= target {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// allowances is what a run spending exactly its allowance every night
// spends over nights with credits a month.
func allowances(nights []time.Time, credits int64, pace jobs.Pace) int64 {
	var total, used int64
	var month time.Time
	for _, n := range nights {
		start := time.Date(n.Year(), n.Month(), 1, 0, 0, 0, 0, time.UTC)
		if !start.Equal(month) {
			month, used = start, 0
		}
		end := start.AddDate(0, 1, 0)
		remaining := credits - used
		a, _ := pace.Allowance(&wire.ConsumptionPeriod{CreditsInitial: &credits, Credits: &remaining, PeriodStart: &start, PeriodEnd: &end}, n)
		used += a.Credits
		total += a.Credits
	}
	return total
}

// percent writes a share as a percentage: 50 %, 33.3 %.
func percent(share float64) string {
	return strconv.FormatFloat(100*share, 'f', -1, 64) + " %"
}
