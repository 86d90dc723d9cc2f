package extract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Bounds of a Rate accepted by ParseRate and NewLimiter.
const (
	maxRateN      = 10000
	maxRateWindow = 24 * time.Hour
)

// Rate is the service's request limit per API key: at most N requests in
// any Window (service.md §8: 10 per 10 s).
type Rate struct {
	N      int
	Window time.Duration
}

// DefaultRate is the service's documented limit.
var DefaultRate = Rate{N: 10, Window: 10 * time.Second}

// ParseRate parses "N/DURATION", e.g. "10/10s", "600/1m", "5/500ms" or
// "100/1h". Surrounding spaces, and spaces around the slash, are ignored.
// N must be between 1 and 10000 and the window longer than zero and at most
// 24h. Errors are *InputError values naming the input and the expected form.
func ParseRate(s string) (Rate, error) {
	bad := func(want string) (Rate, error) {
		return Rate{}, &InputError{Field: "rate", Value: s, Want: want}
	}
	ns, ws, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return bad("N/DURATION such as 10/10s")
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil {
		return bad("N/DURATION such as 10/10s, N a whole number")
	}
	w, err := time.ParseDuration(strings.TrimSpace(ws))
	if err != nil {
		return bad("N/DURATION such as 10/10s, DURATION with a unit (ms, s, m, h)")
	}
	r := Rate{N: n, Window: w}
	if err := r.validate(); err != nil {
		return bad(err.Error() + ", such as 10/10s")
	}
	return r, nil
}

func (r Rate) validate() error {
	if r.N < 1 || r.N > maxRateN {
		return fmt.Errorf("N/DURATION with N from 1 to %d", maxRateN)
	}
	if r.Window <= 0 || r.Window > maxRateWindow {
		return errors.New("N/DURATION with a window longer than 0 and at most 24h")
	}
	return nil
}

// String formats the rate as ParseRate reads it, with the window in the
// largest unit that divides it exactly: "10/10s", "600/1m", "5/500ms".
func (r Rate) String() string {
	return strconv.Itoa(r.N) + "/" + formatWindow(r.Window)
}

func formatWindow(d time.Duration) string {
	units := []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "us"}}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// DefaultMargin is the safety margin added to every slot's lifetime when
// LimiterConfig.Margin is zero: max(50ms, Window/100), at most Window/10
// (100ms for the default 10/10s, a 1% loss of throughput).
//
// The limiter stamps a request when it lets it go; the server counts it when
// it arrives, a little later. Two requests N apart may be delayed
// differently (connection setup, scheduling, a slow first byte), so the
// server may see them closer together than we stamped them. Keeping each
// slot for Window+Margin absorbs that jitter, which is small next to the
// window.
func DefaultMargin(r Rate) time.Duration {
	return min(max(50*time.Millisecond, r.Window/100), r.Window/10)
}

// DefaultStateDir is where limiters of every etalake process of this user
// share their state: $XDG_STATE_HOME/etalake/ratelimit when XDG_STATE_HOME
// is an absolute path, else os.UserCacheDir()/etalake/ratelimit. The
// directory is created with mode 0700.
func DefaultStateDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("rate limiter state directory: %w", err)
		}
		base = cache
	}
	dir := filepath.Join(base, "etalake", "ratelimit")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("rate limiter state directory: %w", err)
	}
	return dir, nil
}

// LimiterConfig configures NewLimiter.
type LimiterConfig struct {
	Rate Rate
	// Margin is added to each slot's lifetime, for the delay between our
	// stamp and the server's count (see DefaultMargin); 0 means
	// DefaultMargin(Rate).
	Margin time.Duration
	// Clock tells the time and sleeps; nil means SystemClock{}.
	Clock Clock
	// Dir is the directory of the state file shared with other processes;
	// "" keeps the state in this process only.
	Dir string
	// KeyID names the state file: a fingerprint of the API key
	// (Key.Fingerprint), never the key itself. Letters, digits, '-' and '_'
	// only; required when Dir is set.
	KeyID string
	// Shared is the key's window kept by a coordinator, shared with the
	// processes of every machine (SharedWindow); nil keeps the window in
	// this process or Dir. It excludes Dir.
	Shared SharedWindow
}

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Limiter keeps the requests of one API key within the service's rate.
//
// It is a sliding log: it remembers when the recent requests were sent, and
// lets a request go when fewer than Rate.N were sent in the last
// Window+Margin. Every request counts — paid or free, first attempt or
// retry — because the server counts them all.
//
// A Limiter is safe for concurrent use. With LimiterConfig.Dir set, it is
// also shared with every other process that uses the same Dir and KeyID:
// the log and the pause live in the file <Dir>/<KeyID>.json (mode 0600,
// send times and a pause as Unix nanoseconds of the Clock, nothing about
// the key). Each read-modify-write of that file holds an exclusive flock on
// <Dir>/<KeyID>.lock — a separate file because the state file is replaced
// by rename — and no lock is held while sleeping. The state file is
// written to a temporary name and renamed, so a process killed mid-write
// leaves the previous state intact; a state file that is nonetheless
// unreadable or malformed (a torn write after a power loss, a stray edit)
// is treated as a full window — no request until now+Window+Margin — and
// overwritten. Processes sharing a key should use the same Rate; when
// their windows differ, the file keeps send times for the longest slot
// lifetime used in the last day.
//
// Without Dir, times are taken relative to the limiter's creation, so the
// monotonic clock of SystemClock protects the log from wall-clock steps.
// With Dir, times are wall-clock times and processes must share a clock.
//
// With LimiterConfig.Shared, the window is the coordinator's: every grant
// is one round trip to it, which tells the wait in its own clock, and the
// Clock only sleeps and measures how late a request left after its grant
// (Slot.Sent moves the grant in the coordinator by that much: one more
// round trip, so that the margin is left to cover the network alone).
type Limiter struct {
	rate   Rate
	life   int64 // Window+Margin, in nanoseconds
	clock  Clock
	epoch  time.Time // origin of process-local stamps
	file   *stateFile
	shared SharedWindow
	lost   error // the shared window's failure, once it failed; guarded by mu
	mu     sync.Mutex
	mem    limiterState // the state when file is nil
	closed bool
	// onGrant, when set (by tests), is called under mu with each grant's stamp.
	onGrant func(time.Time)
}

// NewLimiter returns a limiter for cfg. With cfg.Dir set it creates the
// directory (0700) if needed and opens the lock file; Close releases it.
func NewLimiter(cfg LimiterConfig) (*Limiter, error) {
	if err := cfg.Rate.validate(); err != nil {
		return nil, fmt.Errorf("rate limiter: invalid rate %q: want %v", cfg.Rate, err)
	}
	if cfg.Margin < 0 {
		return nil, fmt.Errorf("rate limiter: negative margin %v", cfg.Margin)
	}
	if cfg.Margin == 0 {
		cfg.Margin = DefaultMargin(cfg.Rate)
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	l := &Limiter{rate: cfg.Rate, life: int64(cfg.Rate.Window + cfg.Margin), clock: cfg.Clock, epoch: cfg.Clock.Now()}
	if cfg.Shared != nil {
		if cfg.Dir != "" {
			return nil, errors.New("rate limiter: a shared window (coordinator) and a state directory exclude each other")
		}
		l.shared = cfg.Shared
		return l, nil
	}
	if cfg.Dir == "" {
		return l, nil
	}
	if !keyIDPattern.MatchString(cfg.KeyID) {
		return nil, errors.New("rate limiter: KeyID must be 1 to 64 letters, digits, '-' or '_' (a key fingerprint)")
	}
	f, err := openStateFile(cfg.Dir, cfg.KeyID)
	if err != nil {
		return nil, err
	}
	l.file = f
	return l, nil
}

// Rate returns the limiter's rate.
func (l *Limiter) Rate() Rate { return l.rate }

// Wait blocks until a request may be sent and records it: when Wait
// returns nil the caller has taken a slot and should send at once. It is
// Acquire for callers that cannot tell when the request left.
func (l *Limiter) Wait(ctx context.Context) error {
	_, err := l.Acquire(ctx)
	return err
}

// Acquire blocks until a request may be sent and records it, returning the
// slot taken. Call it before every request, free calls and retries
// included. It waits for a pause (see Pause) and for the oldest slot of a
// full window to expire, sleeping on the Clock exactly until then and
// checking again. It returns ctx.Err() when ctx is done first, having
// taken no slot.
func (l *Limiter) Acquire(ctx context.Context) (*Slot, error) {
	if l.shared != nil {
		return l.acquireShared(ctx)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var granted bool
		var wake int64
		err := l.update(func(st *limiterState, now, keep int64) bool {
			granted, wake = st.admit(now, l.life, keep, l.rate.N)
			if granted && l.onGrant != nil {
				l.onGrant(l.unstamp(now))
			}
			return granted
		})
		if err != nil {
			return nil, err
		}
		if granted {
			return &Slot{l: l, stamp: wake}, nil
		}
		if err := l.clock.Sleep(ctx, l.unstamp(wake).Sub(l.clock.Now())); err != nil {
			return nil, err
		}
	}
}

// acquireShared is Acquire on a coordinator's window: it asks, and sleeps
// as long as the coordinator says. A coordinator that does not answer ends
// it with an error matching ErrCoordinatorLost, no slot taken, and every
// later Acquire at once: a coordinator that stopped answering is not asked
// again by each of the requests left, each waiting for its timeout.
func (l *Limiter) acquireShared(ctx context.Context) (*Slot, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l.mu.Lock()
		lost := l.lost
		l.mu.Unlock()
		if lost != nil {
			return nil, lost
		}
		// Asked is the grant's time as Sent measures from: the coordinator
		// stamped the grant somewhere between the ask and the answer, so
		// measuring from the ask moves it at least as far as it was late.
		asked := l.clock.Now()
		wait, grant, err := l.shared.Admit(ctx, l.rate.N, time.Duration(l.life))
		if err != nil {
			err = fmt.Errorf("rate limiter: %w", err)
			if errors.Is(err, ErrCoordinatorLost) {
				l.mu.Lock()
				l.lost = cmp.Or(l.lost, err)
				l.mu.Unlock()
			}
			return nil, err
		}
		if wait <= 0 {
			if l.onGrant != nil {
				l.mu.Lock()
				l.onGrant(l.clock.Now())
				l.mu.Unlock()
			}
			return &Slot{l: l, stamp: grant, granted: asked}, nil
		}
		if err := l.clock.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// Slot is one request let go by Acquire.
type Slot struct {
	l     *Limiter
	stamp int64 // as recorded in the log, or the shared window's grant id; guarded by l.mu
	// granted is when a shared window's grant was asked for, by the
	// Clock; moved how far Sent has moved it since. Both guarded by l.mu.
	granted time.Time
	moved   time.Duration
}

// Sent records when the request actually left — written to the connection
// — if that is later than the grant. The server counts a request when it
// arrives; between the grant and the wire lie scheduling and, for a first
// request, dialing, which can exceed the margin on a loaded machine. Moving
// the slot to the send time leaves the margin to cover the network alone;
// the client calls it again when the answer's first byte arrives, the
// latest the server can have counted the request. It is safe to call from
// another goroutine, and more than once: each later t moves it further.
func (s *Slot) Sent(t time.Time) error {
	if s == nil {
		return nil
	}
	if s.l.shared != nil {
		return s.sentShared(t)
	}
	return s.l.update(func(st *limiterState, now, keep int64) bool {
		to := min(s.l.stamp(t), now)
		if !st.move(s.stamp, to) {
			return false
		}
		s.stamp = to
		return true
	})
}

// sentShared moves a shared window's grant to t, when that is later than
// where it is.
func (s *Slot) sentShared(t time.Time) error {
	s.l.mu.Lock()
	late := t.Sub(s.granted) - s.moved
	if late <= 0 {
		s.l.mu.Unlock()
		return nil
	}
	s.moved += late
	s.l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	return s.l.shared.Sent(ctx, s.stamp, late)
}

// Pause stops every request of this key, in this process and (with Dir)
// in the others sharing the state, until until: call it after a 429 with
// the Retry-After time, or WindowFreesAt when there is none. A later until
// extends the pause; an earlier one never shortens it.
func (l *Limiter) Pause(until time.Time) error {
	if l.shared != nil {
		d := until.Sub(l.clock.Now())
		if d <= 0 {
			return nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
		defer cancel()
		return l.shared.Pause(ctx, d)
	}
	return l.update(func(st *limiterState, now, keep int64) bool {
		t := l.stamp(until)
		if t <= st.Pause {
			return false
		}
		st.Pause = t
		return true
	})
}

// WindowFreesAt returns when the oldest request still in the window
// (sent in the last Window+Margin) stops counting: the earliest time a
// slot frees, the pause to take after a 429 that gave no Retry-After. With
// no request in the window it returns now+Window+Margin, as a 429 then
// means requests this limiter does not know about. It ignores any pause.
// On a shared window it is always now+Window+Margin: a 429 there means
// requests no process of the key knows about.
func (l *Limiter) WindowFreesAt() time.Time {
	if l.shared != nil {
		return l.clock.Now().Add(time.Duration(l.life))
	}
	var at time.Time
	err := l.update(func(st *limiterState, now, keep int64) bool {
		at = l.unstamp(st.freesAt(now, l.life))
		return false
	})
	if err != nil {
		return l.clock.Now().Add(time.Duration(l.life))
	}
	return at
}

// Close releases the lock file. Wait and Pause fail after Close.
func (l *Limiter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.file != nil {
		return l.file.close()
	}
	return nil
}

// update runs f on the current state at the current time (as a stamp) and
// keep, how long send times must be kept; f reports whether it changed the
// state. With a state file this is one locked read-modify-write.
func (l *Limiter) update(f func(st *limiterState, now, keep int64) bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("rate limiter: %w", os.ErrClosed)
	}
	if l.file == nil {
		now := l.stamp(l.clock.Now())
		l.mem.clampFuture(now)
		f(&l.mem, now, l.life)
		return nil
	}
	return l.file.update(func(st *limiterState, corrupt bool) bool {
		// Read the clock under the lock, so that stamps follow lock order.
		now := l.stamp(l.clock.Now())
		dirty := corrupt
		if corrupt {
			// Assume the window is full: nothing until every slot that
			// could be in it has expired.
			st.Pause = max(st.Pause, now+l.life)
		}
		if st.clampFuture(now) {
			dirty = true
		}
		keep, changed := st.keepFor(now, l.life)
		return f(st, now, keep) || dirty || changed
	})
}

// stamp converts t to the limiter's time base: Unix nanoseconds when
// shared through a file (clamped to the years 1970 to 2262 they can
// represent), else nanoseconds since the limiter's creation (monotonic with
// SystemClock).
func (l *Limiter) stamp(t time.Time) int64 {
	if l.file == nil {
		return int64(t.Sub(l.epoch))
	}
	switch {
	case t.Unix() < 0:
		return 0
	case t.Unix() >= math.MaxInt64/int64(time.Second):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// unstamp is the inverse of stamp.
func (l *Limiter) unstamp(ns int64) time.Time {
	if l.file != nil {
		return time.Unix(0, ns)
	}
	return l.epoch.Add(time.Duration(ns))
}
