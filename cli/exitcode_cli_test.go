package cli

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim/simtest"
)

// etl_runs.exit_code is the code the process exited with, however the job
// ended: ok, partial (a cap), refused (a key the service does not know:
// 401); a dry run, which writes no row, exits 0 though the run it plans
// would stop at its cap, and its log says so. The summary says the verdict the
// code is mapped from.
func TestTheRecordedExitCodeIsTheProcesss(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	wh := filepath.Join(t.TempDir(), "wh")
	ports := []string{simtest.Port(t, env.Service.World(), env.Service.Clock().Now())}
	for _, p := range env.Service.World().Ports() {
		if len(ports) < 3 && p.Locode != ports[0] {
			ports = append(ports, p.Locode)
		}
	}
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": wh}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range vars {
			if a != k {
				m[a] = b
			}
		}
		return m
	}
	sel := []string{"backfill", "--yes", "--ports", strings.Join(ports, ","), "--log-format", "json"}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    []string
		code    int
		verdict string
	}{
		{"a plan of a run that would be partial", vars, append(sel, "--dry-run", "--max-credits", "1", "--date", "2026-01-04"), exitOK, "ok"},
		{"a run stopped by its cap", vars, append(sel, "--max-credits", "1", "--date", "2026-01-05"), exitPartial, "partial"},
		{"a run of an unknown key", with("ETALAKE_API_KEY", "not-a-key-we-gave"), append(sel, "--date", "2026-01-06"), exitUsage, "refused"},
		{"a run that had everything", vars, append(sel, "--date", "2026-01-07"), exitOK, "ok"},
	} {
		code, stdout, stderr := run(t, tc.env, tc.args...)
		if code != tc.code {
			t.Fatalf("%s: exit %d, want %d\n%s%s", tc.name, code, tc.code, stdout, stderr)
		}
		if slices.Contains(tc.args, "--dry-run") {
			// It writes nothing: its log's last line says the code.
			if !strings.Contains(stderr, `"msg":"run: ended"`) || !strings.Contains(stderr, `"dry_run":true,"exit_code":0`) || !regexp.MustCompile(`"schedule":\{[^}]*"over_cap_or_balance":[1-9]`).MatchString(stdout) {
				t.Errorf("%s: the plan does not say the cap stops the run, or the log does not end with exit code 0:\n%s%s", tc.name, stdout, stderr)
			}
			continue
		}
		date := tc.args[len(tc.args)-1]
		q := "SELECT exit_code FROM etl_runs WHERE logical_date = DATE '" + date + "'"
		if c, out, _ := run(t, vars, "sql", "--format", "csv", q); c != exitOK || out != "exit_code\n"+strconv.Itoa(tc.code)+"\n" {
			t.Errorf("%s: etl_runs.exit_code %q, want %d", tc.name, out, tc.code)
		}
		if !strings.Contains(stdout, `"verdict":"`+tc.verdict+`"`) {
			t.Errorf("%s: the summary does not say the verdict %s:\n%s", tc.name, tc.verdict, stdout)
		}
	}
}

// Each night of the demo records the code a run with its verdict exits
// with, as run does: a NULL exit_code marks a job killed before it ended
// (README: Exit codes), which no demo night is.
func TestTheDemosRunsRecordTheirExitCode(t *testing.T) {
	slowtest.Long(t)
	dir := filepath.Join(t.TempDir(), "demo")
	if code, out, errOut := run(t, nil, "demo", "--days", "2", "--shipments", "20", "--warehouse", dir); code != exitOK {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := run(t, map[string]string{"ETALAKE_WAREHOUSE": dir}, "sql", "--format", "csv",
		"SELECT count(*) AS runs, count(exit_code) AS recorded, count(*) FILTER (status = 'ok' AND exit_code = 0) AS ok_zero FROM etl_runs WHERE job = 'demo'")
	if code != exitOK || !strings.Contains(out, "runs,recorded,ok_zero\n2,2,2\n") {
		t.Errorf("the demo's runs: exit %d\n%s%s\nwant 2 runs, each with its exit code (0 for ok)", code, out, errOut)
	}
}
