package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// Bad rows in a nightly run's --shipments cost only themselves: each one
// is reported with its file and line, the good rows are asked (a container
// number whose check digit fails among them, with a warning), and the run
// ends partial, etl_runs saying how many rows were skipped. With --strict,
// the same file is refused whole before any request, every bad row listed.
func TestBadInputRowsCostOnlyThemselves(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	w := env.Service.World()
	var good []wire.ShipmentRef
	for _, ref := range w.Shipments() {
		if ref.Type == wire.ShipmentContainer {
			good = append(good, ref)
		}
		if len(good) == 3 {
			break
		}
	}
	csv := "shipment_number,shipment_type,sealine\n" +
		fmt.Sprintf("%s,CT,%s\n", good[0].Number, good[0].Sealine) + // 2
		"MAEU1,XX,\n" + // 3: no such type
		fmt.Sprintf("%s,CT,%s\n", good[1].Number, good[1].Sealine) + // 4
		",CT,\n" + // 5: no number
		"TEMU1234567,CT,\n" + // 6: check digit fails: asked, warned
		"MAEU123456789,BL,MAERSK\n" + // 7: not a SCAC
		fmt.Sprintf("%s,CT,%s\n", good[2].Number, good[2].Sealine) // 8
	file := filepath.Join(t.TempDir(), "shipments.csv")
	if err := os.WriteFile(file, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	wh := t.TempDir()
	e := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": wh}
	date := w.Config().Start.Format(time.DateOnly)

	code, out, stderr := run(t, e, "run", "--strict", "--date", date, "--shipments", file)
	if code != 2 || len(env.Service.Ledger()) != 0 {
		t.Fatalf("--strict: exit %d, %d requests sent: want 2 and none\n%s%s", code, len(env.Service.Ledger()), out, stderr)
	}
	for _, line := range []int{3, 5, 7} {
		if !strings.Contains(stderr, fmt.Sprintf("%s:%d: ", file, line)) {
			t.Errorf("--strict does not list line %d:\n%s", line, stderr)
		}
	}

	code, out, stderr = run(t, e, "run", "--date", date, "--shipments", file)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (partial)\n%s%s", code, out, stderr)
	}
	for _, line := range []int{3, 5, 7} {
		if !strings.Contains(out, fmt.Sprintf("skipped    %s:%d: ", file, line)) {
			t.Errorf("the summary does not list line %d:\n%s", line, out)
		}
	}
	if !strings.Contains(out, "warning    container number TEMU1234567: its ISO 6346 check digit should be 5, not 7") {
		t.Errorf("the summary does not warn of TEMU1234567:\n%s", out)
	}
	paths := fmt.Sprint(env.Service.Ledger())
	for _, n := range []string{good[0].Number, good[1].Number, good[2].Number, "TEMU1234567"} {
		if !strings.Contains(paths, n) {
			t.Errorf("%s was not asked", n)
		}
	}
	code, out, _ = run(t, e, "sql", "SELECT status, exit_code, CAST(shortfalls AS VARCHAR) FROM etl_runs")
	if code != 0 || !strings.Contains(out, "partial") || !strings.Contains(out, `"skipped_input_rows":3`) {
		t.Errorf("etl_runs:\n%s", out)
	}
}

// A nightly run given nothing to ask — no selection, nothing tracked —
// exits 2 with a hint before any request, instead of an ok that did
// nothing (a scheduled job with a wrong ExecStart would look fine).
func TestARunWithNothingToDoIsAUsageError(t *testing.T) {
	slowtest.Long(t)
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(10), Tracking: simtest.Credits(10)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
	})
	e := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": t.TempDir()}
	code, out, stderr := run(t, e, "run")
	if code != 2 || !strings.Contains(stderr, "nothing to do") || !strings.Contains(stderr, "etalake track add") || len(env.Service.Ledger()) != 0 {
		t.Fatalf("run with nothing to do: exit %d, %d requests:\n%s%s", code, len(env.Service.Ledger()), out, stderr)
	}
	if code, out, stderr := run(t, e, "track", "add", "MSCU1234566"); code != 0 {
		t.Fatalf("track add: %d\n%s%s", code, out, stderr)
	}
	if code, out, stderr := run(t, e, "run", "--date", env.Service.World().Config().Start.Format(time.DateOnly)); code != 0 && code != 3 {
		t.Fatalf("run with a tracked shipment: exit %d\n%s%s", code, out, stderr)
	}
}

// A dry run writes nothing: on a missing warehouse it plans as for an
// empty one and creates no file or directory; on an existing one every
// file is left as it was (no lock file, no run recorded, no migration).
func TestADryRunWritesNothing(t *testing.T) {
	slowtest.Long(t)
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(10), Tracking: simtest.Credits(10)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
	})
	w := env.Service.World()
	port := simtest.Port(t, w, w.Config().Start)
	date := w.Config().Start.Format(time.DateOnly)
	missing := filepath.Join(t.TempDir(), "wh")
	e := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": missing}
	code, out, stderr := run(t, e, "run", "--dry-run", "--date", date, "--ports", port)
	if code != 0 || !strings.Contains(out, "plan of run") {
		t.Fatalf("dry run on a missing warehouse: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Fatalf("the dry run created %s (%v)", missing, err)
	}

	if code, out, stderr := run(t, e, "run", "--date", date, "--ports", port); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, stderr)
	}
	before := listing(t, missing)
	code, out, stderr = run(t, e, "run", "--dry-run", "--date", date, "--ports", port)
	if code != 0 || !strings.Contains(out, "already landed") {
		t.Fatalf("dry run on the warehouse: exit %d, want the port already landed\n%s%s", code, out, stderr)
	}
	if after := listing(t, missing); after != before {
		t.Fatalf("the dry run changed the warehouse:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// listing renders every file under dir with its size and modification
// time.
func listing(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %s\n", path, info.Size(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
