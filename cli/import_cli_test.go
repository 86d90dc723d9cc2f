package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// An import lands every body it can read: good ones are derived, one cut
// short or of no known shape is landed under its file and line and
// dead-lettered with the reason, and one whose container number fails its
// check digit is derived like any other (the server answered it). The
// summary's counts add up, each problem is said once, and the import
// exits 3. Importing again finds every body already there.
func TestImportLandsEverythingItCanRead(t *testing.T) {
	slowtest.Long(t)
	w := simtest.World(sim.WorldConfig{})
	at := w.Config().Start.Add(24 * time.Hour)
	var lines []string
	for _, ref := range w.Shipments() {
		sh, err := w.Shipment(ref, at)
		if err != nil {
			continue
		}
		b, _ := json.Marshal(sh)
		lines = append(lines, string(b))
		if len(lines) == 3 {
			break
		}
	}
	odd := strings.Replace(lines[2], `"number":"`+mustContainerNumber(t, lines[2])+`"`, `"number":"TEMU1234567"`, -1)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ndjson := write("day.ndjson", lines[0]+"\n"+lines[1][:len(lines[1])/2]+"\n"+lines[1]+"\n")
	unknown := write("unknown.json", `{"hello":"world"}`)
	oddFile := write("odd.json", odd)
	env := map[string]string{"ETALAKE_WAREHOUSE": t.TempDir()}

	code, out, stderr := run(t, env, "import", ndjson, unknown, oddFile)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"5 read from 3 files: 5 landed new, 0 already there", "2 dead letters (2 responses kept but not derived), 2 of them identified as no known answer"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, where := range []string{"day.ndjson:2", "unknown.json"} {
		if n := strings.Count(stderr, where); n != 1 {
			t.Errorf("%s said %d times, want once:\n%s", where, n, stderr)
		}
	}
	code, out, _ = run(t, env, "sql", "SELECT count(*) AS n FROM containers WHERE container_number = 'TEMU1234567'")
	if code != 0 || !strings.Contains(out, "1") {
		t.Errorf("the body with TEMU1234567 was not derived:\n%s", out)
	}
	// Again: every body is already there; the two that are no answer are
	// still dead letters, so the import still says so.
	code, out, stderr = run(t, env, "import", ndjson, unknown, oddFile)
	if code != 3 || !strings.Contains(out, "5 read from 3 files: 0 landed new, 5 already there") {
		t.Errorf("importing again: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := run(t, env, "import", "--endpoint", "shipment", unknown); code != 2 || !strings.Contains(stderr, "--request") {
		t.Errorf("--endpoint without --request: exit %d, want 2\n%s", code, stderr)
	}
}

// An import given nothing to import — an empty directory, one of other
// files, a path that does not exist, a file named outright that a
// directory's walk would skip (a .csv) — is a usage error (exit 2) naming
// the path and what was expected, and no warehouse is created for it.
func TestImportOfNothingIsAUsageError(t *testing.T) {
	empty := t.TempDir()
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(other, "c.csv")
	if err := os.WriteFile(csv, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wh := filepath.Join(t.TempDir(), "wh")
	for _, args := range [][]string{{empty}, {other}, {filepath.Join(empty, "missing")}, {csv}} {
		code, out, stderr := run(t, map[string]string{"ETALAKE_WAREHOUSE": wh}, append([]string{"import"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, args[0]) {
			t.Errorf("import %s: exit %d, want %d naming it\n%s%s", args[0], code, exitUsage, out, stderr)
		}
	}
	if _, err := os.Stat(wh); !os.IsNotExist(err) {
		t.Errorf("a warehouse was created for nothing: %v", err)
	}
	if _, _, stderr := run(t, nil, "import", empty); !strings.Contains(stderr, "holds no *.json, *.ndjson or *.jsonl file") {
		t.Errorf("the message does not say what was expected:\n%s", stderr)
	}
	if _, _, stderr := run(t, nil, "import", csv); !strings.Contains(stderr, "is not a *.json, *.ndjson or *.jsonl file of JSON responses") {
		t.Errorf("the message does not say what was expected of a file:\n%s", stderr)
	}
}

// mustContainerNumber is the first container number of a tracking body.
func mustContainerNumber(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `"number":"`)
	if !ok || len(rest) < 11 {
		t.Fatalf("no container number in %.200s", body)
	}
	return rest[:11]
}

// Schedules as real providers send them (issue 29, item 5): DCSA port
// schedules with lower-case codes, dates without an offset, IMO numbers
// with a prefix, as a JSON number and of 8 digits, and a service schedule
// sent without its array. Every call lands, its codes upper case and its
// naive dates read in the port's zone, the import is ok (exit 0) and the
// reliability view judges the call. The same port schedules with one
// timestamp that does not read: only that timestamp is dead-lettered,
// under its path, the other calls land, and the import is partial (exit
// 3).
func TestImportOfLenientSchedulesIsHonest(t *testing.T) {
	slowtest.Long(t)
	cases := "testdata/transform/"
	env := map[string]string{"ETALAKE_WAREHOUSE": t.TempDir()}
	code, out, stderr := run(t, env, "import", "--observed-at", "2025-01-13T06:00:00Z",
		cases+"dcsa_port_schedules_lenient/body.json", cases+"dcsa_vessel_schedule_bare/body.json")
	if code != 0 || !strings.Contains(out, ": ok") || !strings.Contains(out, "port_calls 14") {
		t.Fatalf("lenient schedules: exit %d, want 0 with 14 port calls\n%s%s", code, out, stderr)
	}
	for query, want := range map[string]string{
		"SELECT count(*) AS n FROM dead_letters": "0",
		"SELECT count(*) AS n FROM port_calls WHERE classifier IN ('PLN', 'EST', 'ACT') AND event_type_code IN ('ARRI', 'DEPA')": "14",
		"SELECT string_agg(DISTINCT event_at_zone_assumed, ',' ORDER BY event_at_zone_assumed) AS z FROM port_calls":             "Asia/Shanghai,Europe/Amsterdam,Europe/Berlin,UTC",
		"SELECT outcome FROM port_call_reliability WHERE port_locode = 'NLAMS' AND vessel_imo = 9321483":                         "on_time",
		"SELECT count(DISTINCT vessel_imo) AS n FROM port_calls WHERE vessel_imo IN (9321483, 9839179, 23162713)":                "3",
	} {
		code, got, stderr := run(t, env, "sql", query)
		if code != 0 || !strings.Contains(got, "\n"+want+"\n") {
			t.Errorf("%s: exit %d, want %s\n%s%s", query, code, want, got, stderr)
		}
	}

	env = map[string]string{"ETALAKE_WAREHOUSE": t.TempDir()}
	code, out, stderr = run(t, env, "import", "--observed-at", "2025-01-13T06:00:00Z", cases+"dcsa_port_schedules_one_bad_timestamp/body.json")
	if code != 3 || !strings.Contains(out, ": partial") || !strings.Contains(out, "port_calls 6") || !strings.Contains(out, "1 dead letters") {
		t.Fatalf("one timestamp that does not read: exit %d, want 3 with 6 port calls and 1 dead letter\n%s%s", code, out, stderr)
	}
	code, got, _ := run(t, env, "sql", "SELECT record FROM dead_letters")
	if code != 0 || !strings.Contains(got, "[0].vesselSchedules[0].timestamps[2].eventDateTime") {
		t.Errorf("dead letters:\n%s", got)
	}
}
