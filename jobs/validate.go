package jobs

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// Bounds of the jobs' settings. They keep out what no operator means:
// past 100 jobs of one date asked in vain, no one is waiting for the
// service any more; a shipment arrived a year ago has nothing left to
// say; a demo of more than a quarter is a benchmark.
const (
	MaxReasksLimit = 100
	MaxGrace       = 366 * 24 * time.Hour
	MaxDemoDays    = 90
)

// Validate says the first rule opt breaks, as a *setting.Error naming
// the field (the refresh policy's under Refresh.), or nil. RunJob checks
// it after filling the zero members; a command checks it before it opens
// anything, so that a setting out of range costs nothing.
func (opt RunOptions) Validate() error {
	return setting.First(
		validCap("CapSchedule", opt.CapSchedule),
		validCap("CapTracking", opt.CapTracking),
		ValidateGrace(opt.Grace),
		setting.Int("MaxReasks", opt.MaxReasks, 1, MaxReasksLimit),
		validMaxBody(opt.MaxBody),
		setting.Duration("ProgressEvery", opt.ProgressEvery, 0, math.MaxInt64, "a duration such as 60s, or 0 for no progress events"),
		setting.Within("Refresh", opt.refresh().Validate()),
		opt.Shard.Validate(),
	)
}

// refresh is the policy of opt: DefaultRefresh when none is given.
func (opt RunOptions) refresh() Refresh {
	if opt.Refresh == nil {
		return DefaultRefresh()
	}
	return *opt.Refresh
}

// ValidateGrace checks a grace (RunOptions.Grace, and what TrackedAsOf
// takes): NoGrace, or 0 to MaxGrace.
func ValidateGrace(g time.Duration) error {
	if g == NoGrace {
		return nil
	}
	return setting.Duration("Grace", g, 0, MaxGrace, "0 to 366 days (8784h), such as 72h")
}

// validCap checks a cap: a count of 0 or more, or extract.Unlimited.
func validCap(field string, n int64) error {
	if n < 0 && n != extract.Unlimited {
		return setting.Refuse(field, n, "a count of 0 or more (extract.Unlimited: no cap but the balance)")
	}
	return nil
}

// validMaxBody checks MaxBody as a job holds it once defaulted: at least
// a byte.
func validMaxBody(n int64) error {
	if n < 1 {
		return setting.Refuse("MaxBody", n, "at least 1 byte")
	}
	return nil
}

// Validate says the first rule opt breaks, as a *setting.Error, or nil:
// To after From when both are set, MaxBody at least a byte. Replay checks
// it after filling a zero MaxBody (DefaultMaxBody).
func (opt ReplayOptions) Validate() error {
	if !opt.From.IsZero() && !opt.To.IsZero() && !opt.To.After(opt.From) {
		return setting.Refuse("To", opt.To.Format(time.DateOnly), "a date after {From}, "+opt.From.Format(time.DateOnly))
	}
	return validMaxBody(opt.MaxBody)
}

// Validate says the first rule opt breaks, as a *setting.Error, or nil:
// Endpoint and Request naming an answer together, MaxBody at least a
// byte. Import checks it after filling a zero MaxBody (DefaultMaxBody).
func (opt ImportOptions) Validate() error {
	if _, err := opt.identity(); err != nil {
		return setting.Wrong("Endpoint", "%v", err)
	}
	return validMaxBody(opt.MaxBody)
}

// Validate says the first rule opt breaks, as a *setting.Error, or nil:
// the days (1 to MaxDemoDays), and the world and the simulated service
// as the simulator's own rules have them (Shipments, ScheduleAPI,
// PageSize), and the refresh policy (under Refresh.).
func (opt DemoOptions) Validate() error {
	api, err := wire.ParseScheduleAPI(string(opt.ScheduleAPI))
	if err != nil {
		return setting.Refuse("ScheduleAPI", strconv.Quote(string(opt.ScheduleAPI)), string(wire.ScheduleAPIService)+" or "+string(wire.ScheduleAPIDCSA))
	}
	return setting.First(
		setting.Int("Days", opt.Days, 1, MaxDemoDays),
		opt.validateWorldDays(),
		opt.world().Validate(),
		demoService(api, opt.PageSize).Validate(),
		setting.Within("Refresh", opt.refresh().Validate()),
	)
}

// refresh is the demo's policy: DefaultRefresh when none is given.
func (opt DemoOptions) refresh() Refresh {
	if opt.Refresh == nil {
		return DefaultRefresh()
	}
	return *opt.Refresh
}

// world is the demo's simulated world: WorldDays long, else a week longer
// than its nights, so that the last night's shipments still have a
// future.
func (opt DemoOptions) world() sim.WorldConfig {
	days := opt.WorldDays
	if days == 0 {
		days = opt.Days + 7
	}
	return sim.WorldConfig{Seed: opt.Seed, Days: days, Shipments: opt.Shipments, Errors: opt.ETAErrors}
}

// validateWorldDays: a world at least as long as the nights run in it.
func (opt DemoOptions) validateWorldDays() error {
	if opt.WorldDays != 0 && opt.WorldDays < opt.Days {
		return setting.Refuse("WorldDays", opt.WorldDays, fmt.Sprintf("0 (a week more than Days) or at least Days (%d)", opt.Days))
	}
	return nil
}

// demoRate is the rate of the demo's simulator and client: the demo
// replays weeks in seconds, the service's 10 per 10 s would take days.
var demoRate = extract.Rate{N: 1000, Window: time.Second}

// demoService is the configuration of the demo's simulated service but
// its world, clock and keys.
func demoService(api wire.ScheduleAPI, pageSize int) sim.Config {
	return sim.Config{Rate: sim.Rate{N: demoRate.N, Window: demoRate.Window}, ScheduleAPI: string(api), PageSize: pageSize}
}
