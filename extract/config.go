package extract

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/wire"
)

// Bounds of the settings Config.Validate checks. They keep out what no
// operator means: at a credit a page, 10 000 pages of one answer is a
// provider paging without end, not a schedule; an attempt of under a
// second fails on any real network, one of over an hour is a hung
// connection.
const (
	MaxPageSize     = 10000
	MaxPagesLimit   = 10000
	MaxScheduleDays = 366
	MinTimeout      = time.Second
	MaxTimeout      = time.Hour
)

// DefaultConfig is the configuration every zero member of a Config given
// to NewClient stands for: the service's schedule profile, the provider's
// page size, a schedule window of DefaultScheduleDays, at most
// DefaultMaxPages pages an answer, DefaultTimeout an attempt. The URLs and
// the key have no default.
func DefaultConfig() Config {
	return Config{
		ScheduleAPI:  wire.ScheduleAPIService,
		ScheduleDays: DefaultScheduleDays,
		MaxPages:     DefaultMaxPages,
		Timeout:      DefaultTimeout,
		UserAgent:    "etalake",
	}
}

// withDefaults fills the zero members of c from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	c.ScheduleAPI = cmp.Or(c.ScheduleAPI, d.ScheduleAPI)
	c.ScheduleDays = cmp.Or(c.ScheduleDays, d.ScheduleDays)
	c.MaxPages = cmp.Or(c.MaxPages, d.MaxPages)
	c.Timeout = cmp.Or(c.Timeout, d.Timeout)
	c.UserAgent = cmp.Or(c.UserAgent, d.UserAgent)
	return c
}

// Validate says the first rule c breaks, as a *setting.Error naming the
// field, or nil. It checks c as given: NewClient fills the zero members
// first (DefaultConfig), a caller that starts from DefaultConfig and sets
// what its user said checks that the user said nothing out of range.
func (c Config) Validate() error {
	return setting.First(
		c.validateURLs(),
		c.validateKey(),
		c.validateScheduleAPI(),
		pageSize(c.PageSize),
		setting.Int("ScheduleDays", c.ScheduleDays, 1, MaxScheduleDays),
		setting.Int("MaxPages", c.MaxPages, 1, MaxPagesLimit),
		setting.Duration("Timeout", c.Timeout, MinTimeout, MaxTimeout, "1s to 1h, such as 60s"),
		c.validatePaths(),
	)
}

func (c Config) validateURLs() error {
	if strings.TrimSpace(c.ScheduleURL) == "" && strings.TrimSpace(c.TrackingURL) == "" {
		return setting.Wrong("ScheduleURL", "neither {ScheduleURL} nor {TrackingURL} is set: want the base URL of the product you use, or both")
	}
	for _, b := range []struct{ field, url string }{{"ScheduleURL", c.ScheduleURL}, {"TrackingURL", c.TrackingURL}} {
		u, err := parseBase(b.field, b.url)
		if err != nil {
			return err
		}
		if u != nil && u.Scheme == "http" && !loopback(u.Hostname()) && !c.AllowInsecureHTTP {
			return setting.Refuse(b.field, strconv.Quote(u.String()),
				"https (plain http:// sends the API key in clear; it is taken to this machine only, localhost, 127.0.0.0/8 or ::1, unless {AllowInsecureHTTP} is set)")
		}
	}
	return nil
}

func (c Config) validateKey() error {
	if c.Key.IsZero() {
		return setting.Wrong("Key", "no API key: want the key the provider issued")
	}
	return nil
}

func (c Config) validateScheduleAPI() error {
	if _, err := wire.ParseScheduleAPI(string(c.ScheduleAPI)); err != nil {
		return setting.Refuse("ScheduleAPI", strconv.Quote(string(c.ScheduleAPI)), fmt.Sprintf("%s or %s", wire.ScheduleAPIService, wire.ScheduleAPIDCSA))
	}
	return nil
}

func (c Config) validatePaths() error {
	if c.Paths == (wire.Paths{}) {
		return nil // the profile's
	}
	if err := c.Paths.Validate(); err != nil {
		return setting.Wrong("Paths", "%v", err)
	}
	return nil
}

// pageSize checks a page size: 1 to MaxPageSize, or 0 for the provider's
// default.
func pageSize(n int) error {
	if n != 0 && (n < 1 || n > MaxPageSize) {
		return setting.Refuse("PageSize", n, fmt.Sprintf("1 to %d, or 0 for the default", MaxPageSize))
	}
	return nil
}
