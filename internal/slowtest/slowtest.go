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
