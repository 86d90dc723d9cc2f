package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
)

// TestFleetCoordinationRecipeRuns: docs/fleet.md's block that shares a
// key's window through Postgres, run line by line by bash against the
// demo simulator, with the coordinator's URL a private Postgres's (the
// test's own server, on loopback without TLS, in place of the page's
// host and sslmode=require) and tracked.csv twenty shipments of the
// simulator's world. The run must end ok and, as the page says, use no
// state directory: the window is the database's.
func TestFleetCoordinationRecipeRuns(t *testing.T) {
	slowtest.Require(t, "builds etalake, starts Postgres and runs docs/fleet.md's coordinated run against `etalake sim serve`, about 30 s")
	b := docShellBlock(t, "ETALAKE_COORDINATION=postgres://")
	pg := pgtest.Start(t)
	sh, sv := fastSimulator(t)
	if out, err := sh.run(t, "./etalake sim world --seed 1 > world.csv && head -n 21 world.csv > tracked.csv"); err != nil {
		t.Fatalf("the shipments to track: %v\n%s", err, out)
	}
	b.text = replaceAll(t, b, regexp.MustCompile(`postgres://\S+`).FindString(b.text), pg.URL)
	exports, commands := exportsOf(shellLines(b))
	state := filepath.Join(sh.dir, "coordinated-state")
	for _, l := range commands {
		out, err := sh.run(t, exports+l.command, append(sv.environ(), "ETALAKE_STATE_DIR="+state)...)
		if err != nil || !runOKRE.MatchString(out) {
			t.Fatalf("%s: %s should end ok; it ended with %v:\n%s", l.where, l.command, err, lastLines([]byte(out)))
		}
	}
	if entries, err := os.ReadDir(state); err == nil && len(entries) > 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("a coordinated run should not use the state directory; it left %s there", strings.Join(names, ", "))
	}
}
