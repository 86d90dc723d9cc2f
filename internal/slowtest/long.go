package slowtest

import "testing"

// Long skips t under go test -short, the README's test command: a test
// that takes seconds of its own (a demo of several nights, a lake commit,
// a process started and stopped) runs in the full tier, go test without
// -short, which .ci/run runs after it. The short tier is the quick loop of
// a developer: about 3 minutes for the whole repository on 2 cores, where
// the full tier takes 15.
func Long(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("takes seconds: runs without -short (the full tier, as .ci/run does)")
	}
}
