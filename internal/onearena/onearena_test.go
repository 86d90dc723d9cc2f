package onearena

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// The limit is set when the binary loads, unless the environment sets one.
func TestAppliedUnlessTheEnvironmentSetsTheLimit(t *testing.T) {
	if runtime.GOOS != "linux" || !glibc() {
		if Applied() {
			t.Fatal("Applied() = true without glibc")
		}
		t.Skip("not Linux with glibc")
	}
	if v := os.Getenv("MALLOC_ARENA_MAX"); v != "" {
		if Applied() {
			t.Fatalf("MALLOC_ARENA_MAX=%s is set, yet the package set its own limit", v)
		}
		return
	}
	if !Applied() {
		t.Fatal("Applied() = false: the arena limit was not set at load")
	}
	if os.Getenv("ONEARENA_CHILD") != "" {
		return
	}
	// The same test binary, with the user's limit in the environment.
	cmd := exec.Command(os.Args[0], "-test.run", "^TestAppliedUnlessTheEnvironmentSetsTheLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "ONEARENA_CHILD=1", "MALLOC_ARENA_MAX=4")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child with MALLOC_ARENA_MAX=4: %v\n%s", err, out)
	}
}

// glibc reports whether the C library is glibc (ldd names it).
func glibc() bool {
	out, err := exec.Command("ldd", "--version").CombinedOutput()
	return err == nil && (strings.Contains(string(out), "GLIBC") || strings.Contains(string(out), "GNU libc"))
}
