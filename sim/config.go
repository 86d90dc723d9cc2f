package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/etalake/etalake/internal/setting"
)

// MaxPageSize is the most root items a DCSA page may be held to
// (Config.PageSize): past it, paging is no limit.
const MaxPageSize = 10000

// Validate says the first rule c breaks, as a *setting.Error naming the
// field (Faults' under Faults.), or nil: the schedule profile, a page
// size and a DCSA version only in the DCSA profile, the rate, the faults.
// New checks it, after filling the zero Rate (DefaultRate).
func (c Config) Validate() error {
	dcsa := c.ScheduleAPI == ScheduleAPIDCSA
	return setting.First(
		c.validateScheduleAPI(),
		c.validatePageSize(dcsa),
		c.validateDCSAVersion(dcsa),
		c.Rate.validate(),
		setting.Within("Faults", c.Faults.Validate()),
	)
}

func (c Config) validateScheduleAPI() error {
	if c.ScheduleAPI != "" && !slices.Contains(ScheduleAPIs, c.ScheduleAPI) {
		return setting.Refuse("ScheduleAPI", strconv.Quote(c.ScheduleAPI), strings.Join(ScheduleAPIs, " or "))
	}
	return nil
}

func (c Config) validatePageSize(dcsa bool) error {
	switch {
	case c.PageSize < 0 || c.PageSize > MaxPageSize:
		return setting.Refuse("PageSize", c.PageSize, fmt.Sprintf("1 to %d, or 0 for the client's limit", MaxPageSize))
	case c.PageSize > 0 && !dcsa:
		return setting.Refuse("PageSize", c.PageSize, fmt.Sprintf("0 unless {ScheduleAPI} is %s, the only profile that pages its answers", ScheduleAPIDCSA))
	}
	return nil
}

func (c Config) validateDCSAVersion(dcsa bool) error {
	switch {
	case c.DCSAVersion == "":
	case !slices.Contains(DCSAVersions, c.DCSAVersion):
		return setting.Refuse("DCSAVersion", strconv.Quote(c.DCSAVersion), "one of "+strings.Join(DCSAVersions, ", "))
	case !dcsa:
		return setting.Refuse("DCSAVersion", strconv.Quote(c.DCSAVersion), fmt.Sprintf("none unless {ScheduleAPI} is %s, the only profile that has one", ScheduleAPIDCSA))
	}
	return nil
}

// validate checks a rate: at least one request per positive window.
func (r Rate) validate() error {
	if r.N < 1 || r.Window <= 0 {
		return setting.Refuse("Rate", r, "at least 1 request per window longer than 0")
	}
	return nil
}

// Bounds of a WorldConfig: past them a world takes longer to build than
// anyone waits for.
const (
	maxShipments = 1_000_000
	maxDays      = 3660
)

// DefaultWorldConfig is the world every zero member of a WorldConfig
// stands for: 400 shipments over 60 days from DefaultStart, seed 0, with
// the realistic ETA errors (DefaultETAErrors).
func DefaultWorldConfig() WorldConfig {
	e := DefaultETAErrors()
	return WorldConfig{Start: DefaultStart, Days: 60, Shipments: 400, Errors: &e}
}

// Validate says the first rule c breaks, as a *setting.Error, or nil:
// 1 to 1 000 000 shipments over 1 to 3 660 days, and the ETA errors'
// ranges (ETAErrors.Validate, under Errors.) when set. NewWorld takes a
// zero member for its default (DefaultWorldConfig).
func (c WorldConfig) Validate() error {
	var errs error
	if c.Errors != nil {
		errs = setting.Within("Errors", c.Errors.Validate())
	}
	return setting.First(
		setting.Int("Shipments", c.Shipments, 1, maxShipments),
		setting.Int("Days", c.Days, 1, maxDays),
		errs,
	)
}
