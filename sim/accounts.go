package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etalake/etalake/wire"
)

// KeySpec is an API key the simulated service knows, with its credits.
type KeySpec struct {
	Key string
	// Schedule and Tracking are the credits allocated per period to each
	// product; nil means the key has no access to that product (403).
	Schedule, Tracking *int64
	// Expires, when set, is the virtual time from which the key is refused
	// with 401.
	Expires time.Time
}

// ParseKeySpec reads KEY:SCHEDULE_CREDITS:TRACKING_CREDITS[:EXPIRES], where
// a credit count of "-" means no access to the product and EXPIRES is an
// RFC 3339 time or a date.
func ParseKeySpec(s string) (KeySpec, error) {
	parts := strings.Split(s, ":")
	bad := func(why string) (KeySpec, error) {
		// Never echo the key itself: name the shape instead.
		return KeySpec{}, fmt.Errorf("invalid key spec (%d fields): %s; want KEY:SCHEDULE_CREDITS:TRACKING_CREDITS[:EXPIRES] such as demo:500:200", len(parts), why)
	}
	if len(parts) < 3 {
		return bad("too few fields")
	}
	// An RFC 3339 expiry holds colons of its own: rejoin them.
	spec := KeySpec{Key: parts[0]}
	if spec.Key == "" || strings.ContainsAny(spec.Key, " \t\r\n") {
		return bad("the key must be non-empty without white space")
	}
	for i, dst := range []**int64{&spec.Schedule, &spec.Tracking} {
		f := strings.TrimSpace(parts[1+i])
		if f == "-" {
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return bad(fmt.Sprintf("credits %q are not a count ≥ 0 or -", f))
		}
		*dst = &n
	}
	if len(parts) > 3 {
		exp := strings.Join(parts[3:], ":")
		t, err := time.Parse(time.RFC3339, exp)
		if err != nil {
			if t, err = time.Parse(time.DateOnly, exp); err != nil {
				return bad(fmt.Sprintf("expiry %q is not RFC 3339 or YYYY-MM-DD", exp))
			}
		}
		spec.Expires = t.UTC()
	}
	return spec, nil
}

// account is the service's state for one key: credits used per product and
// period. Periods are calendar months of the virtual clock (UTC).
type account struct {
	spec   KeySpec
	keyID  string
	opened time.Time          // start of the first period
	used   map[usageKey]int64 // credits charged
}

type usageKey struct {
	product wire.Product
	period  time.Time
}

func newAccount(spec KeySpec, now time.Time) *account {
	start, _ := periodOf(now)
	return &account{spec: spec, keyID: KeyID(spec.Key), opened: start, used: map[usageKey]int64{}}
}

// KeyID is how the ledger and the stats name a key: a short one-way id
// (hex of a SHA-256 prefix), so that what the simulator serves never holds
// a key. A harness computes it from the key it gave to find its requests.
func KeyID(key string) string {
	sum := sha256.Sum256([]byte("etalake-sim-key:" + key))
	return hex.EncodeToString(sum[:8])
}

// periodOf returns the calendar month holding t.
func periodOf(t time.Time) (start, end time.Time) {
	t = t.UTC()
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

func (a *account) allocation(p wire.Product) *int64 {
	if p == wire.ProductTracking {
		return a.spec.Tracking
	}
	return a.spec.Schedule
}

func (a *account) expired(now time.Time) bool {
	return !a.spec.Expires.IsZero() && !now.Before(a.spec.Expires)
}

// remaining is the balance of product p in the period holding now.
func (a *account) remaining(p wire.Product, now time.Time) int64 {
	start, _ := periodOf(now)
	return *a.allocation(p) - a.used[usageKey{p, start}]
}

func (a *account) charge(p wire.Product, now time.Time) {
	start, _ := periodOf(now)
	a.used[usageKey{p, start}]++
}

// periods is the history of product p from the first period to the current
// one, oldest first.
func (a *account) periods(p wire.Product, now time.Time) []wire.ConsumptionPeriod {
	var out []wire.ConsumptionPeriod
	current, _ := periodOf(now)
	for start := a.opened; !start.After(current); start = start.AddDate(0, 1, 0) {
		out = append(out, a.period(p, start, now))
	}
	return out
}

func (a *account) period(p wire.Product, start, now time.Time) wire.ConsumptionPeriod {
	_, end := periodOf(start)
	initial := *a.allocation(p)
	credits := initial - a.used[usageKey{p, start}]
	expired := !now.Before(end)
	return wire.ConsumptionPeriod{
		CreditsInitial: &initial,
		Credits:        &credits,
		PeriodStart:    &start,
		PeriodEnd:      &end,
		Expired:        &expired,
	}
}
