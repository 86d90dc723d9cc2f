package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/urfave/cli/v2"
)

// What `etalake demo` writes by default in a clone — its warehouse and
// its report page — is ignored by git: a newcomer who runs the README's
// demo commits none of it by mistake. The paths are asked of a repository
// holding only the clone's .gitignore: in the clone itself, once the
// README's first command has run the demo, git refuses a path through
// the warehouse's parquet link ("beyond a symbolic link"), and the
// README's second command, the tests, would fail.
func TestTheDemosOutputsAreIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	var dir string
	for _, cmd := range newApp().Commands {
		for _, f := range cmd.Flags {
			if sf, ok := f.(*cli.StringFlag); ok && cmd.Name == "demo" && sf.Name == flagWarehouse {
				dir = sf.Value
			}
		}
	}
	if dir == "" {
		t.Fatal("the demo has no default --warehouse")
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	ignore, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), ignore, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "etalake.duckdb"), filepath.Join(dir, "parquet", "shipments", "data.parquet"), demoReportPath(dir)} {
		if out, err := exec.Command("git", "-C", repo, "check-ignore", "--no-index", "-q", p).CombinedOutput(); err != nil {
			t.Errorf("git does not ignore %s, which etalake demo writes (.gitignore): %v %s", p, err, out)
		}
	}
}
