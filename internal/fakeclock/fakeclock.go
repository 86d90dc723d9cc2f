package fakeclock

import (
	"context"
	"sync"
	"time"
)

// Clock is a virtual clock safe for concurrent use. Time only moves forward.
// Sleep advances it by d and returns at once; concurrent sleepers therefore
// advance it one after another, so time may run further than a real clock
// would, never less. Code that re-reads the time after sleeping, as any
// correct waiter does, stays correct.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	slept time.Duration
}

// New returns a clock reading start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock by d and returns, or returns ctx.Err() if ctx is
// done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.slept += d
		c.now = c.now.Add(d)
	}
	return nil
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
}

// Slept is the total duration asked of Sleep, for tests that check how long
// code would have waited.
func (c *Clock) Slept() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slept
}
