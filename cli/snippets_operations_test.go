package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// TestOperationsCommandsRun: the commands of docs/operations.md's
// "Running it for real", run line by line by bash against the demo
// simulator (`etalake sim serve`), with only what a reader puts in: the
// provider's two URLs (the simulator's), the key file (one holding the
// simulator's key) and the report's /srv/www/ (a directory of the
// test's). Every command must end as its comment says — all of them with
// exit 0, none on a terminal — and do what it says: the balances listed,
// the shipments added and listed, a plan, runs ok, the query answering
// rows (the shipments are of the simulator's world, one at NLRTM), the
// report's page written. Then the page's jq line reads the summary of a
// run with --log-format json, when jq is here.
func TestOperationsCommandsRun(t *testing.T) {
	slowtest.Require(t, "builds etalake and runs docs/operations.md's commands against `etalake sim serve`, about 40 s")
	b := docShellBlock(t, "etalake credits", "etalake track add", "etalake report --html")
	sh, sv := fastSimulator(t)
	for _, d := range []string{"etc", "www"} {
		if err := os.Mkdir(filepath.Join(sh.dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(sh.dir, "etc", "key")
	if err := os.WriteFile(key, []byte(sv.export["ETALAKE_API_KEY"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.text = replaceAll(t, b,
		"https://api.example.com/schedule/api/v1", sv.export["ETALAKE_SCHEDULE_URL"],
		"https://api.example.com/container-tracking/api/v2", sv.export["ETALAKE_TRACKING_URL"],
		"/etc/etalake/key", key,
		"/srv/www/", filepath.Join(sh.dir, "www")+"/")
	exports, commands := exportsOf(shellLines(b))
	// The page says to put the export line in place of its first three:
	// its URLs are there already; its date, the simulator's day, is what
	// they lack.
	exports += "export ETALAKE_DATE=" + sv.export["ETALAKE_DATE"] + "\n"
	var added []string
	for _, l := range commands {
		out, err := sh.run(t, exports+l.command)
		if err != nil {
			t.Fatalf("%s: %s (%s) ended with %v:\n%s", l.where, l.command, l.comment, err, lastLines([]byte(out)))
		}
		if strings.HasPrefix(l.command, "etalake track add ") {
			added = trackedNumbers(l.command)
		}
		if why := operationsCheck(l.command, out, added); why != "" {
			t.Errorf("%s: %s: %s; it printed:\n%s", l.where, l.command, why, lastLines([]byte(out)))
		}
	}
	t.Run("jq", func(t *testing.T) { runSummaryJQ(t, sh, exports) })
}

// operationsCheck says what a command of the block failed to do that its
// comment or its name promises, or "".
func operationsCheck(command, out string, added []string) string {
	has := func(re string) bool { return regexp.MustCompile(re).MatchString(out) }
	switch {
	case command == "etalake credits" && !(has(`(?m)^\s*schedule\s`) && has(`(?m)^\s*tracking\s`)):
		return "want the balance of both products"
	case strings.HasPrefix(command, "etalake track add ") && !has(fmt.Sprintf(`\b%d added`, len(added))):
		return fmt.Sprintf("want its %d shipments added", len(added))
	case strings.Contains(command, "--dry-run") && !has(`(?m)^plan of run`):
		return "want the plan"
	case (strings.HasPrefix(command, "etalake run ") && !strings.Contains(command, "--dry-run") || strings.HasPrefix(command, "etalake backfill ")) &&
		!has(`(?m)^(run|backfill) \S+ for \S+: ok in`):
		return "want it to end ok"
	case strings.HasPrefix(command, "etalake run ") || strings.HasPrefix(command, "etalake backfill "):
		// The page's ports, lane, shipments and vessel are the simulator's,
		// and the export line's ETALAKE_DATE is the simulator's day (on the
		// machine's date the lane's routes were past its world's 60 days):
		// nothing is "not found".
		if nf := regexp.MustCompile(`(?m)^\s*not found .*$`).FindString(out); nf != "" {
			return "want every port, lane, shipment and vessel found, on the simulator's day: " + strings.TrimSpace(nf)
		}
	case command == "etalake track list":
		for _, n := range added {
			if !strings.Contains(out, n) {
				return "want every shipment track add added, " + n + " among them"
			}
		}
	case strings.HasPrefix(command, "etalake sql ") && (has(`\(0 rows\)`) || !has(`\(\d+ rows?\)`)):
		return "want the shipments it selects"
	case strings.HasPrefix(command, "etalake report --html ") && !has(`report: wrote \S+\.html`):
		return "want the page written"
	}
	return ""
}

// trackedNumbers are the shipment numbers a `track add` line names.
func trackedNumbers(command string) []string {
	var numbers []string
	for _, f := range strings.Fields(strings.TrimPrefix(command, "etalake track add ")) {
		if !strings.HasPrefix(f, "-") {
			number, _, _ := strings.Cut(f, ":")
			numbers = append(numbers, number)
		}
	}
	return numbers
}

// runSummaryJQ runs the page's jq line after the block, with a ports.txt
// of its own: the run's summary read from its JSON log is its status,
// exit code and (no) stop reason, and the log lines went to run.log.
func runSummaryJQ(t *testing.T, sh *snippetShell, exports string) {
	b := docShellBlock(t, "--log-format json", "| jq ")
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skipf("no jq here: %s:%d pipes into it", b.file, b.line)
	}
	if err := os.WriteFile(filepath.Join(sh.dir, "ports.txt"), []byte("NLRTM\nDEHAM\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := sh.run(t, exports+b.text)
	if err != nil || !regexp.MustCompile(`^ok\t0\t\n$`).MatchString(out) {
		t.Errorf("%s:%d: want the run's status, exit code and empty stop reason, ok\\t0\\t; it ended with %v and printed %q", b.file, b.line, err, out)
	}
	log, err := os.ReadFile(filepath.Join(sh.dir, "run.log"))
	if err != nil || !strings.HasPrefix(string(log), "{") {
		t.Errorf("%s:%d: run.log should hold the run's log as JSON lines: %v\n%s", b.file, b.line, err, log)
	}
}
