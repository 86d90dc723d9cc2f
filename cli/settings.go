package cli

import (
	"errors"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/setting"
)

// Every setting's rule lives with the configuration it sets (extract's
// Config, sim's Config and WorldConfig, jobs' RunOptions, DemoOptions and
// Refresh, load's Options): its Validate refuses a value out of range
// with a *setting.Error naming the field. A command fills the
// configuration from its flags and validates it before it asks, opens or
// creates anything (exit 2); settingError names the ETALAKE_* variable
// and the flag the value came by, from settingFlags.

// The ETALAKE_* variables named beyond the one flag that reads each: the
// key, which no flag reads (by design); the product URLs and the date, which sim
// serve's export line sets; the two that sim serve reads as the client
// does, so that one environment sets both; and the log format, which main
// reads to word the last line before the flags are parsed (writeExit).
// Every other variable is named once, in its flag's EnvVars, and messages
// name it from there (settingName).
const (
	envAPIKey      = "ETALAKE_API_KEY"
	envLogFormat   = "ETALAKE_LOG_FORMAT"
	envAuth        = "ETALAKE_AUTH"
	envScheduleAPI = "ETALAKE_SCHEDULE_API"
	envScheduleURL = "ETALAKE_SCHEDULE_URL"
	envTrackingURL = "ETALAKE_TRACKING_URL"
	envInsecure    = "ETALAKE_ALLOW_INSECURE_HTTP"
	envDate        = "ETALAKE_DATE"
)

// variables is every ETALAKE_* variable etalake reads, each named once:
// the variable of every flag of every command (its EnvVars, where it is
// written), and envAPIKey, which no flag reads. The tests read the
// environment through this list — run clears it, the README and the code
// are checked against it — and keep no list of their own.
func variables(app *cli.App) []string {
	names := []string{envAPIKey}
	add := func(flags []cli.Flag) {
		for _, f := range flags {
			if e, ok := f.(interface{ GetEnvVars() []string }); ok {
				names = append(names, e.GetEnvVars()...)
			}
		}
	}
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			add(c.Flags)
			walk(c.Subcommands)
		}
	}
	add(app.Flags)
	walk(app.Commands)
	slices.Sort(names)
	return slices.Compact(names)
}

// settingFlags maps the fields of the configurations, as a *setting.Error
// names them, to the flag that sets each: the same field of two
// configurations is one flag (PageSize is --page-size for the client, the
// demo and the simulator alike).
var settingFlags = map[string]string{
	// extract.Config
	"ScheduleURL": flagScheduleURL, "TrackingURL": flagTrackingURL, "AllowInsecureHTTP": flagInsecure, "Key": flagKeyFile, "ScheduleAPI": flagScheduleAPI,
	"PageSize": flagPageSize, "ScheduleDays": flagDays, "MaxPages": flagMaxPages, "Timeout": flagTimeout, "Paths": flagPaths,
	// jobs.RunOptions, ImportOptions, ReplayOptions, DemoOptions
	"CapSchedule": flagMaxCredits, "CapTracking": flagMaxTrackingCalls, "Grace": flagGrace, "MaxReasks": flagMaxReasks,
	"MaxBody": flagMaxBody, "ProgressEvery": flagProgressInterval, "From": "from", "To": "to", "Endpoint": "endpoint",
	"Refresh.Mode": flagRefresh, "Refresh.Tiers": flagRefreshTiers, "Refresh.Tiers.Every": flagRefreshEvery, "Refresh.AtPOD": flagRefreshEvery,
	"Refresh.Horizons": flagRefreshHorizons, "Refresh.Guard": flagRefreshGuard, "Refresh.Pace.Mode": flagPace, "Refresh.Pace.Reserve": flagPaceReserve, "Refresh.Billing": flagBilling,
	// load.Options
	"MemoryLimit": flagMemoryLimit, "LockTimeout": flagLockTimeout, "Threads": flagThreads,
	// sim.Config, sim.WorldConfig (and the demo's world)
	"Days": "days", "Shipments": "shipments", "Errors.LaneBiasH": "eta-lane-bias", "Errors.DriftH": "eta-drift", "Errors.TailsDF": "eta-tails",
	"Errors.PredictiveBiasH": "predictive-bias", "Errors.PredictiveGaps": "predictive-gaps", "DCSAVersion": "dcsa-version", "Rate": flagRate,
	"Faults.ErrorRate": "error-rate", "Faults.TruncateRate": "truncate-rate", "Faults.BurstRate": "burst-rate",
	"Faults.BurstLength": "burst-length", "Faults.LatencyMedian": "latency-median", "Faults.LatencyP99": "latency-p99",
	// webhook.Config, and webhook serve's own
	"Secret": flagSecretFile, "Tolerance": flagTolerance, "RotateEvery": flagRotateEvery, "Retention": flagIDRetention,
	// metrics.File
	"MetricsFile": flagMetricsFile,
	// jobs.Shard
	"Shard": flagShard,
}

// settingError words a configuration's *setting.Error with the variable
// and the flag of each field it names, as a usage error (exit 2); any
// other error passes unchanged.
func settingError(c *cli.Context, err error) error {
	var se *setting.Error
	if !errors.As(err, &se) {
		return err
	}
	return usageErr{errors.New(se.Say(func(field string) string {
		if flag, ok := settingFlags[field]; ok {
			return settingName(c, flag)
		}
		return field
	}))}
}

// readCap reads a cap, --max-credits or --max-tracking-calls: unset is no
// cap but the balance (extract.Unlimited); a value is a count of 0 or
// more — -1 too is refused, not taken for "no cap".
func readCap(c *cli.Context, flag string) (int64, error) {
	if !c.IsSet(flag) {
		return extract.Unlimited, nil
	}
	if n := c.Int64(flag); n >= 0 {
		return n, nil
	}
	return 0, configError("%s %d: want a count of 0 or more (unset: no cap but the balance)", settingName(c, flag), c.Int64(flag))
}

// readRate reads --rate, N/DURATION.
func readRate(c *cli.Context) (extract.Rate, error) {
	rate, err := extract.ParseRate(c.String(flagRate))
	if err != nil {
		return rate, configError("%s: %v", settingName(c, flagRate), err)
	}
	return rate, nil
}

// settingName names a flag of the running command for a message: its
// ETALAKE_* variable and the flag, "ETALAKE_MAX_REASKS (--max-reasks)",
// or the flag alone when it reads no variable.
func settingName(c *cli.Context, name string) string {
	if c.Command != nil {
		for _, f := range c.Command.Flags {
			env, ok := f.(interface{ GetEnvVars() []string })
			if ok && slices.Contains(f.Names(), name) && len(env.GetEnvVars()) > 0 {
				return env.GetEnvVars()[0] + " (--" + name + ")"
			}
		}
	}
	return "--" + name
}

// parseTime reads a flag time: RFC 3339 or a date (UTC midnight).
func parseTime(flag, s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, configError("--%s %q: want an RFC 3339 time (2026-01-05T00:00:00Z) or a date (2026-01-05)", flag, s)
}
