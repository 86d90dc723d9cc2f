// Package slowtest marks the tests of the slow tier: statistical tests and
// tests over large inputs, which take minutes where the rest of the suite
// takes seconds. They run when ETALAKE_SLOW_TESTS=1 (.ci/run sets it for
// its second tier); otherwise they skip, saying why and how to run them.
package slowtest

import (
	"os"
	"testing"
)

// Env is the variable that turns the slow tier on.
const Env = "ETALAKE_SLOW_TESTS"

// Enabled reports whether the slow tier runs.
func Enabled() bool { return os.Getenv(Env) == "1" }

// Require skips t unless the slow tier runs; why says what makes the test
// slow.
func Require(t testing.TB, why string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("slow tier (%s): run with %s=1, as .ci/run does", why, Env)
	}
}
