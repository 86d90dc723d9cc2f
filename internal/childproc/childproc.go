// Package childproc tunes the processes a test binary starts of itself
// (a writer, a notebook, the command run as main).
package childproc

import "os"

// QuickExit has the processes this test binary starts from now on end
// without the race detector's wait at exit: a process built with -race
// sleeps a second before it exits (GORACE atexit_sleep_ms, 1000 by
// default) so that goroutines still running may report a race, and the
// tests of a package start dozens, each a second of nothing. Races while
// a child runs are reported as ever; GORACE set by the user is kept.
// Call it from TestMain, before m.Run.
func QuickExit() {
	if _, set := os.LookupEnv("GORACE"); !set {
		_ = os.Setenv("GORACE", "atexit_sleep_ms=10")
	}
}
