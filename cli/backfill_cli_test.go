package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
)

// A backfill asks before it spends (on a terminal); an operator who
// answers no has had nothing done: no warehouse is created, no run is
// recorded, nothing is asked of the service but what the plan needs, and
// the backfill exits 1 saying so (README: Exit codes). One who answers
// yes gets the backfill the plan showed.
func TestADeclinedBackfillCreatesAndRecordsNothing(t *testing.T) {
	slowtest.Long(t)
	service := cliSim(t)
	env := map[string]string{"ETALAKE_SCHEDULE_URL": service.ScheduleURL, "ETALAKE_TRACKING_URL": service.TrackingURL,
		"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	port := service.Service.World().Ports()[0].Locode
	// The backfill command as on a terminal, the operator's answer given.
	answering := func(yes bool, shown *jobs.Plan) *cli.App {
		app := newApp()
		for _, cmd := range app.Commands {
			if cmd.Name == "backfill" {
				cmd.Action = func(c *cli.Context) error {
					return runJob(c, "backfill", false, func(p jobs.Plan) bool { *shown = p; return yes })
				}
			}
		}
		return app
	}
	wh := filepath.Join(t.TempDir(), "wh")
	var shown jobs.Plan
	code, out, stderr := runWith(t, answering(false, &shown), env, "backfill", "--warehouse", wh, "--date", "2026-01-05", "--ports", port)
	if code != exitFailure || !strings.Contains(stderr, "backfill declined: nothing was spent; no warehouse was created or run recorded") {
		t.Errorf("declined: exit %d, want %d saying nothing was done\n%s%s", code, exitFailure, out, stderr)
	}
	if shown.Total() == 0 {
		t.Errorf("the operator was shown no plan: %+v", shown)
	}
	if _, err := os.Stat(wh); !os.IsNotExist(err) {
		t.Errorf("a declined backfill created the warehouse: %v", err)
	}

	code, out, stderr = runWith(t, answering(true, &shown), env, "backfill", "--warehouse", wh, "--date", "2026-01-05", "--ports", port)
	if code != exitOK {
		t.Fatalf("accepted: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = run(t, map[string]string{"ETALAKE_WAREHOUSE": wh}, "sql", "--format", "csv", "SELECT job, status, exit_code FROM etl_runs")
	if code != exitOK || !strings.HasSuffix(out, "job,status,exit_code\nbackfill,ok,0\n") {
		t.Errorf("etl_runs: exit %d, want the accepted backfill's one row\n%s%s", code, out, stderr)
	}
}
