package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// TestLakePageCommandsRun: docs/lake.md's first block, run line by line
// by bash against the demo simulator, with the lake on one machine as the
// block's own comments give it — each lake setting's "or …" alternative
// (a SQLite catalog, a file:// warehouse) in place of the Postgres and S3
// ones, /var/lib/etalake a directory of the test's. The provider's
// settings are the simulator's export line (the block takes them as set).
// The run must end ok, `lake status` list its run as the one writer's in
// every table it wrote, and `lake maintain --keep-days 7` end ok.
func TestLakePageCommandsRun(t *testing.T) {
	slowtest.Require(t, "builds etalake and runs docs/lake.md's lake commands against `etalake sim serve`, about 30 s")
	b := docShellBlock(t, "ETALAKE_LAKE_CATALOG", "etalake lake maintain")
	sh, sv := fastSimulator(t)
	root := filepath.Join(sh.dir, "var", "lib", "etalake")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	exports, commands := exportsOf(onOneMachine(t, b, root))
	var runID string
	for _, l := range commands {
		out, err := sh.run(t, exports+l.command, sv.environ()...)
		if err != nil {
			t.Fatalf("%s: %s ended with %v:\n%s", l.where, l.command, err, lastLines([]byte(out)))
		}
		switch {
		case strings.HasPrefix(l.command, "etalake run "):
			m := runOKRE.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("%s: %s should end ok; it printed:\n%s", l.where, l.command, lastLines([]byte(out)))
			}
			runID = m[1]
		case l.command == "etalake lake status" && !regexp.MustCompile(`(?m)^\s*port_calls\s.*`+regexp.QuoteMeta(runID)).MatchString(out):
			t.Errorf("%s: lake status should name run %s as port_calls' writer; it printed:\n%s", l.where, runID, out)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "catalog.db")); err != nil {
		t.Errorf("the lake's SQLite catalog is not where the comment puts it: %v", err)
	}
}

// onOneMachine returns the block's lines with each ETALAKE_LAKE_* export
// set to the alternative its comment gives ("or VALUE …"), its
// /var/lib/etalake moved to root.
func onOneMachine(t *testing.T, b mdBlock, root string) []shellLine {
	t.Helper()
	lines := shellLines(b)
	exportRE, altRE := regexp.MustCompile(`^export (ETALAKE_LAKE_[A-Z_]+)=\S+$`), regexp.MustCompile(`^or (\S+)`)
	for i, l := range lines {
		m := exportRE.FindStringSubmatch(l.command)
		if m == nil {
			continue
		}
		alt := altRE.FindStringSubmatch(l.comment)
		if alt == nil || !strings.Contains(alt[1], "/var/lib/etalake/") {
			t.Fatalf("%s: %s: its comment should give the setting on one machine, \"or …/var/lib/etalake/…\"; it is %q", l.where, l.command, l.comment)
		}
		lines[i].command = fmt.Sprintf("export %s=%s", m[1], strings.ReplaceAll(alt[1], "/var/lib/etalake", root))
	}
	return lines
}
