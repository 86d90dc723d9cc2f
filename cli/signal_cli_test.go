package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
)

// A job stopped by SIGINT or SIGTERM exits with the shell's code for it
// (130, 143), keeps what it landed, and its etl_runs row says how it
// ended: partial, the signal named in stop_reason, the exit code.
//
// "When a command terminates on a fatal signal whose number is N, Bash
// uses the value 128+N as the exit status." (Bash Reference Manual, 3.7.5
// Exit Status)
func TestASignalEndsAJobWithItsCodeAndSaysSoInTheRunRow(t *testing.T) {
	slowtest.Long(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code int
		date string
	}{
		{syscall.SIGINT, "SIGINT", 130, "2026-01-05"},
		{syscall.SIGTERM, "SIGTERM", 143, "2026-01-06"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := cliSim(t)
			var ports []string
			for _, p := range env.Service.World().Ports() {
				if len(ports) < 8 {
					ports = append(ports, p.Locode)
				}
			}
			wh := filepath.Join(t.TempDir(), "wh")
			vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
				"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1/1s", "ETALAKE_WAREHOUSE": wh, "ETALAKE_STATE_DIR": t.TempDir()}
			var environ []string
			for k, v := range vars {
				environ = append(environ, k+"="+v)
			}
			cmd := etalakeProcess(t, environ, "backfill", "--yes", "--ports", strings.Join(ports, ","), "--date", tc.date, "--log-format", "json")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The balance and two ports answered, the rest waiting for
			// the rate: stopped in the middle.
			deadline := time.Now().Add(30 * time.Second)
			for env.Service.Stats().Requests < 3 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("%v: %v, want exit %d\n%s", tc.name, err, tc.code, out.String())
			}
			code, rows, stderr := run(t, vars, "sql", "--format", "csv",
				"SELECT status, exit_code, stop_reason, requests FROM etl_runs WHERE logical_date = DATE '"+tc.date+"'")
			if code != exitOK {
				t.Fatalf("sql: exit %d\n%s", code, stderr)
			}
			if !strings.Contains(rows, "partial,"+strconv.Itoa(tc.code)+",\"stopped by "+tc.name) {
				t.Errorf("etl_runs: %s; want partial, exit code %d, stopped by %s", rows, tc.code, tc.name)
			}
			code, landed, _ := run(t, vars, "sql", "--format", "csv", "SELECT count(*) FROM raw_responses WHERE endpoint = 'schedule_port'")
			if code != exitOK || strings.HasSuffix(strings.TrimSpace(landed), "\n0") {
				t.Errorf("the ports answered before the signal were not kept: %s", landed)
			}
		})
	}
}
