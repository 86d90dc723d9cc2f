package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/etalake/etalake/wire"
)

// Unlimited is the cap of a budget that has none.
const Unlimited int64 = -1

// Budget is the credit budget of one product for one run: it guarantees,
// under any concurrency, that the paid requests sent never exceed its cap.
//
// A paid request reserves a credit before it is sent, then settles the
// Reservation once its outcome is known: Commit when it succeeded (it was
// charged), Release when it definitely failed (an HTTP error status: the
// service charges nothing, service.md §7), Uncertain when the outcome is
// unknown (a timeout or a connection reset after sending: it may have been
// charged, so it stays spent, tallied apart).
//
// The cap is the smaller of the user's cap and the server's: see
// SetServerRemaining. A Reserve succeeds only while spent + uncertain +
// reserved is below the cap.
//
// A budget with a SharedLedger (NewSharedBudget) also takes each credit
// from the ledger, where the user's cap holds for the credits of every
// process of the key in the service's period together; the server's cap
// stays this process's own (the server refuses what goes past it, 403),
// and so does LowerCap: what one job confirmed bounds that job, while the
// user's cap bounds the key. Once the ledger fails, every later Reserve fails with ErrCoordinatorLost.
type Budget struct {
	product wire.Product
	ledger  SharedLedger // nil: the budget is this process's alone
	// sharedCap is the cap of every process of the key together in the
	// ledger: the user's cap as given, which LowerCap leaves alone (what
	// one job confirmed bounds that job, not the key).
	sharedCap int64

	mu        sync.Mutex
	userCap   int64 // Unlimited when none
	serverCap int64 // Unlimited until SetServerRemaining
	remaining int64 // last value given to SetServerRemaining; -1 unknown
	spent     int64
	uncertain int64
	reserved  int64
	exhausted bool
	reason    string
	lost      error                   // the ledger's failure, once it failed
	reported  *wire.ConsumptionPeriod // the last current period the service reported
	// changed is closed (and replaced) whenever a reservation settles or
	// the cap or the quota changes: Reserve waits on it.
	changed chan struct{}
}

// NewBudget returns the budget of product p with the user's cap; a negative
// userCap (Unlimited) means no user cap.
func NewBudget(p wire.Product, userCap int64) *Budget {
	if userCap < 0 {
		userCap = Unlimited
	}
	return &Budget{product: p, userCap: userCap, serverCap: Unlimited, remaining: -1}
}

// NewSharedBudget is NewBudget whose credits are also taken from ledger,
// shared with the other processes of the key (see Budget).
func NewSharedBudget(p wire.Product, userCap int64, ledger SharedLedger) *Budget {
	b := NewBudget(p, userCap)
	b.ledger, b.sharedCap = ledger, b.userCap
	return b
}

// SetServerRemaining records the server's remaining credits n, as read from
// the consumption period (a negative n counts as 0). It sets the server's
// cap to Spent + Uncertain + n, the credits this run has (possibly) used so
// far plus those the server still grants, and the budget's cap to the
// smaller of that and the user's cap. It may be called again later with a
// fresher n; the new server cap replaces the old one, so the cap may rise as
// well as fall. Requests in flight are not added: they count against n, as
// the server may not have charged them yet.
func (b *Budget) SetServerRemaining(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n = max(n, 0)
	b.remaining = n
	b.serverCap = b.spent + b.uncertain + n
	b.notifyLocked()
}

// report records the current period the service reported (CurrentPeriod):
// Reported returns it, and its credit count, when it has one, is the
// server's remaining credits (SetServerRemaining).
func (b *Budget) report(p *wire.ConsumptionPeriod) {
	kept := *p
	b.mu.Lock()
	b.reported = &kept
	b.mu.Unlock()
	if p.Credits != nil {
		b.SetServerRemaining(max(*p.Credits, 0))
	}
}

// Reported is the current period of the budget's product as the service
// last reported it, to a CurrentPeriod call; nil before any did.
func (b *Budget) Reported() *wire.ConsumptionPeriod {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reported == nil {
		return nil
	}
	p := *b.reported
	return &p
}

// LowerCap lowers the user's cap to n credits in all (spent, uncertain and
// in flight included) when that is lower than the cap it has: how a job
// holds itself to the amount its user confirmed. A higher n changes
// nothing.
func (b *Budget) LowerCap(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n = max(n, 0)
	if b.userCap == Unlimited || n < b.userCap {
		b.userCap = n
		b.notifyLocked()
	}
}

// notifyLocked wakes every Reserve waiting for a change.
func (b *Budget) notifyLocked() {
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
}

// Reserve takes a credit for a paid request about to be sent. It fails with
// an error matching ErrQuotaExhausted after Exhaust, or ErrBudgetSpent when
// Spent + Uncertain has reached the cap; the request must then not be sent.
// When the cap is reached only with the requests in flight, it waits until
// one of them settles — a failed request returns its credit, which this
// one may then use — or ctx is done. The caller settles the reservation
// exactly once.
func (b *Budget) Reserve(ctx context.Context) (*Reservation, error) {
	r, err := b.reserveLocal(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.share(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// reserveLocal is Reserve without the ledger: the credit is this
// process's, and share takes it from the ledger as well. The client
// shares it only once the request's rate slot is granted, just before
// the request is sent: a credit is in the ledger, where the other
// processes of the key see it taken, only while its request is on its
// way, never while it waits for the window.
func (b *Budget) reserveLocal(ctx context.Context) (*Reservation, error) {
	for {
		b.mu.Lock()
		if b.lost != nil {
			err := fmt.Errorf("%s: %w", b.label(), b.lost)
			b.mu.Unlock()
			return nil, err
		}
		if b.exhausted {
			b.mu.Unlock()
			return nil, fmt.Errorf("%s: quota exhausted (%s): %w", b.label(), b.reason, ErrQuotaExhausted)
		}
		limit := b.capLocked()
		if limit == Unlimited || b.spent+b.uncertain+b.reserved < limit {
			b.reserved++
			b.mu.Unlock()
			return &Reservation{b: b}, nil
		}
		if b.spent+b.uncertain >= limit {
			err := fmt.Errorf("%s: cap %d reached (%s): %w", b.label(), limit, b.tallyLocked(), ErrBudgetSpent)
			b.mu.Unlock()
			return nil, err
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		wait := b.changed
		b.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// share takes from the budget's ledger the credit r took locally (a
// budget without a ledger, or a nil r, has nothing to share). When the
// ledger refuses, the credit is returned: r is settled as never sent.
func (r *Reservation) share(ctx context.Context) error {
	if r == nil || r.b.ledger == nil {
		return nil
	}
	b := r.b
	b.mu.Lock()
	period := ""
	if b.reported != nil && b.reported.PeriodStart != nil {
		period = b.reported.PeriodStart.UTC().Format(time.RFC3339)
	}
	limit := b.sharedCap
	b.mu.Unlock()
	id, err := b.ledger.Reserve(ctx, period, limit)
	if err == nil {
		r.id, r.shared = id, true
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r.done = true
	b.reserved--
	if errors.Is(err, ErrCoordinatorLost) && b.lost == nil {
		b.lost = err
	}
	b.notifyLocked()
	return fmt.Errorf("%s: %w", b.label(), err)
}

// Exhaust stops the product for the rest of the run, after the server
// answered 403 to a paid call: every later Reserve fails with
// ErrQuotaExhausted. The first reason is kept; reservations already taken
// still settle normally.
func (b *Budget) Exhaust(reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.exhausted {
		b.exhausted, b.reason = true, reason
		b.notifyLocked()
	}
}

// State returns a consistent snapshot of the budget.
func (b *Budget) State() BudgetState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BudgetState{
		Product:         b.product,
		Cap:             b.capLocked(),
		UserCap:         b.userCap,
		ServerRemaining: b.remaining,
		Spent:           b.spent,
		Uncertain:       b.uncertain,
		Reserved:        b.reserved,
		Exhausted:       b.exhausted,
		Reason:          b.reason,
	}
}

func (b *Budget) capLocked() int64 {
	switch {
	case b.userCap == Unlimited:
		return b.serverCap
	case b.serverCap == Unlimited:
		return b.userCap
	}
	return min(b.userCap, b.serverCap)
}

// tallyLocked describes the counts behind a spent budget, e.g.
// "48 spent, 1 uncertain, 1 in flight; cap from the server's remaining credits".
func (b *Budget) tallyLocked() string {
	parts := []string{fmt.Sprintf("%d spent", b.spent)}
	if b.uncertain > 0 {
		parts = append(parts, fmt.Sprintf("%d uncertain", b.uncertain))
	}
	if b.reserved > 0 {
		parts = append(parts, fmt.Sprintf("%d in flight", b.reserved))
	}
	s := strings.Join(parts, ", ")
	if b.serverCap != Unlimited && (b.userCap == Unlimited || b.serverCap < b.userCap) {
		s += "; cap from the server's remaining credits"
	}
	return s
}

func (b *Budget) label() string {
	switch b.product {
	case wire.ProductSchedule:
		return "schedule credits"
	case wire.ProductTracking:
		return "tracking calls"
	}
	return string(b.product) + " credits"
}

// Reservation is one credit taken by Reserve. Only the first of Commit,
// Release and Uncertain has an effect; later calls, and calls on a nil
// Reservation (a free request), do nothing.
type Reservation struct {
	b      *Budget
	id     int64 // in the budget's ledger, once shared
	shared bool  // taken from the ledger too (share), which settles it
	done   bool  // guarded by b.mu
}

// Commit settles the reservation as charged: the request succeeded.
func (r *Reservation) Commit() { r.settle(SettleCommit) }

// Release returns the credit: the request definitely failed and was not
// charged.
func (r *Reservation) Release() { r.settle(SettleRelease) }

// Uncertain settles the reservation as possibly charged: the request's
// outcome is unknown. It counts as spent, tallied as Uncertain.
func (r *Reservation) Uncertain() { r.settle(SettleUncertain) }

func (r *Reservation) settle(how Settlement) {
	if r == nil {
		return
	}
	r.b.mu.Lock()
	if r.done {
		r.b.mu.Unlock()
		return
	}
	r.done = true
	r.b.reserved--
	switch how {
	case SettleCommit:
		r.b.spent++
	case SettleUncertain:
		r.b.uncertain++
	}
	r.b.notifyLocked()
	r.b.mu.Unlock()
	if !r.shared {
		return
	}
	// After the request, outside its context: the outcome is recorded
	// even when the job is being cancelled.
	ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
	defer cancel()
	if err := r.b.ledger.Settle(ctx, r.id, how); err != nil {
		r.b.mu.Lock()
		if r.b.lost == nil {
			r.b.lost = err
		}
		r.b.notifyLocked()
		r.b.mu.Unlock()
	}
}

// BudgetState is a snapshot of a Budget.
type BudgetState struct {
	Product wire.Product
	// Cap is the effective cap, the smaller of UserCap and the server's
	// cap (see Budget.SetServerRemaining); Unlimited when neither is set.
	Cap     int64
	UserCap int64 // Unlimited when none
	// ServerRemaining is the last value given to SetServerRemaining; -1
	// when the server was not asked.
	ServerRemaining int64
	Spent           int64 // committed: charged
	Uncertain       int64 // outcome unknown: possibly charged
	Reserved        int64 // in flight
	Exhausted       bool  // Exhaust was called: the server's quota is reached
	Reason          string
}

// Remaining is how many more credits may be reserved: 0 when exhausted,
// Unlimited when there is no cap, else Cap - Spent - Uncertain - Reserved
// (never negative).
func (s BudgetState) Remaining() int64 {
	switch {
	case s.Exhausted:
		return 0
	case s.Cap == Unlimited:
		return Unlimited
	}
	return max(0, s.Cap-s.Spent-s.Uncertain-s.Reserved)
}
