package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
)

// Names of the refresh policy's flags (run; --billing also backfill).
const (
	flagRefresh         = "refresh"
	flagRefreshTiers    = "refresh-tiers"
	flagRefreshEvery    = "refresh-every"
	flagRefreshHorizons = "refresh-horizons"
	flagRefreshGuard    = "refresh-guard"
	flagPace            = "pace"
	flagPaceReserve     = "pace-reserve"
	flagBilling         = "billing"
)

// refreshFlags are the nightly run's refresh policy settings, each with
// its variable; their defaults are jobs.DefaultRefresh's.
func refreshFlags() []cli.Flag {
	def := jobs.DefaultRefresh()
	flags := []cli.Flag{
		&cli.StringFlag{Category: catRefresh, Name: flagRefresh, EnvVars: []string{"ETALAKE_REFRESH"}, Value: string(def.Mode),
			Usage: "which tracked shipments each night asks: adaptive (by the days until the ETA held, the report's horizons, the arrival: see --refresh-tiers, --refresh-every) " +
				"or nightly (every shipment not finished, every night, with a grace of 72h: what etalake did before)"},
	}
	flags = append(flags, adaptiveFlags(true)...)
	return append(flags,
		&cli.BoolFlag{Category: catCredits, Name: flagPace, EnvVars: []string{"ETALAKE_PACE"}, DefaultText: "on with --refresh adaptive when the balance is reported",
			Usage: "spread the tracking credits over the period: tonight's allowance is the period's remaining credits, less --pace-reserve, divided by the nights left in it; " +
				"past it the most valuable due shipments are asked (new, overdue, crossing a horizon, then the largest expected ETA change), the rest deferred to a later night, never past twice their interval; --pace=false: never"},
		&cli.StringFlag{Category: catCredits, Name: flagPaceReserve, EnvVars: []string{"ETALAKE_PACE_RESERVE"}, Value: fmt.Sprintf("%g%%", def.Pace.ReservePercent),
			Usage: "the credits of the period the pace keeps out of the allowance: a share of the period's credits (5%, 0 to 90%) or a count (500)"},
		billingFlag(),
	)
}

// adaptiveFlags are the adaptive policy's settings, their defaults
// jobs.DefaultRefresh's; with env each also reads its ETALAKE_ variable
// (the demo's do not: it takes nothing from the environment).
func adaptiveFlags(env bool) []cli.Flag {
	def := jobs.DefaultRefresh()
	var tiers, every []string
	for _, t := range def.Tiers {
		if t.Within > 0 {
			tiers = append(tiers, fmt.Sprintf("%s=%d", t.Name, t.Within))
		}
		every = append(every, fmt.Sprintf("%s=%d", t.Name, t.Every))
	}
	every = append(every, fmt.Sprintf("%s=%d", jobs.DueAtPOD, def.AtPOD))
	vars := func(name string) []string {
		if !env {
			return nil
		}
		return []string{name}
	}
	return []cli.Flag{
		&cli.StringFlag{Category: catRefresh, Name: flagRefreshTiers, EnvVars: vars("ETALAKE_REFRESH_TIERS"), Value: strings.Join(tiers, ","),
			Usage: "adaptive: the days until the ETA each tier reaches, NAME=DAYS,…; beyond takes every shipment further out; a tier not named keeps its default"},
		&cli.StringFlag{Category: catRefresh, Name: flagRefreshEvery, EnvVars: vars("ETALAKE_REFRESH_EVERY"), Value: strings.Join(every, ","),
			Usage: "adaptive: the nights between asks of each tier (an ETA passed counts as near), and of a shipment discharged at its port of discharge whose final destination is to come (at-pod), NAME=NIGHTS,… (1 to 60, never more often further out)"},
		&cli.StringFlag{Category: catRefresh, Name: flagRefreshHorizons, EnvVars: vars("ETALAKE_REFRESH_HORIZONS"), Value: joinInts(def.Horizons),
			Usage: "adaptive: ask a shipment once on the last night before its ETA comes within each of these days (the report's horizons, 1 to 60), or none"},
		&cli.StringFlag{Category: catRefresh, Name: flagRefreshGuard, EnvVars: vars("ETALAKE_REFRESH_GUARD"), Value: def.Guard.String(),
			Usage: "adaptive, below=DAYS,above=DAYS,every=NIGHTS: while the ETA held is more than below days nearer and at most above days further than a horizon, ask at least every so many nights, whatever the tier, " +
				"so that the ETA the report takes at the horizon is fresh; below=4,above=3,every=1 buys nightly's own ETAs at every horizon " +
				"(on the benchmark 58 % of nightly's credits, against the default's 43 %: BENCHMARKS.md); below=0,above=0: none, the crossing night alone"},
	}
}

// billingFlag is --billing: how the tracking product is paid for.
func billingFlag() cli.Flag {
	return &cli.StringFlag{Category: catCredits, Name: flagBilling, EnvVars: []string{"ETALAKE_BILLING"}, Value: string(jobs.BillPerCall),
		Usage: "how tracking is billed: per-call (a credit a call, the service's spec) or per-shipment-month (a credit per shipment asked in a UTC month: " +
			"a shipment already asked this month is asked nightly at no extra cost, one arrived is not asked in a new month); the plan prices both ways"}
}

// readRefresh reads the refresh policy from the flags of c (those it
// does not have keep their defaults): a setting that does not read is
// refused naming its variable and flag (exit 2). Whether the policy holds
// is the options' Validate's to say (jobs.RunOptions, jobs.DemoOptions).
func readRefresh(c *cli.Context) (jobs.Refresh, error) {
	r := jobs.DefaultRefresh()
	has := func(name string) bool {
		for _, f := range c.Command.Flags {
			for _, n := range f.Names() {
				if n == name {
					return true
				}
			}
		}
		return false
	}
	fail := func(flag string, err error) (jobs.Refresh, error) {
		return r, configError("%s %q: %v", settingName(c, flag), c.String(flag), err)
	}
	if has(flagRefresh) {
		r.Mode = jobs.RefreshMode(c.String(flagRefresh))
	}
	if has(flagRefreshTiers) {
		if err := setTiers(&r, c.String(flagRefreshTiers)); err != nil {
			return fail(flagRefreshTiers, err)
		}
	}
	if has(flagRefreshEvery) {
		if err := setEvery(&r, c.String(flagRefreshEvery)); err != nil {
			return fail(flagRefreshEvery, err)
		}
	}
	if has(flagRefreshHorizons) {
		h, err := parseHorizons(c.String(flagRefreshHorizons))
		if err != nil {
			return fail(flagRefreshHorizons, err)
		}
		r.Horizons = h
	}
	if has(flagRefreshGuard) {
		if err := setGuard(&r.Guard, c.String(flagRefreshGuard)); err != nil {
			return fail(flagRefreshGuard, err)
		}
	}
	if has(flagPace) && c.IsSet(flagPace) {
		r.Pace.Mode = jobs.PaceOff
		if c.Bool(flagPace) {
			r.Pace.Mode = jobs.PaceOn
		}
	}
	if has(flagPaceReserve) {
		if err := setReserve(&r.Pace, c.String(flagPaceReserve)); err != nil {
			return fail(flagPaceReserve, err)
		}
	}
	if has(flagBilling) {
		r.Billing = jobs.Billing(c.String(flagBilling))
	}
	return r, nil
}

// pairs reads NAME=N,… into names and whole numbers, in order; a part
// that does not read is refused with example, a part that would.
func pairs(s, example string) ([]string, []int, error) {
	var names []string
	var ns []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if !ok || err != nil {
			return nil, nil, fmt.Errorf("%q: want NAME=N, such as %s", part, example)
		}
		names, ns = append(names, strings.ToLower(strings.TrimSpace(name))), append(ns, n)
	}
	return names, ns, nil
}

// tierNames lists the names a setting takes, for a message.
func tierNames(r jobs.Refresh, bounded, atPOD bool) string {
	var names []string
	for i, t := range r.Tiers {
		if !bounded || i < len(r.Tiers)-1 {
			names = append(names, t.Name)
		}
	}
	if atPOD {
		names = append(names, jobs.DueAtPOD)
	}
	return strings.Join(names, ", ")
}

// setTiers sets the bounds of the named tiers.
func setTiers(r *jobs.Refresh, s string) error {
	names, days, err := pairs(s, "near=5")
	if err != nil {
		return err
	}
	last := r.Tiers[len(r.Tiers)-1].Name
	for i, name := range names {
		if name == last {
			return fmt.Errorf("%s has no bound: it takes every shipment further out than the tier before it", last)
		}
		j := tierIndex(*r, name)
		if j < 0 {
			return fmt.Errorf("no tier %q: want %s", name, tierNames(*r, true, false))
		}
		r.Tiers[j].Within = days[i]
	}
	return nil
}

// setEvery sets the nights between asks of the named tiers and at-pod.
func setEvery(r *jobs.Refresh, s string) error {
	names, nights, err := pairs(s, "near=1")
	if err != nil {
		return err
	}
	for i, name := range names {
		if name == jobs.DueAtPOD {
			r.AtPOD = nights[i]
			continue
		}
		j := tierIndex(*r, name)
		if j < 0 {
			return fmt.Errorf("no tier %q: want %s", name, tierNames(*r, false, true))
		}
		r.Tiers[j].Every = nights[i]
	}
	return nil
}

func tierIndex(r jobs.Refresh, name string) int {
	for i, t := range r.Tiers {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// setGuard sets the named parts of the horizon guard.
func setGuard(g *jobs.Guard, s string) error {
	names, ns, err := pairs(s, "below=4")
	if err != nil {
		return err
	}
	for i, name := range names {
		if err := g.Set(name, ns[i]); err != nil {
			return err
		}
	}
	return nil
}

// parseHorizons reads days,… or none.
func parseHorizons(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "none") {
		return []int{}, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number of days: want days such as 14,7,3,1, or none", part)
		}
		out = append(out, n)
	}
	return out, nil
}

// setReserve reads a share (5%) or a count (500).
func setReserve(p *jobs.Pace, s string) error {
	s = strings.TrimSpace(s)
	p.ReservePercent, p.ReserveCredits = 0, 0
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil {
			return fmt.Errorf("want a share such as 5%% or a count of credits such as 500")
		}
		p.ReservePercent = f
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a share such as 5%% or a count of credits such as 500")
	}
	p.ReserveCredits = n
	return nil
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

// graceFlag is --grace, with what it does for the command.
func graceFlag(usage string) cli.Flag {
	return &cli.DurationFlag{Category: catRefresh, Name: flagGrace, EnvVars: []string{"ETALAKE_GRACE"}, Value: jobs.DefaultGrace,
		DefaultText: "none; 72h with --refresh nightly", Usage: usage + ", 0 to 366 days"}
}
