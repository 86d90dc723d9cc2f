// Package childproc tunes the processes a test binary starts of itself
// (a writer, a notebook, the command run as main).
package childproc

import (
	"os"
	"os/exec"
	"testing"
)

// QuickExit has the processes this test binary starts from now on end
// without the race detector's wait at exit: a process built with -race
// sleeps a second before it exits (GORACE atexit_sleep_ms, 1000 by
// default) so that goroutines still running may report a race, and the
// tests of a package start dozens, each a second of nothing. Races while
// a child runs are reported as ever; GORACE set by the user is kept.
// Call it from TestMain, before m.Run.
func QuickExit() {
	if _, set := os.LookupEnv("GORACE"); !set {
		_ = os.Setenv("GORACE", quickExit)
	}
}

// quickExit is GORACE's setting of a child that need not wait at exit.
const quickExit = "atexit_sleep_ms=10"

// RunTest runs the test named name of this test binary as n processes at
// once, each with env added to this one's and its output on this one's
// stderr, and fails t unless every one of them passes: the children of a
// test of several processes sharing something (a key's window, a cap).
// They end without the race detector's wait, as QuickExit has it.
func RunTest(t testing.TB, n int, name string, env ...string) {
	t.Helper()
	children := make([]*exec.Cmd, n)
	for i := range children {
		cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
		cmd.Env = append(os.Environ(), env...)
		if _, set := os.LookupEnv("GORACE"); !set {
			cmd.Env = append(cmd.Env, "GORACE="+quickExit)
		}
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = cmd
	}
	for i, c := range children {
		if err := c.Wait(); err != nil {
			t.Fatalf("%s, process %d of %d: %v", name, i+1, n, err)
		}
	}
}
