// Package fakeclock is a virtual clock for tests: Sleep returns at once after
// moving the clock forward, so code that waits on a 10-second rate window
// runs in microseconds and deterministically. It implements extract.Clock.
package fakeclock
