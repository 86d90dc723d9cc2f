package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

func TestCLIImportInPartsEqualsOneProcess(t *testing.T) {
	in := filepath.Join(t.TempDir(), "responses")
	if code, _, stderr := run(t, nil, "sim", "responses", "--shipments", "25", "--days", "3", "--out", in); code != 0 {
		t.Fatalf("sim responses: exit %d: %s", code, stderr)
	}
	days, _ := filepath.Glob(filepath.Join(in, "*.ndjson"))
	if len(days) != 3 {
		t.Fatalf("%d day files; want 3", len(days))
	}
	// A truncated body: refused by file and line in either way.
	f, err := os.OpenFile(days[1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"metadata":{"shipmentId":` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, err := os.Stat(days[1])
	if err != nil {
		t.Fatal(err)
	}

	oneWh, partsWh := t.TempDir(), t.TempDir()
	code, oneOut, oneErr := run(t, nil, "import", "--warehouse", oneWh, "--part-size", "0", in)
	if code != exitPartial || !strings.Contains(oneOut, "run ") {
		t.Fatalf("one process: exit %d; %s%s", code, oneOut, oneErr)
	}
	// Parts of a third of a day: each its own etalake process (the test
	// binary acting as etalake, see TestMain).
	env := map[string]string{"ETALAKE_TEST_AS_MAIN": "1"}
	code, partsOut, partsErr := run(t, env, "import", "--warehouse", partsWh, "--part-size", strconv.FormatInt(st.Size()/3, 10), in)
	if code != exitPartial {
		t.Fatalf("in parts: exit %d; want %d (a body refused): %s%s", code, exitPartial, partsOut, partsErr)
	}
	if !regexp.MustCompile(`\d+ runs, .* a process each`).MatchString(partsOut) {
		t.Fatalf("in parts, the summary %q does not say it took several processes", partsOut)
	}
	if runtime.GOOS == "linux" && !regexp.MustCompile(`msg="import: part done" part=1 of=\d+ bodies=\d+ landed=\d+ seconds=[\d.]+ peak_rss_mib=[1-9]`).MatchString(partsErr) {
		t.Fatalf("in parts, no part's wall time and peak RSS logged:\n%s", partsErr)
	}
	if a, b := strings.Fields(oneOut)[:8], strings.Fields(partsOut)[:8]; strings.Join(a, " ") != strings.Join(b, " ") {
		t.Fatalf("summaries differ:\n one process: %s\n in parts:    %s", oneOut, partsOut)
	}
	refused := func(s string) []string { return regexp.MustCompile(`refused: \S+:\d+`).FindAllString(s, -1) }
	if a, b := refused(oneErr), refused(partsErr); len(a) != 1 || strings.Join(a, "") != strings.Join(b, "") {
		t.Fatalf("refused in one process %v, in parts %v; want the same body, by file and line", a, b)
	}

	for _, tbl := range schema.Derived() {
		q := "SELECT * FROM " + tbl.Name + " ORDER BY ALL"
		_, a, aerr := run(t, nil, "sql", "--warehouse", oneWh, "--format", "csv", q)
		_, b, berr := run(t, nil, "sql", "--warehouse", partsWh, "--format", "csv", q)
		if a != b || aerr != "" || berr != "" {
			t.Errorf("%s differs: %d bytes in one process, %d in parts (%s%s)", tbl.Name, len(a), len(b), aerr, berr)
		}
	}
	n := regexp.MustCompile(`(\d+) runs`).FindStringSubmatch(partsOut)[1]
	_, runs, _ := run(t, nil, "sql", "--warehouse", partsWh, "--format", "csv",
		`SELECT count(*) FILTER (WHERE args LIKE '%"part":%') AS named, count(*) FILTER (WHERE status = 'failed') AS failed FROM etl_runs WHERE job = 'import'`)
	if want := "named,failed\n" + n + ",0\n"; runs != want {
		t.Fatalf("import runs in parts:\n%swant %s runs, each named for its part, none failed", runs, n)
	}
}

// Another writer holding the warehouse stops an import in parts at its
// first part, as it stops one in one process: a usage error (exit 2).
func TestCLIImportInPartsIntoABusyWarehouse(t *testing.T) {
	in := filepath.Join(t.TempDir(), "responses")
	if code, _, stderr := run(t, nil, "sim", "responses", "--shipments", "5", "--days", "2", "--out", in); code != 0 {
		t.Fatalf("sim responses: exit %d: %s", code, stderr)
	}
	wh := t.TempDir()
	holder, err := load.Open(context.Background(), wh, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	for _, size := range []string{"0", "1KB"} {
		code, _, stderr := run(t, map[string]string{"ETALAKE_TEST_AS_MAIN": "1"}, "import", "--warehouse", wh, "--part-size", size, in)
		if code != exitUsage || !strings.Contains(stderr, "busy") {
			t.Errorf("--part-size %s into a held warehouse: exit %d, %q; want %d, saying it is busy", size, code, stderr, exitUsage)
		}
		if size != "0" && !strings.Contains(stderr, "import part 1 of ") {
			t.Errorf("--part-size %s: %q does not name the part that stopped", size, stderr)
		}
	}
}

// A replay in parts, a process per observed day, rebuilds the tables the
// import built, as a replay in one process does; a held warehouse stops
// it before any part, as it stops an import.
func TestCLIReplayInPartsEqualsOneProcess(t *testing.T) {
	in := filepath.Join(t.TempDir(), "responses")
	if code, _, stderr := run(t, nil, "sim", "responses", "--shipments", "25", "--days", "3", "--out", in); code != 0 {
		t.Fatalf("sim responses: exit %d: %s", code, stderr)
	}
	wh := t.TempDir()
	if code, out, stderr := run(t, nil, "import", "--warehouse", wh, in); code != exitOK {
		t.Fatalf("import: exit %d: %s%s", code, out, stderr)
	}
	tables := func() map[string]string {
		out := map[string]string{}
		for _, tbl := range schema.Derived() {
			_, rows, errOut := run(t, nil, "sql", "--warehouse", wh, "--format", "csv", "SELECT * FROM "+tbl.Name+" ORDER BY ALL")
			if errOut != "" {
				t.Fatalf("%s: %s", tbl.Name, errOut)
			}
			out[tbl.Name] = rows
		}
		return out
	}
	imported := tables()
	same := func(how string) {
		t.Helper()
		for name, rows := range tables() {
			if rows != imported[name] {
				t.Errorf("%s after a replay %s: %d bytes, %d as imported", name, how, len(rows), len(imported[name]))
			}
		}
	}

	env := map[string]string{"ETALAKE_TEST_AS_MAIN": "1"}
	code, out, errOut := run(t, env, "replay", "--warehouse", wh, "--part-size", "1")
	if code != exitOK || !strings.Contains(out, "5 runs, ") || !strings.Contains(out, "a process each") {
		t.Fatalf("replay in parts of a byte: exit %d, %q; want 3 parts, one per observed day, between the reset and the mirror, a process each:\n%s", code, out, errOut)
	}
	if runtime.GOOS == "linux" && !regexp.MustCompile(`msg="replay: part done" part=4 of=5 responses=[1-9]\d* seconds=[\d.]+ peak_rss_mib=[1-9]`).MatchString(errOut) {
		t.Fatalf("in parts, no part's wall time and peak RSS logged:\n%s", errOut)
	}
	same("in parts")
	_, runs, _ := run(t, nil, "sql", "--warehouse", wh, "--format", "csv",
		`SELECT count(*) FILTER (WHERE args LIKE '%"part":%') AS named, count(*) FILTER (WHERE status <> 'ok') AS not_ok FROM etl_runs WHERE job = 'replay'`)
	if runs != "named,not_ok\n5,0\n" {
		t.Fatalf("replay runs in parts:\n%swant 5, each named for its part, all ok", runs)
	}
	if code, out, errOut := run(t, nil, "replay", "--warehouse", wh, "--part-size", "0"); code != exitOK || !strings.Contains(out, "(run ") {
		t.Fatalf("replay in one process: exit %d, %q%s", code, out, errOut)
	}
	same("in one process")

	if code, _, errOut := run(t, nil, "replay", "--warehouse", wh, "2026-01-02"); code != exitUsage || !strings.Contains(errOut, "--from") {
		t.Errorf("replay with an argument: exit %d, %q; want a usage error pointing at --from/--to", code, errOut)
	}
	holder, err := load.Open(context.Background(), wh, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if code, _, errOut := run(t, env, "replay", "--warehouse", wh, "--part-size", "1"); code != exitUsage || !strings.Contains(errOut, "busy") {
		t.Errorf("replay in parts of a held warehouse: exit %d, %q; want %d, saying it is busy", code, errOut, exitUsage)
	}
}

func TestCLIImportRefusesABadPartSize(t *testing.T) {
	for _, size := range []string{"lots", "-1MiB", "12 parsecs", "NaN"} {
		code, _, stderr := run(t, nil, "import", "--warehouse", t.TempDir(), "--part-size", size, t.TempDir())
		if code != exitUsage || !strings.Contains(stderr, "--part-size") || !strings.Contains(stderr, "512MiB") {
			t.Errorf("--part-size %s: exit %d, %q; want a usage error naming the flag and the form", size, code, stderr)
		}
	}
}

// An import in parts interrupted in its third part stops that part's
// process, keeps the parts before it, leaves no process holding the
// warehouse, and the same import run again completes it.
func TestInterruptedImportInPartsKeepsItsPartsAndResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and interrupts processes")
	}
	in := filepath.Join(t.TempDir(), "responses")
	if code, _, stderr := run(t, nil, "sim", "responses", "--shipments", "200", "--days", "4", "--out", in); code != 0 {
		t.Fatalf("sim responses: exit %d: %s", code, stderr)
	}
	wh := t.TempDir()
	args := []string{"import", "--warehouse", wh, "--part-size", "400KB", in}
	cmd := etalakeProcess(t, nil, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), `msg="import: part" part=3 `) {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFailure || !strings.Contains(log.String(), "import part 3 of ") {
		t.Fatalf("interrupted: %v; want exit %d naming part 3:\n%s", err, exitFailure, log.String())
	}

	runs := func() string {
		_, out, errOut := run(t, nil, "sql", "--warehouse", wh, "--format", "csv",
			`SELECT status, count(*) AS n FROM etl_runs WHERE job = 'import' GROUP BY ALL ORDER BY ALL`)
		if errOut != "" {
			t.Fatalf("etl_runs: %s", errOut)
		}
		return out
	}
	// Part 3 is recorded as failed, or not at all if the interrupt came
	// before its process had started.
	got := runs()
	if got != "status,n\nfailed,1\nok,2\n" && got != "status,n\nok,2\n" {
		t.Fatalf("import runs after the interrupt:\n%swant parts 1 and 2 ok, part 3 failed or never recorded", got)
	}
	t.Logf("interrupted: %s", strings.ReplaceAll(got, "\n", " "))
	if strings.Contains(log.String(), "part=4 ") {
		t.Fatalf("a part after the interrupted one ran:\n%s", log.String())
	}
	// Again, to the end: nothing held the warehouse, nothing is landed twice.
	code, out, errOut := run(t, map[string]string{"ETALAKE_TEST_AS_MAIN": "1"}, args...)
	if code != exitOK {
		t.Fatalf("the import again: exit %d: %s%s", code, out, errOut)
	}
	_, counts, _ := run(t, nil, "sql", "--warehouse", wh, "--format", "csv",
		`SELECT count(*) AS responses, count(DISTINCT response_id) AS distinct_ids FROM raw_responses`)
	var bodies int
	for _, f := range must(filepath.Glob(filepath.Join(in, "*.ndjson"))) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies += strings.Count(string(b), "\n")
	}
	if want := fmt.Sprintf("responses,distinct_ids\n%d,%d\n", bodies, bodies); counts != want {
		t.Fatalf("raw landing after the import again:\n%swant every one of the %d bodies once", counts, bodies)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
