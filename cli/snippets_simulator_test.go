package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// TestSimulatorPageCommandsRun: the ```sh block of docs/simulator.md, run
// line by line by bash with the built etalake. Each simulator a line
// starts with '&' is started alone, and stopped once checked: its first
// line is the export line its comment shows, naming the URLs and the key
// (and the ETALAKE_AUTH its comment says), and a client set up by that
// line alone reads the balances (`etalake credits`) with the credits its
// --key gives. The one substitution: `--addr 127.0.0.1:0` is added to
// each, as 8089, the default, may be taken on the machine (the webhook
// try-out's test serves there, a reader's own simulator may); the export
// line then names the port the simulator chose. The world's CSV is fed to
// `track add --shipments`, as its comment promises, and the import of
// the generated responses must end ok.
func TestSimulatorPageCommandsRun(t *testing.T) {
	slowtest.Require(t, "builds etalake and runs docs/simulator.md's commands: three simulators, the world, ten days of responses imported, about 40 s")
	b := docShellBlock(t, "etalake sim serve", "etalake sim responses")
	sh := newSnippetShell(t)
	for _, l := range shellLines(b) {
		if strings.HasSuffix(l.command, "&") {
			checkSimServeLine(t, sh, l)
			continue
		}
		out, err := sh.run(t, l.command)
		if err != nil {
			t.Fatalf("%s: %s ended with %v:\n%s", l.where, l.command, err, lastLines([]byte(out)))
		}
		if to := regexp.MustCompile(`>\s*(\S+)`).FindStringSubmatch(l.command); to != nil && strings.Contains(l.comment, "--shipments") {
			out, err := sh.run(t, "./etalake track add --shipments "+to[1], "ETALAKE_WAREHOUSE="+filepath.Join(sh.dir, "tracked"))
			if err != nil || !regexp.MustCompile(`[1-9]\d* added`).MatchString(out) {
				t.Errorf("%s: %s is %s, yet track add --shipments %[2]s ended with %v:\n%s", l.where, to[1], l.comment, err, lastLines([]byte(out)))
			}
		}
		if strings.Contains(l.command, "etalake import") && !regexp.MustCompile(`(?m)^import \S+: ok$`).MatchString(out) {
			t.Errorf("%s: %s should import every response, ok; it printed:\n%s", l.where, l.command, lastLines([]byte(out)))
		}
	}
}

// checkSimServeLine starts a simulator line of the page and checks its
// export line against the line's comment and the line's --key, then
// stops it.
func checkSimServeLine(t *testing.T, sh *snippetShell, l shellLine) {
	t.Helper()
	sv := sh.serve(t, strings.TrimSuffix(l.command, "&")+" --addr 127.0.0.1:0")
	defer sv.stop()
	where := l.where + ": " + l.command
	for _, k := range []string{"ETALAKE_SCHEDULE_URL", "ETALAKE_TRACKING_URL", "ETALAKE_API_KEY"} {
		if sv.export[k] == "" {
			t.Errorf("%s: its export line should set %s; it is %q", where, k, sv.line)
		}
	}
	// What the comment says the line prints or adds: NAME=value, the
	// value checked unless the comment elides it (…).
	for _, m := range regexp.MustCompile(`(ETALAKE_[A-Z_]+)=([^\s;,]+)`).FindAllStringSubmatch(l.comment, -1) {
		if got, ok := sv.export[m[1]]; !ok || (m[2] != "…" && got != m[2]) {
			t.Errorf("%s: its comment says the export line has %s=%s; it is %q", where, m[1], m[2], sv.line)
		}
	}
	out, err := sh.run(t, "etalake credits", sv.environ()...)
	if err != nil {
		t.Errorf("%s: a client set up by its export line alone cannot read the balances: %v\n%s", where, err, lastLines([]byte(out)))
	}
	if m := regexp.MustCompile(`--key [^:\s]+:(\d+):(\d+)`).FindStringSubmatch(l.command); m != nil {
		for i, product := range []string{"schedule", "tracking"} {
			if !regexp.MustCompile(`(?m)^\s*` + product + `\s+\S+\s+\S+\s+` + m[i+1] + `\s`).MatchString(out) {
				t.Errorf("%s: the key should start with %s %s credits; credits printed:\n%s", where, m[i+1], product, out)
			}
		}
	}
	if m := regexp.MustCompile(`--jumps (\S+)`).FindStringSubmatch(l.command); m != nil && !strings.Contains(sv.stderr.String(), "jumps "+m[1]) {
		t.Errorf("%s: the simulator should say it serves with jumps %s; it said:\n%s", where, m[1], sv.stderr)
	}
}
