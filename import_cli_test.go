package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract/sim"
	"github.com/etalake/etalake/extract/sim/simtest"
)

// An import lands every body it can read: good ones are derived, one cut
// short or of no known shape is landed under its file and line and
// dead-lettered with the reason, and one whose container number fails its
// check digit is derived like any other (the server answered it). The
// summary's counts add up, each problem is said once, and the import
// exits 3. Importing again finds every body already there.
func TestImportLandsEverythingItCanRead(t *testing.T) {
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

// mustContainerNumber is the first container number of a tracking body.
func mustContainerNumber(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `"number":"`)
	if !ok || len(rest) < 11 {
		t.Fatalf("no container number in %.200s", body)
	}
	return rest[:11]
}
