package cli

import (
	"os"
	"strings"
	"testing"
)

// The brief: "The README starts with exactly two commands …: one runs the
// main job on the embedded default …, one runs the tests. `.ci/run` calls
// that same test command". The README's test command, its arguments as
// written, is what .ci/run's first test run hands go test.
func TestCIRunsTheREADMEsTestCommand(t *testing.T) {
	block := readmeBlock(t, "go test ")
	var args string
	for _, line := range strings.Split(block, "\n") {
		if rest, ok := strings.CutPrefix(line, "go test "); ok {
			args, _, _ = strings.Cut(rest, "#")
			args = strings.TrimSpace(args)
			break
		}
	}
	if args == "" {
		t.Fatalf("the README's two commands hold no `go test` line:\n%s", block)
	}
	if !strings.Contains(args, "-short") {
		t.Errorf("the README's test command %q should run the short tier (-short): about 3 minutes, where the full tier takes 15", args)
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(ci), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if _, after, ok := strings.Cut(line, " -- "); ok && strings.Contains(line, "gotestsum") {
			if strings.TrimSpace(after) != args {
				t.Errorf(".ci/run's first test run gives go test %q; the README's test command is go test %q", strings.TrimSpace(after), args)
			}
			return
		}
	}
	t.Errorf(".ci/run runs no go test through gotestsum; it should run the README's: go test %s", args)
}
