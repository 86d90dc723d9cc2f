package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// The dry run of a shard says its part of what it was given; the run
// records it in etl_runs and the metrics file's shard label; a shard that
// is none of N is refused naming the setting.
func TestTheShardsPartIsShown(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	var ports []string
	for _, p := range env.Service.World().Ports() {
		if len(ports) < 12 {
			ports = append(ports, p.Locode)
		}
	}
	dir := t.TempDir()
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": filepath.Join(dir, "wh"),
		"ETALAKE_METRICS_FILE": filepath.Join(dir, "etalake.prom"), "ETALAKE_SHARD": "2/4"}
	args := []string{"backfill", "--yes", "--ports", strings.Join(ports, ","), "--date", "2026-01-05"}
	code, stdout, stderr := run(t, vars, append(args, "--dry-run")...)
	if code != exitOK || !regexp.MustCompile(`(?m)^  shard     2/4: [0-9]+ of 12 ports \(FNV-1a`).MatchString(stdout) {
		t.Fatalf("exit %d; want the plan to say the shard's part of 12 ports:\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(vars["ETALAKE_METRICS_FILE"]); !os.IsNotExist(err) {
		t.Errorf("a dry run wrote the metrics file (%v)", err)
	}
	if code, stdout, stderr = run(t, vars, args...); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if c, out, _ := run(t, vars, "sql", "--format", "csv", "SELECT shard FROM etl_runs"); c != exitOK || out != "shard\n2/4\n" {
		t.Errorf("etl_runs.shard: %q, want 2/4", out)
	}
	mf := readMetrics(t, vars["ETALAKE_METRICS_FILE"])
	if got := labelOf(t, mf, "etalake_job_status", "shard"); got != "2/4" {
		t.Errorf("the metrics file's shard %q, want 2/4", got)
	}

	vars["ETALAKE_SHARD"] = "5/4"
	code, stdout, stderr = run(t, vars, args...)
	if code != exitUsage || !strings.Contains(stderr, "ETALAKE_SHARD (--shard) 5/4: want I/N") {
		t.Errorf("shard 5/4: exit %d, want %d naming the setting:\n%s%s", code, exitUsage, stdout, stderr)
	}
}
