package sim

import (
	"sync"
	"time"
)

// Clock is the simulator's virtual clock: every answer is "as of" its time,
// which the service sends in the HTTP Date header. It runs at Speed times
// real time from Start, and Advance jumps it forward (how tests and the demo
// replay weeks in seconds). It never goes backwards.
type Clock struct {
	mu        sync.Mutex
	real      func() time.Time
	speed     float64
	baseReal  time.Time
	baseVirt  time.Time
	lastValue time.Time
}

// NewClock starts a virtual clock at start running at speed × real time
// (0 freezes it: only Advance moves it). real nil means time.Now.
func NewClock(start time.Time, speed float64, real func() time.Time) *Clock {
	if real == nil {
		real = time.Now
	}
	if speed < 0 {
		speed = 0
	}
	return &Clock{real: real, speed: speed, baseReal: real(), baseVirt: start.UTC()}
}

// Now returns the virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time {
	elapsed := c.real().Sub(c.baseReal)
	t := c.baseVirt.Add(time.Duration(float64(elapsed) * c.speed))
	if t.Before(c.lastValue) {
		t = c.lastValue
	}
	c.lastValue = t
	return t
}

// Advance moves the virtual time forward by d (negative d is ignored).
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.nowLocked()
	if d > 0 {
		now = now.Add(d)
	}
	c.baseReal, c.baseVirt, c.lastValue = c.real(), now, now
	return now
}

// Set moves the virtual time to t if t is later than now.
func (c *Clock) Set(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.nowLocked()
	if t.After(now) {
		now = t.UTC()
	}
	c.baseReal, c.baseVirt, c.lastValue = c.real(), now, now
	return now
}
