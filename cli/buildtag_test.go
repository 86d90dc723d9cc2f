package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBuildWithoutTheTagSaysWhichTag is a newcomer's first build: `go
// build .` without -tags duckdb_arrow must fail on an error that names the
// tag, before duckdb-go's "undefined: duckdb.Arrow", which says nothing of
// what to do. The same holds for go vet and go test, which compile the
// same packages.
func TestBuildWithoutTheTagSaysWhichTag(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH:", err)
	}
	cmd := exec.Command(goTool, "build", "-o", os.DevNull, ".")
	// GOFLAGS could carry the tag from the environment; the newcomer's has none.
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err == nil {
		t.Fatalf("go build . without -tags duckdb_arrow succeeded; want it to fail naming the tag:\n%s", out.String())
	}
	// The first line is the package header (# github.com/…/load); the
	// first error follows it.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var first string
	for _, l := range lines {
		if !strings.HasPrefix(l, "#") {
			first = l
			break
		}
	}
	if !strings.Contains(first, "-tags duckdb_arrow") {
		t.Errorf("first error of go build . without the tag = %q, want it to name -tags duckdb_arrow; all output:\n%s", first, out.String())
	}
}
