package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// TestREADMENightlySetupRuns: the README's nightly setup, run by bash
// line for line against a simulator, with only what names the reader's
// machine put in the test's place: the provider's URLs (the simulator's),
// /etc/etalake/ and /srv/etalake (directories of the test's), etalake on
// the PATH, and `crontab -` writing to a file rather than the user's
// crontab. Every command must succeed, and the crontab must hold the
// time zone line and the night's job.
func TestREADMENightlySetupRuns(t *testing.T) {
	slowtest.Require(t, "runs the README's nightly setup as a bash script against a simulator, about 30 s with the binary's build")
	script := nightlySetup(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here: the nightly setup is a shell recipe")
	}
	f := newFleet(t)
	dir := t.TempDir()
	etc := filepath.Join(dir, "etc") + "/"
	f.writeSelection(t, etc, "a")
	if err := os.Rename(filepath.Join(etc, "api-key"), filepath.Join(etc, "key")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(etc, "shipments.csv"), filepath.Join(dir, "bookings.csv")); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(buildEtalake(t), filepath.Join(bin, "etalake")); err != nil {
		t.Fatal(err)
	}
	script = strings.NewReplacer(
		"https://api.example.com/schedule/api/v1", f.env.ScheduleURL,
		"https://api.example.com/container-tracking/api/v2", f.env.TrackingURL,
		"/etc/etalake/", etc,
		"/srv/etalake", filepath.Join(dir, "srv", "etalake"),
		"| crontab -", "> crontab.txt",
	).Replace(script)
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = dir
	// The simulator allows the test's rate; the rate-limit state is the
	// test's own.
	cmd.Env = append(withoutEtalakeEnv(os.Environ()), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ETALAKE_RATE=1000/1s", "ETALAKE_STATE_DIR="+filepath.Join(dir, "state"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the nightly setup ended with %v:\n%s", err, out)
	}
	if !strings.Contains(string(out), "ok") || !strings.Contains(string(out), "exit_code") {
		t.Errorf("the setup's last query should list its runs, ok; it printed:\n%s", out)
	}
	crontab, err := os.ReadFile(filepath.Join(dir, "crontab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(crontab)), "\n")
	if len(lines) != 2 || lines[0] != "CRON_TZ=UTC" || !strings.Contains(lines[1], "etalake run --ports @") {
		t.Errorf("the crontab the setup installs should be CRON_TZ=UTC, then the night's run; it is:\n%s", crontab)
	}
}

// nightlySetup returns the README's ```sh block that sets a night up.
func nightlySetup(t *testing.T) string {
	t.Helper()
	return readmeBlock(t, "etalake credits", "crontab -")
}
