package extract

import (
	"context"
	"errors"
	"time"
)

// ErrCoordinatorLost: the coordinator that shares a key's rate window and
// credit ledger between machines (SharedWindow, SharedLedger) did not
// answer. The request was not sent: without the coordinator a process
// cannot know what the others sent or spent, so it stops asking rather
// than guess.
var ErrCoordinatorLost = errors.New("coordinator lost: no request is sent without it")

// SharedWindow is a key's rate window kept outside the process, shared by
// every process of that key on any machine, its times told by one clock
// (the coordinator's), so that the machines' clocks do not matter. A
// Limiter with LimiterConfig.Shared asks it instead of its own log.
//
// Errors it returns match ErrCoordinatorLost.
type SharedWindow interface {
	// Admit grants a request when fewer than n were granted in the last
	// life (and no pause is on), recording it: it returns a wait of 0 and
	// the grant's id. Otherwise it returns how long to wait before asking
	// again.
	Admit(ctx context.Context, n int, life time.Duration) (wait time.Duration, grant int64, err error)
	// Sent moves grant later by late (never past the coordinator's now):
	// the request left that long after it was granted (see Slot.Sent).
	Sent(ctx context.Context, grant int64, late time.Duration) error
	// Pause stops every request of the key for d from now, in every
	// process sharing the window; a shorter pause than one already on
	// changes nothing.
	Pause(ctx context.Context, d time.Duration) error
}

// Settlement is how a reservation of a SharedLedger ended.
type Settlement int

// The settlements of a reservation (see Reservation).
const (
	SettleCommit    Settlement = iota // charged
	SettleRelease                     // not charged: the credit returns
	SettleUncertain                   // possibly charged: it stays spent
)

// SharedLedger is the credits of one key and product kept outside the
// process: spent, uncertain and reserved, per period, by every process of
// the key on any machine. A Budget with a ledger (NewSharedBudget) takes
// each credit from it as well, so that the processes together keep to the
// cap.
//
// Errors it returns match ErrCoordinatorLost, or ErrBudgetSpent when the
// processes together have spent the cap.
type SharedLedger interface {
	// Reserve takes a credit in period (the service's current period, ""
	// when none was reported) when the credits spent, uncertain and
	// reserved by every process are fewer than limit (Unlimited: no
	// limit, the credit is only recorded). While the limit is reached only
	// with reservations in flight it waits for them to settle or expire,
	// or for ctx. It returns the reservation's id.
	Reserve(ctx context.Context, period string, limit int64) (id int64, err error)
	// Settle records how reservation id ended.
	Settle(ctx context.Context, id int64, how Settlement) error
}

// settleTimeout bounds how long settling a shared reservation may take: it
// happens after the request, outside any caller's context.
const settleTimeout = 30 * time.Second
