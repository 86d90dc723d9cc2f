package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
)

// One validation per numeric setting, used by every command that takes
// it: a value out of its range is refused before anything is asked or
// opened (exit 2), naming the ETALAKE_* variable and the flag it came by
// and the range it takes. The ranges keep out what no operator means: a
// negative count, a cap of 0 jobs, a timeout no answer can meet, a
// grace of years that would refresh every finished shipment for ever.

// intSetting is a whole-number setting and the values it takes: min to
// max, and 0 when zero says what it means then.
type intSetting struct {
	flag     string
	min, max int
	zero     string
}

var (
	// settingMaxReasks: past 100 jobs of one date asked in vain, no
	// operator is waiting for the service any more.
	settingMaxReasks = intSetting{flag: flagMaxReasks, min: 1, max: 100}
	// settingMaxPages: at a credit a page, 10 000 pages of one answer is
	// a provider paging without end, not a schedule.
	settingMaxPages     = intSetting{flag: flagMaxPages, min: 1, max: 10000}
	settingPageSize     = intSetting{flag: flagPageSize, min: 1, max: 10000, zero: "the default"}
	settingScheduleDays = intSetting{flag: flagDays, min: 1, max: 366}
)

// read reads the setting from c, or refuses it.
func (s intSetting) read(c *cli.Context) (int, error) {
	n := c.Int(s.flag)
	if (n == 0 && s.zero != "") || (n >= s.min && n <= s.max) {
		return n, nil
	}
	want := fmt.Sprintf("%d to %d", s.min, s.max)
	if s.zero != "" {
		want += ", or 0 for " + s.zero
	}
	return 0, configError("%s %d: want %s", settingName(c, s.flag), n, want)
}

// durationSetting is a duration setting and the values it takes.
type durationSetting struct {
	flag     string
	min, max time.Duration
	want     string // the range, as a person says it
}

var (
	// settingTimeout: an attempt of under a second fails on any real
	// network; one of over an hour is a hung connection.
	settingTimeout = durationSetting{flag: flagTimeout, min: time.Second, max: time.Hour, want: "1s to 1h, such as 60s"}
	// settingGrace: a shipment arrived a year ago has nothing left to say.
	settingGrace       = durationSetting{flag: flagGrace, min: 0, max: 366 * 24 * time.Hour, want: "0 to 366 days (8784h), such as 72h"}
	settingLockTimeout = durationSetting{flag: flagLockTimeout, min: 0, max: 24 * time.Hour, want: "0 (do not wait) to 24h, such as 10m"}
)

// read reads the setting from c, or refuses it.
func (s durationSetting) read(c *cli.Context) (time.Duration, error) {
	d := c.Duration(s.flag)
	if d < s.min || d > s.max {
		return 0, configError("%s %s: want %s", settingName(c, s.flag), d, s.want)
	}
	return d, nil
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
