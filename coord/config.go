package coord

import (
	"fmt"
	"log/slog"
	"net/url"
	"time"
)

// The settings of the coordinator, as flags and environment variables.
const (
	URLFlag   = "coordination"
	URLEnv    = "ETALAKE_COORDINATION"
	LeaseFlag = "coordination-lease"
	LeaseEnv  = "ETALAKE_COORDINATION_LEASE"
	WaitFlag  = "coordination-wait"
	WaitEnv   = "ETALAKE_COORDINATION_WAIT"
)

// Bounds of Config.Wait: how long a job waits for credits other live
// processes of the key hold (in flight) when only they keep it from the
// cap. A request takes seconds; a holder that keeps its credits for
// minutes is hung, and the job gives up (partial) rather than poll
// silently until the holder's lease ends.
const (
	DefaultWait = 2 * time.Minute
	MaxWait     = MaxLease
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
	// Wait is how long a Reserve waits for credits that live holders of
	// the key have in flight, when only they keep it from the cap, before
	// it gives up (extract.ErrBudgetSpent); 0 means DefaultWait, and
	// NoWait not at all.
	Wait time.Duration
	// Log, when set, is told when a Reserve begins to wait for credits
	// held by other processes, and until when their leases run.
	Log *slog.Logger
}

// NoWait is a Config.Wait of none: a Reserve that finds the cap held by
// others' credits in flight gives up at once.
const NoWait time.Duration = -1

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
	if c.Wait != NoWait && (c.Wait < 0 || c.Wait > MaxWait) {
		return fmt.Errorf("%s (--%s) %v: want 0s to %v, such as %v", WaitEnv, WaitFlag, c.Wait, MaxWait, DefaultWait)
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
