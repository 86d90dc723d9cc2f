package extract_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/wire"
)

// window is a SharedWindow kept in memory on a virtual clock, as a
// coordinator keeps one on its database's: the limiter's side of the
// contract, tested without a database or a real second.
type window struct {
	clock  *fakeclock.Clock
	grants []time.Time
	pause  time.Time
	admits int
	fail   error // every call fails with it, when set
}

func (w *window) Admit(_ context.Context, n int, life time.Duration) (time.Duration, int64, error) {
	w.admits++
	if w.fail != nil {
		return 0, 0, w.fail
	}
	now := w.clock.Now()
	var in []time.Time
	for _, g := range w.grants {
		if g.After(now.Add(-life)) {
			in = append(in, g)
		}
	}
	slices.SortFunc(in, time.Time.Compare)
	wake := now
	if len(in) >= n {
		wake = in[len(in)-n].Add(life)
	}
	if w.pause.After(wake) {
		wake = w.pause
	}
	if wake.After(now) {
		return wake.Sub(now), 0, nil
	}
	w.grants = append(w.grants, now)
	return 0, int64(len(w.grants) - 1), nil
}

// Sent moves grant i later, never past now.
func (w *window) Sent(_ context.Context, i int64, late time.Duration) error {
	if w.fail != nil {
		return w.fail
	}
	if t := w.grants[i].Add(late); t.Before(w.clock.Now()) {
		w.grants[i] = t
	} else {
		w.grants[i] = w.clock.Now()
	}
	return nil
}

func (w *window) Pause(_ context.Context, d time.Duration) error {
	if w.fail != nil {
		return w.fail
	}
	if until := w.clock.Now().Add(d); until.After(w.pause) {
		w.pause = until
	}
	return nil
}

var errGone = fmt.Errorf("connection refused: %w", extract.ErrCoordinatorLost)

// On a shared window the limiter sleeps exactly what the window says, and
// a pause there holds every grant.
func TestLimiterOnASharedWindowSleepsWhatItSays(t *testing.T) {
	clock := fakeclock.New(epoch)
	w := &window{clock: clock}
	r := extract.Rate{N: 3, Window: time.Second}
	l := newLimiter(t, extract.LimiterConfig{Rate: r, Margin: 100 * time.Millisecond, Clock: clock, Shared: w})
	var grants []time.Time
	for range 9 {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
		grants = append(grants, clock.Now())
	}
	assertWithinRate(t, grants, r)
	if got, want := clock.Now(), epoch.Add(2*1100*time.Millisecond); !got.Equal(want) {
		t.Errorf("the 9th grant at %v; want two windows and margins later, %v", got, want)
	}
	mustPause(t, l, clock.Now().Add(5*time.Second))
	before := clock.Now()
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := clock.Now().Sub(before); got != 5*time.Second {
		t.Errorf("a grant %v after a 5 s pause; want 5 s", got)
	}
	if got, want := l.WindowFreesAt(), clock.Now().Add(1100*time.Millisecond); !got.Equal(want) {
		t.Errorf("after a 429 with no Retry-After a shared window waits until %v; want a whole window, %v", got, want)
	}
}

// A request that left late after its grant moves the grant in the shared
// window: the slot frees a window after the request left, not after the
// grant.
func TestSharedGrantMovesToTheSendTime(t *testing.T) {
	clock := fakeclock.New(epoch)
	w := &window{clock: clock}
	r := extract.Rate{N: 1, Window: time.Second}
	l := newLimiter(t, extract.LimiterConfig{Rate: r, Margin: 100 * time.Millisecond, Clock: clock, Shared: w})
	slot, err := l.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(300 * time.Millisecond) // dialing, on a loaded machine
	if err := slot.Sent(clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := slot.Sent(clock.Now()); err != nil { // again: moves nothing more
		t.Fatal(err)
	}
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, want := clock.Now(), epoch.Add(1400*time.Millisecond); !got.Equal(want) {
		t.Errorf("the next grant at %v; want a window and margin after the send, %v", got, want)
	}
}

// A shared window that fails stops the limiter: ErrCoordinatorLost, and
// from then on at once, the window not asked again.
func TestLimiterStopsWhenItsWindowIsLost(t *testing.T) {
	w := &window{clock: fakeclock.New(epoch), fail: errGone}
	l := newLimiter(t, extract.LimiterConfig{Rate: extract.DefaultRate, Clock: w.clock, Shared: w})
	for range 3 {
		if err := l.Wait(t.Context()); !errors.Is(err, extract.ErrCoordinatorLost) {
			t.Fatalf("Wait on a lost window: %v; want ErrCoordinatorLost", err)
		}
	}
	if w.admits != 1 {
		t.Errorf("the lost window was asked %d times; want once", w.admits)
	}
	if _, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.DefaultRate, Shared: w, Dir: t.TempDir(), KeyID: "k"}); err == nil {
		t.Error("a limiter on a shared window and a state directory at once was accepted")
	}
}

// ledger is a SharedLedger in memory: the credits of every process of a
// key, whatever the period.
type ledger struct {
	settled, inFlight int64
	next              int64
	open              map[int64]bool
	failSettle        bool
}

func (l *ledger) Reserve(_ context.Context, _ string, limit int64) (int64, error) {
	if limit != extract.Unlimited && l.settled+l.inFlight >= limit {
		return 0, fmt.Errorf("shared cap %d reached: %w", limit, extract.ErrBudgetSpent)
	}
	l.inFlight++
	l.next++
	if l.open == nil {
		l.open = map[int64]bool{}
	}
	l.open[l.next] = true
	return l.next, nil
}

func (l *ledger) Settle(_ context.Context, id int64, how extract.Settlement) error {
	if l.failSettle {
		return errGone
	}
	if !l.open[id] {
		return fmt.Errorf("reservation %d settled twice or never taken", id)
	}
	delete(l.open, id)
	l.inFlight--
	if how != extract.SettleRelease {
		l.settled++
	}
	return nil
}

// Two budgets of one key on one ledger spend its cap together, each
// settling its own reservations there; one whose ledger is lost refuses
// every later credit.
func TestSharedBudgetsKeepToOneCap(t *testing.T) {
	shared := &ledger{}
	a := extract.NewSharedBudget(wire.ProductTracking, 5, shared)
	b := extract.NewSharedBudget(wire.ProductTracking, 5, shared)
	spent := 0
	for i := 0; ; i++ {
		bud := []*extract.Budget{a, b}[i%2]
		res, err := bud.Reserve(t.Context())
		if errors.Is(err, extract.ErrBudgetSpent) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			res.Release() // not charged: the credit returns to both
			continue
		}
		res.Commit()
		spent++
	}
	if spent != 5 || shared.settled != 5 || len(shared.open) != 0 {
		t.Errorf("spent %d, the ledger %d settled and %d open; want 5, 5 and 0", spent, shared.settled, len(shared.open))
	}
	if st := a.State(); st.Reserved != 0 {
		t.Errorf("a refused credit stays reserved in the process: %+v", st)
	}

	// A job's confirmed amount bounds that job; the key's cap the rest.
	roomy := &ledger{}
	confirmed := extract.NewSharedBudget(wire.ProductTracking, 10, roomy)
	other := extract.NewSharedBudget(wire.ProductTracking, 10, roomy)
	for range 6 {
		res, err := other.Reserve(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		res.Commit()
	}
	confirmed.LowerCap(2)
	got := 0
	for {
		res, err := confirmed.Reserve(t.Context())
		if errors.Is(err, extract.ErrBudgetSpent) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		res.Commit()
		got++
	}
	if got != 2 || roomy.settled != 8 {
		t.Errorf("a job that confirmed 2 credits, the key's cap 10 with 6 spent by another: spent %d, the key %d; want 2 and 8", got, roomy.settled)
	}

	lost := &ledger{failSettle: true}
	c := extract.NewSharedBudget(wire.ProductTracking, extract.Unlimited, lost)
	res, err := c.Reserve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	res.Commit()
	if _, err := c.Reserve(t.Context()); !errors.Is(err, extract.ErrCoordinatorLost) {
		t.Errorf("a credit after the ledger failed: %v; want ErrCoordinatorLost", err)
	}
}
