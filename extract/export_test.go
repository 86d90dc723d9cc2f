package extract

import "time"

// SameHostRedirects is the redirect policy every client applies.
var SameHostRedirects = sameHostRedirects

// SetGrantHook makes l call f, under its lock, with the time of every
// request it lets go: the exact times it recorded, for tests that run many
// goroutines on a fake clock, where Now read after Wait may already have
// moved on.
func SetGrantHook(l *Limiter, f func(time.Time)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onGrant = f
}
