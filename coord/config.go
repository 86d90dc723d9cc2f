package coord

import (
	"fmt"
	"net/url"
	"time"
)

// The settings of the coordinator, as flags and environment variables.
const (
	URLFlag   = "coordination"
	URLEnv    = "ETALAKE_COORDINATION"
	LeaseFlag = "coordination-lease"
	LeaseEnv  = "ETALAKE_COORDINATION_LEASE"
)

// Bounds of Config.Lease. A reservation is held from before the wait for a
// rate slot until the request's answer: shorter than a minute, a queue of
// workers on a busy key outlives it; a day is a crashed holder's credit
// lost for the night.
const (
	DefaultLease = 15 * time.Minute
	MinLease     = time.Minute
	MaxLease     = 24 * time.Hour
)

// Config says where the coordinator is. No URL is no coordination: the
// rate window is shared through the state directory, on one machine.
type Config struct {
	// URL is the Postgres database: postgres://user@host:port/db?sslmode=…
	// (the password best left to PGPASSWORD or ~/.pgpass).
	URL string
	// Lease is how long a reservation of a credit counts when its holder
	// never settles it; 0 means DefaultLease.
	Lease time.Duration
}

// Enabled reports whether a coordinator is configured.
func (c Config) Enabled() bool { return c.URL != "" }

// Validate says the first setting that does not hold, naming the
// variable and the flag, or nil.
func (c Config) Validate() error {
	if !c.Enabled() {
		return nil
	}
	bad := func(why string) error {
		return fmt.Errorf("%s (--%s) %q: %s; want postgres://user@host:port/db", URLEnv, URLFlag, redact(c.URL), why)
	}
	u, err := url.Parse(c.URL)
	switch {
	case err != nil:
		return bad("not a URL")
	case u.Scheme != "postgres" && u.Scheme != "postgresql":
		return bad("not a Postgres URL")
	case u.Host == "":
		return bad("no host")
	}
	if c.Lease != 0 && (c.Lease < MinLease || c.Lease > MaxLease) {
		return fmt.Errorf("%s (--%s) %v: want %v to %v, such as %v", LeaseEnv, LeaseFlag, c.Lease, MinLease, MaxLease, DefaultLease)
	}
	return nil
}

// redact hides the password of a URL for messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(not shown: it does not parse)"
	}
	if u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
