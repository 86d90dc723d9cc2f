package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// The README's demo block runs as written, in a directory of its own: the
// binary it builds (the test builds it once, as the block's first line
// does), the 30-night demo, the query and the report page.
func TestREADMEDemoRuns(t *testing.T) {
	slowtest.Require(t, "runs the README's demo block as a bash script: a 30-night demo, about 2 minutes")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here: the demo block is a shell recipe")
	}
	script := readmeBlock(t, "./etalake demo")
	const build = "go build -tags duckdb_arrow -o etalake .\n"
	if !strings.HasPrefix(script, build) {
		t.Fatalf("the README's demo block should start with %q, the build; it is:\n%s", build, script)
	}
	dir := t.TempDir()
	if err := os.Rename(buildEtalake(t), filepath.Join(dir, "etalake")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-e", "-c", strings.TrimPrefix(script, build))
	cmd.Dir = dir
	cmd.Env = append(withoutEtalakeEnv(os.Environ()), "ETALAKE_STATE_DIR="+filepath.Join(dir, "state"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the demo block ended with %v:\n%s", err, lastLines(out))
	}
	if !strings.Contains(string(out), "CARRIER") {
		t.Errorf("the block's query should count the carriers' ETAs; it printed:\n%s", lastLines(out))
	}
	for _, f := range []string{"etalake-demo/etalake.duckdb", "etalake-demo-report.html", "report.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("the demo block left no %s: %v", f, err)
		}
	}
}

// readmeBlock returns the README's ```sh block that holds every marker
// (docShellBlock, whose README comes first, kept to the README).
func readmeBlock(t *testing.T, markers ...string) string {
	t.Helper()
	b := docShellBlock(t, markers...)
	if b.file != "README.md" {
		t.Fatalf("README.md has no ```sh block with %q (%s has one)", markers, b.file)
	}
	return b.text
}
