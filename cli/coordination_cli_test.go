package cli

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// A coordinator stopped in the middle of a job ends the job partial (exit
// 3), saying why, and not one request more reaches the service: the
// process does not guess the window or the cap without it.
func TestAJobThatLosesItsCoordinatorEndsPartial(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := cliSim(t)
	// The database stops as the third request (the balance, then two
	// ports) arrives, before it is answered: the next grant, a window
	// later, finds it gone.
	const before = 3
	var mu sync.Mutex
	seen := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen++
		if seen == before {
			if err := pg.Stop(); err != nil {
				t.Error(err)
			}
		}
		mu.Unlock()
		env.Service.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	var ports []string
	for _, p := range env.Service.World().Ports() {
		if len(ports) < 6 {
			ports = append(ports, p.Locode)
		}
	}
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": srv.URL + env.Service.ScheduleBasePath(), "ETALAKE_TRACKING_URL": srv.URL + sim.TrackingPrefix,
		"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1/1s", "ETALAKE_WAREHOUSE": filepath.Join(t.TempDir(), "wh"),
		"ETALAKE_COORDINATION": pg.URL}
	code, stdout, stderr := run(t, vars, "backfill", "--yes", "--ports", strings.Join(ports, ","), "--date", "2026-01-05", "--log-format", "json")
	if code != exitPartial {
		t.Fatalf("exit %d, want %d (partial)\n%s%s", code, exitPartial, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "coordinator lost") {
		t.Errorf("the job does not say it lost its coordinator:\n%s%s", stdout, stderr)
	}
	if n := env.Service.Stats().Requests; n != before {
		t.Errorf("the service saw %d requests; want the %d before the coordinator stopped", n, before)
	}
	// The database driver's error indents its causes on lines of their
	// own: etl_runs.stop_reason folds them into one line.
	code, reason, stderr := run(t, vars, "sql", "--format", "json", "SELECT stop_reason FROM etl_runs WHERE logical_date = DATE '2026-01-05'")
	if code != exitOK || !strings.Contains(reason, "coordinator lost") || strings.Contains(reason, `\n`) || strings.Contains(reason, `\t`) {
		t.Errorf("etl_runs.stop_reason: exit %d, %s%s; want one line saying the coordinator was lost", code, reason, stderr)
	}
}

// The coordinator's settings are refused with a message naming the
// variable and the flag, the URL's password never echoed.
func TestCoordinationSettingsAreRefusedByName(t *testing.T) {
	for _, tc := range []struct{ env map[string]string }{
		{map[string]string{"ETALAKE_COORDINATION": "mysql://u:hunter2@db/x"}},
		{map[string]string{"ETALAKE_COORDINATION": "postgres:///x"}},
		{map[string]string{"ETALAKE_COORDINATION": "postgres://db/x", "ETALAKE_COORDINATION_LEASE": "5s"}},
	} {
		vars := map[string]string{"ETALAKE_SCHEDULE_URL": "http://127.0.0.1:1/schedule/api/v1", "ETALAKE_API_KEY": cliKey}
		for k, v := range tc.env {
			vars[k] = v
		}
		code, stdout, stderr := run(t, vars, "credits")
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.env, code, exitUsage, stdout, stderr)
		}
		if !strings.Contains(stderr, "ETALAKE_COORDINATION") || strings.Contains(stderr, "hunter2") {
			t.Errorf("%v: the message does not name the setting, or shows the password:\n%s", tc.env, stderr)
		}
	}
}

// A coordinator out of reach when the job starts is a setup that failed
// (exit 1), naming the setting, before anything is asked.
func TestACoordinatorOutOfReachAtTheStartFails(t *testing.T) {
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(100)}}})
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_COORDINATION": "postgres://etalake@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"}
	code, stdout, stderr := run(t, vars, "credits")
	if code != exitFailure || !strings.Contains(stderr, "ETALAKE_COORDINATION (--coordination)") || strings.Contains(stderr, "lost") {
		t.Errorf("exit %d, want %d, naming the setting (a coordinator never had is not lost):\n%s%s", code, exitFailure, stdout, stderr)
	}
	if n := env.Service.Stats().Requests; n != 0 {
		t.Errorf("the service saw %d requests; want none", n)
	}
}

// A Postgres stopped in the middle of a capped job, then started again:
// the re-run spends the rest of the cap and ends (exit 3, the cap
// reached) without waiting for the lease of the credit the first job had
// in flight when it lost the database — its holder's session ended with
// the database, and that credit is counted uncertain at once.
func TestARerunAfterTheCoordinatorCameBackFinishesItsCap(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := cliSim(t)
	const before = 3 // the balance, then two ports
	var mu sync.Mutex
	seen := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen++
		if seen == before {
			if err := pg.Stop(); err != nil {
				t.Error(err)
			}
		}
		mu.Unlock()
		env.Service.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	var ports []string
	for _, p := range env.Service.World().Ports() {
		if len(ports) < 10 {
			ports = append(ports, p.Locode)
		}
	}
	environ := []string{"ETALAKE_SCHEDULE_URL=" + srv.URL + env.Service.ScheduleBasePath(), "ETALAKE_TRACKING_URL=" + srv.URL + sim.TrackingPrefix,
		"ETALAKE_API_KEY=" + cliKey, "ETALAKE_RATE=2/1s", "ETALAKE_WAREHOUSE=" + filepath.Join(t.TempDir(), "wh"),
		"ETALAKE_STATE_DIR=" + t.TempDir(), "ETALAKE_COORDINATION=" + pg.URL, "ETALAKE_MAX_CREDITS=6"}
	job := func() (int, string) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // the lease is 15
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "backfill", "--yes", "--ports", strings.Join(ports, ","), "--date", "2026-01-05", "--log-format", "json")
		cmd.Env = append(append(os.Environ(), "ETALAKE_TEST_AS_MAIN=1"), environ...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if ctx.Err() != nil || (err != nil && !errors.As(err, &ee)) {
			t.Fatalf("the job did not end within a minute (%v):\n%s", err, lastLines(out))
		}
		return cmd.ProcessState.ExitCode(), string(out)
	}
	charged := func() int64 {
		var n int64
		for _, e := range env.Service.Ledger() {
			if e.Charged {
				n++
			}
		}
		return n
	}
	if code, out := job(); code != exitPartial || !strings.Contains(out, "coordinator lost") {
		t.Fatalf("the first job: exit %d, want %d saying the coordinator was lost\n%s", code, exitPartial, lastLines([]byte(out)))
	}
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	first := charged()
	code, out := job()
	if code != exitPartial || !strings.Contains(out, "shared cap 6 reached") {
		t.Fatalf("the re-run: exit %d, want %d, the cap reached\n%s", code, exitPartial, lastLines([]byte(out)))
	}
	// The first job's ports (two at least: one settled, one in flight when
	// the database stopped, counted uncertain; on a loaded machine another
	// may have left before the job saw the database gone), then the rest
	// of the cap: never past it.
	if first < 2 || first >= 6 || charged() != 6 {
		t.Errorf("charged %d by the first job and %d in all; want 2 to 5, then the rest of the cap of 6", first, charged())
	}
}
