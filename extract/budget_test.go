package extract_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

func mustReserve(t *testing.T, b *extract.Budget) *extract.Reservation {
	t.Helper()
	r, err := b.Reserve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBudgetCap(t *testing.T) {
	b := extract.NewBudget(wire.ProductSchedule, 50)
	for range 50 {
		mustReserve(t, b).Commit()
	}
	_, err := b.Reserve(context.Background())
	if !errors.Is(err, extract.ErrBudgetSpent) {
		t.Fatalf("Reserve past the cap = %v; want ErrBudgetSpent", err)
	}
	if want := "schedule credits: cap 50 reached (50 spent): credit budget spent"; err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
	st := b.State()
	want := extract.BudgetState{Product: wire.ProductSchedule, Cap: 50, UserCap: 50, ServerRemaining: -1, Spent: 50}
	if st != want {
		t.Errorf("State() = %+v; want %+v", st, want)
	}
	if st.Remaining() != 0 {
		t.Errorf("Remaining() = %d; want 0", st.Remaining())
	}
}

func TestBudgetCountsInFlightAndUncertain(t *testing.T) {
	b := extract.NewBudget(wire.ProductTracking, 4)
	mustReserve(t, b).Commit()
	mustReserve(t, b).Uncertain()
	inFlight := mustReserve(t, b)
	mustReserve(t, b).Release()
	if got := b.State().Remaining(); got != 1 {
		t.Errorf("Remaining() = %d; want 1 (1 spent, 1 uncertain, 1 in flight of 4)", got)
	}
	last := mustReserve(t, b)
	// The cap is reached only with requests in flight: Reserve waits.
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err := b.Reserve(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Reserve with 2 in flight = %v; want it to wait", err)
	}
	inFlight.Release()
	last.Uncertain()
	st := b.State()
	if st.Spent != 1 || st.Uncertain != 2 || st.Reserved != 0 || st.Remaining() != 1 {
		t.Errorf("State() = %+v, Remaining %d; want 1 spent, 2 uncertain, 0 reserved, 1 remaining", st, st.Remaining())
	}
}

func TestBudgetZeroCap(t *testing.T) {
	b := extract.NewBudget(wire.ProductSchedule, 0)
	if _, err := b.Reserve(context.Background()); !errors.Is(err, extract.ErrBudgetSpent) {
		t.Errorf("Reserve with cap 0 = %v; want ErrBudgetSpent", err)
	}
}

func TestBudgetUnlimited(t *testing.T) {
	b := extract.NewBudget(wire.ProductSchedule, extract.Unlimited)
	for range 1000 {
		mustReserve(t, b).Commit()
	}
	st := b.State()
	if st.Cap != extract.Unlimited || st.UserCap != extract.Unlimited || st.Remaining() != extract.Unlimited || st.Spent != 1000 {
		t.Errorf("State() = %+v, Remaining %d; want unlimited with 1000 spent", st, st.Remaining())
	}
	if got := extract.NewBudget(wire.ProductSchedule, -7).State().UserCap; got != extract.Unlimited {
		t.Errorf("UserCap of a negative cap = %d; want Unlimited", got)
	}
}

func TestBudgetServerRemaining(t *testing.T) {
	b := extract.NewBudget(wire.ProductSchedule, 50)
	b.SetServerRemaining(20)
	if st := b.State(); st.Cap != 20 || st.ServerRemaining != 20 || st.UserCap != 50 {
		t.Fatalf("State() = %+v; want cap 20 (server) under user cap 50", st)
	}
	var held []*extract.Reservation
	for range 20 {
		held = append(held, mustReserve(t, b))
	}
	for i, r := range held {
		switch {
		case i < 5:
			r.Commit()
		case i < 7:
			r.Uncertain()
		case i < 9:
			// In flight at the second report: counts against the new n.
		default:
			r.Release()
		}
	}
	b.SetServerRemaining(10) // 5 spent + 2 uncertain + 10
	if st := b.State(); st.Cap != 17 || st.Remaining() != 8 {
		t.Errorf("State() = %+v, Remaining %d; want cap 17, 8 remaining (2 in flight)", st, st.Remaining())
	}
	b.SetServerRemaining(1000) // the user's cap rules again
	if st := b.State(); st.Cap != 50 {
		t.Errorf("cap %d after a high server report; want the user cap 50", st.Cap)
	}
	b.SetServerRemaining(-3) // counts as none left
	if st := b.State(); st.Cap != 7 || st.ServerRemaining != 0 {
		t.Errorf("State() = %+v after a negative report; want cap 7", st)
	}

	u := extract.NewBudget(wire.ProductTracking, extract.Unlimited)
	u.SetServerRemaining(3)
	if st := u.State(); st.Cap != 3 || st.Remaining() != 3 {
		t.Errorf("State() = %+v; want the server's 3 as cap without a user cap", st)
	}
}

func TestBudgetExhaust(t *testing.T) {
	b := extract.NewBudget(wire.ProductSchedule, extract.Unlimited)
	inFlight := mustReserve(t, b)
	b.Exhaust("403 on schedule_port /schedule/NLRTM")
	b.Exhaust("a later 403")
	_, err := b.Reserve(context.Background())
	if !errors.Is(err, extract.ErrQuotaExhausted) {
		t.Fatalf("Reserve after Exhaust = %v; want ErrQuotaExhausted", err)
	}
	if want := "schedule credits: quota exhausted (403 on schedule_port /schedule/NLRTM): credit quota exhausted for this run"; err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
	inFlight.Commit()
	st := b.State()
	if !st.Exhausted || st.Reason != "403 on schedule_port /schedule/NLRTM" || st.Spent != 1 || st.Remaining() != 0 {
		t.Errorf("State() = %+v, Remaining %d; want exhausted with the first reason, 1 spent, 0 remaining", st, st.Remaining())
	}
}

func TestReservationSettlesOnce(t *testing.T) {
	b := extract.NewBudget(wire.ProductSchedule, 10)
	r := mustReserve(t, b)
	r.Commit()
	r.Commit()
	r.Release()
	r.Uncertain()
	u := mustReserve(t, b)
	u.Uncertain()
	u.Commit()
	rel := mustReserve(t, b)
	rel.Release()
	rel.Release()
	rel.Commit()
	var none *extract.Reservation // a free request holds none
	none.Commit()
	none.Release()
	none.Uncertain()
	if st := b.State(); st.Spent != 1 || st.Uncertain != 1 || st.Reserved != 0 || st.Remaining() != 8 {
		t.Errorf("State() = %+v; want 1 spent, 1 uncertain, nothing reserved, 8 remaining", st)
	}
}

func TestBudgetConcurrent(t *testing.T) {
	const goroutines, attempts, limit = 64, 200, 500
	b := extract.NewBudget(wire.ProductSchedule, limit)
	var commits, uncertains, releases, refused atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(g), 42))
			for range attempts {
				r, err := b.Reserve(context.Background())
				if err != nil {
					if !errors.Is(err, extract.ErrBudgetSpent) {
						t.Errorf("Reserve = %v; want ErrBudgetSpent", err)
					}
					refused.Add(1)
					continue
				}
				if st := b.State(); st.Spent+st.Uncertain+st.Reserved > st.Cap {
					t.Errorf("over the cap: %+v", st)
				}
				settle := []func(){r.Commit, r.Release, r.Uncertain}
				k := rnd.IntN(len(settle))
				settle[k]()
				[]*atomic.Int64{&commits, &releases, &uncertains}[k].Add(1)
				if rnd.IntN(4) == 0 { // a second settlement has no effect
					settle[rnd.IntN(3)]()
				}
			}
		})
	}
	wg.Wait()
	st := b.State()
	if st.Spent != commits.Load() || st.Uncertain != uncertains.Load() || st.Reserved != 0 {
		t.Errorf("State() = %+v; want %d spent, %d uncertain, 0 reserved", st, commits.Load(), uncertains.Load())
	}
	if st.Spent+st.Uncertain != limit {
		t.Errorf("spent %d + uncertain %d; want the whole cap %d used", st.Spent, st.Uncertain, limit)
	}
	if total := commits.Load() + uncertains.Load() + releases.Load() + refused.Load(); total != goroutines*attempts {
		t.Errorf("%d outcomes; want %d", total, goroutines*attempts)
	}
}

func BenchmarkBudget(b *testing.B) {
	b.Run("ReserveCommit", func(b *testing.B) {
		budget := extract.NewBudget(wire.ProductSchedule, extract.Unlimited)
		for b.Loop() {
			r, err := budget.Reserve(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			r.Commit()
		}
	})
	b.Run("ReserveCommitParallel", func(b *testing.B) {
		budget := extract.NewBudget(wire.ProductSchedule, extract.Unlimited)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				r, err := budget.Reserve(context.Background())
				if err != nil {
					b.Error(err)
					return
				}
				r.Commit()
			}
		})
	})
}

// A Reserve that finds the cap reached only because requests are in
// flight waits: a released credit goes to it, committed ones end it with
// ErrBudgetSpent. A cap is reached, never abandoned early.
func TestBudgetReserveWaitsForRequestsInFlight(t *testing.T) {
	b := extract.NewBudget(wire.ProductTracking, 2)
	a, c := mustReserve(t, b), mustReserve(t, b)
	got := make(chan error, 1)
	go func() {
		r, err := b.Reserve(context.Background())
		if err == nil {
			r.Commit()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Reserve returned %v with the cap full of requests in flight; want it to wait", err)
	case <-time.After(20 * time.Millisecond):
	}
	a.Release() // a 404: free, its credit goes to the waiter
	if err := <-got; err != nil {
		t.Fatalf("after a release: %v", err)
	}
	go func() {
		_, err := b.Reserve(context.Background())
		got <- err
	}()
	c.Commit()
	if err := <-got; !errors.Is(err, extract.ErrBudgetSpent) {
		t.Fatalf("after the last in flight was charged: %v, want ErrBudgetSpent", err)
	}
	if st := b.State(); st.Spent != 2 || st.Reserved != 0 {
		t.Fatalf("state %+v", st)
	}
}

func TestBudgetLowerCapHoldsAJobToWhatItsUserConfirmed(t *testing.T) {
	b := extract.NewBudget(wire.ProductSchedule, extract.Unlimited)
	mustReserve(t, b).Commit()
	b.LowerCap(3)
	mustReserve(t, b).Commit()
	mustReserve(t, b).Commit()
	if _, err := b.Reserve(context.Background()); !errors.Is(err, extract.ErrBudgetSpent) {
		t.Fatalf("a 4th credit after confirming 3: err = %v, want ErrBudgetSpent", err)
	}
	b.LowerCap(10) // a higher cap never raises it
	if st := b.State(); st.UserCap != 3 || st.Remaining() != 0 {
		t.Errorf("state %+v: want the cap of 3 kept", st)
	}
}
