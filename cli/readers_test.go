package cli

import (
	"bufio"
	"database/sql"
	"fmt"
	"github.com/etalake/etalake/load/loadtest"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // the notebook's DuckDB

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// notebookEnv makes the test binary a notebook (see init): it opens
// <value>/etalake.duckdb read-only as README tells notebooks to (or, for
// rw:<dir>, read-write, as duckdb.connect(path) does unless told), says
// "open" and what it sees, holds the database until its stdin closes, then
// says what it sees again.
const notebookEnv = "ETALAKE_TEST_NOTEBOOK"

func init() {
	if dir := os.Getenv(notebookEnv); dir != "" {
		os.Exit(notebook(dir))
	}
}

// snapshotSQL sees every table a job writes at once: a reader must never
// see some of them as of one job and others as of another.
const snapshotSQL = `SELECT (SELECT count(*) FROM etl_runs) || ' runs, ' ||
  (SELECT count(*) FROM etl_runs WHERE status = 'running') || ' running, ' ||
  (SELECT count(*) FROM raw_responses) || ' responses, ' ||
  (SELECT count(*) FROM eta_observations) || ' etas, ' ||
  (SELECT count(*) FROM container_events) || ' events, ' ||
  (SELECT count(*) FROM tracked_shipments WHERE removed_at IS NULL) || ' tracked'`

func notebook(dir string) int {
	dsn := filepath.Join(dir, "etalake.duckdb") + "?access_mode=READ_ONLY"
	if d, ok := strings.CutPrefix(dir, "rw:"); ok { // as duckdb.connect(path) does by default
		dsn = filepath.Join(d, "etalake.duckdb")
	}
	db, err := sql.Open("duckdb", dsn)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer db.Close()
	see := func() string {
		var s string
		if err := db.QueryRow(snapshotSQL).Scan(&s); err != nil {
			return "error: " + err.Error()
		}
		return s
	}
	fmt.Println("open: " + see())
	_, _ = io.Copy(io.Discard, os.Stdin)
	fmt.Println("still: " + see())
	return 0
}

// The nightly job beside open notebooks: a notebook holds etalake.duckdb
// read-only through a whole nightly run; the run exits 0; etalake sql
// opened during the run sees the previous job, the same in every table;
// the notebook still sees what it opened; after the run, readers see the
// new rows.
func TestNightlyRunBesideAnOpenNotebook(t *testing.T) {
	slowtest.Require(t, "a nightly run paced at 4 requests a second beside notebook processes, about 12 s; the quick tier checks what readers see during a publish in package load")
	const key = "notebook-run-key-5e0"
	rate := extract.Rate{N: 4, Window: time.Second}
	env := simtest.Start(t, simtest.Options{
		Keys:   []sim.KeySpec{{Key: key, Schedule: simtest.Credits(1000), Tracking: simtest.Credits(1000)}},
		Rate:   sim.Rate{N: rate.N, Window: rate.Window},
		Faults: sim.Faults{LatencyMedian: 100 * time.Millisecond, LatencyP99: 300 * time.Millisecond, Seed: 3},
	})
	w := env.Service.World()
	wh := t.TempDir()
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": key, "ETALAKE_RATE": rate.String(), "ETALAKE_WAREHOUSE": wh}
	port := simtest.Port(t, w, w.Config().Start)
	// Yesterday's job: a port and 4 shipments.
	if code, out, errOut := run(t, vars, "run", "--date", "2026-01-04", "--ports", port, "--shipments", shipmentsCSV(t, w, 4)); code != exitOK {
		t.Fatalf("the first run: exit %d\n%s%s", code, out, errOut)
	}
	before := sqlSnapshot(t, vars)
	t.Logf("published before the run: %s", before)

	nb := startNotebook(t, wh)
	if nb.opened != before {
		t.Fatalf("the notebook opened on %q, want %q", nb.opened, before)
	}

	// Tonight's job: 16 shipments more at 4 requests a second, while the
	// notebook holds the database.
	procVars := []string{}
	for k, v := range vars {
		procVars = append(procVars, k+"="+v)
	}
	job := etalakeProcess(t, append(procVars, "ETALAKE_STATE_DIR="+t.TempDir()),
		"run", "--date", "2026-01-05", "--ports", port, "--shipments", shipmentsCSV(t, w, 20))
	var jobOut strings.Builder
	job.Stdout, job.Stderr = &jobOut, &jobOut
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- job.Wait() }()
	var seen []string
	var runErr error
wait:
	for {
		select {
		case runErr = <-done:
			break wait
		case <-time.After(300 * time.Millisecond):
			seen = append(seen, sqlSnapshot(t, vars))
		}
	}
	if runErr != nil {
		t.Fatalf("the run beside the notebook: %v\n%s", runErr, jobOut.String())
	}
	if still := nb.close(t); still != before {
		t.Errorf("the notebook after the run: %q, want what it opened, %q", still, before)
	}
	after := sqlSnapshot(t, vars)
	if after == before || strings.Contains(after, " 1 running") {
		t.Errorf("after the run: %q, want the new rows and no run left running", after)
	}
	// A read sees the previous job until the run publishes (the last
	// reads may come after that, while the process exits), then the new
	// state: never anything in between.
	readsDuring := 0
	for i, got := range seen {
		switch {
		case got == before && (i == 0 || seen[i-1] == before):
			readsDuring++
		case got == after:
		default:
			t.Errorf("etalake sql read %d during the run saw %q, want the previous job's %q (or, once published, %q)", i, got, before, after)
		}
	}
	if readsDuring < 3 {
		t.Errorf("only %d reads saw the previous job during the run: it was too short to show anything", readsDuring)
	}
	// The Parquet mirror shows how every run ended, and nothing is left
	// for a later job to mirror.
	code, mirror, errOut := run(t, vars, "sql", "--format", "csv", fmt.Sprintf(`SELECT string_agg(status, ' ' ORDER BY started_at) AS runs
FROM read_parquet('%s/parquet/etl_runs/**/*.parquet', hive_partitioning = true)`, wh))
	if code != exitOK || mirror != "runs\nok ok\n" {
		t.Errorf("the mirror of etl_runs: exit %d %q %s; want both runs ok", code, mirror, errOut)
	}
	// What is left to mirror is the writer's own record.
	var pending int
	if err := loadtest.Writer(t, wh).QueryRow(`SELECT count(*) FROM parquet_pending`).Scan(&pending); err != nil || pending != 0 {
		t.Errorf("the writer has %d partitions left to mirror (%v); want none", pending, err)
	}
	t.Logf("%d reads during the run saw the previous job; after it: %s", readsDuring, after)
}

// sqlSnapshot is what etalake sql sees of the warehouse in vars.
func sqlSnapshot(t *testing.T, vars map[string]string) string {
	t.Helper()
	code, out, errOut := run(t, vars, "sql", "--format", "csv", snapshotSQL)
	if code != exitOK {
		t.Fatalf("etalake sql: exit %d: %s", code, errOut)
	}
	_, v, _ := strings.Cut(strings.TrimSpace(out), "\n")
	return strings.Trim(v, `"`)
}

// notebookProc is a notebook process (see init) holding the published
// warehouse open.
type notebookProc struct {
	cmd    *exec.Cmd
	stdin  io.Closer
	lines  *bufio.Scanner
	opened string // what it saw when it opened
}

// startNotebook starts a notebook on the published warehouse of dir
// (rw:dir: read-write); it holds it until close, or until the test ends.
func startNotebook(t *testing.T, dir string) *notebookProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), notebookEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	nb := &notebookProc{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
	line, ok := nb.line("open: ")
	if !ok {
		t.Fatalf("the notebook did not open %s: %q", dir, line)
	}
	nb.opened = line
	return nb
}

// line reads the notebook's next line and cuts prefix from it.
func (nb *notebookProc) line(prefix string) (string, bool) {
	nb.lines.Scan()
	return strings.CutPrefix(nb.lines.Text(), prefix)
}

// close lets the notebook go and returns what it saw last.
func (nb *notebookProc) close(t *testing.T) string {
	t.Helper()
	nb.stdin.Close()
	line, ok := nb.line("still: ")
	if err := nb.cmd.Wait(); err != nil || !ok {
		t.Errorf("the notebook: %v, last said %q", err, line)
	}
	return line
}

// Every job that writes completes while notebooks hold the warehouse open:
// track add and rm, import, replay, backfill, and the demo.
func TestEveryWriterCompletesBesideOpenNotebooks(t *testing.T) {
	slowtest.Require(t, "six jobs and a demo, each beside its notebook processes, about 12 s; the quick tier checks what readers see during a publish in package load")
	const key = "notebook-writers-key-77b"
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: key, Schedule: simtest.Credits(1000), Tracking: simtest.Credits(1000)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
	})
	w := env.Service.World()
	wh := t.TempDir()
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": key, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": wh}
	in := filepath.Join(t.TempDir(), "responses")
	if code, _, errOut := run(t, nil, "sim", "responses", "--shipments", "5", "--days", "1", "--out", in); code != exitOK {
		t.Fatalf("sim responses: exit %d: %s", code, errOut)
	}
	ref := w.Shipments()[0]
	steps := [][]string{
		{"track", "add", fmt.Sprintf("%s:%s:%s", ref.Number, ref.Type, ref.Sealine)},
		{"import", in},
		{"replay"},
		{"backfill", "--yes", "--date", "2026-01-05", "--ports", simtest.Port(t, w, w.Config().Start)},
		{"track", "rm", fmt.Sprintf("%s:%s:%s", ref.Number, ref.Type, ref.Sealine)},
	}
	for i, args := range steps {
		seen := ""
		if i > 0 { // the first creates the warehouse
			seen = startNotebook(t, wh).opened
		}
		if code, out, errOut := run(t, vars, args...); code != exitOK {
			t.Fatalf("%v beside %d open notebooks: exit %d\n%s%s", args, i, code, out, errOut)
		}
		if after := sqlSnapshot(t, vars); after == seen {
			t.Errorf("%v: readers still see %q, want its change published", args, after)
		}
	}

	demo := filepath.Join(t.TempDir(), "demo")
	if code, out, errOut := run(t, nil, "demo", "--days", "1", "--shipments", "20", "--warehouse", demo); code != exitOK {
		t.Fatalf("the first demo: exit %d\n%s%s", code, out, errOut)
	}
	startNotebook(t, demo)
	if code, out, errOut := run(t, nil, "demo", "--days", "1", "--shipments", "20", "--warehouse", demo); code != exitOK {
		t.Fatalf("the demo again beside an open notebook: exit %d\n%s%s", code, out, errOut)
	}
}

// A notebook that opened the warehouse read-write (Python's and Node's
// duckdb.connect(path), DBeaver) keeps every other process out of the
// file: etalake sql and etalake report still answer, from a private copy,
// and say who holds the file, what the copy cost and how to spare it; the
// copy is gone when they end. The next job publishes beside it as ever.
func TestSQLAndReportAnswerWhileANotebookHoldsTheWarehouseReadWrite(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := filepath.Join(t.TempDir(), "demo")
	if code, out, errOut := run(t, nil, "demo", "--days", "3", "--shipments", "30", "--warehouse", dir); code != exitOK {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errOut)
	}
	nb := startNotebook(t, "rw:"+dir)
	vars := map[string]string{"ETALAKE_WAREHOUSE": dir}
	code, out, errOut := run(t, vars, "sql", "--format", "csv", snapshotSQL)
	if code != exitOK || !strings.Contains(out, nb.opened) {
		t.Fatalf("etalake sql beside a read-write notebook: exit %d\n%s%s\nwant %q", code, out, errOut, nb.opened)
	}
	pid := fmt.Sprintf("process %d", nb.cmd.Process.Pid)
	if !strings.Contains(errOut, "reading a private copy of the warehouse: "+pid) || !strings.Contains(errOut, "read_only=True") {
		t.Errorf("etalake sql does not say who holds the file and how to spare the copy:\n%s", errOut)
	}
	copyDir := logValue(errOut, "copy")
	if _, err := os.Stat(copyDir); copyDir == "" || !os.IsNotExist(err) {
		t.Errorf("the private copy %q outlived etalake sql: %v", copyDir, err)
	}
	if code, out, errOut := run(t, vars, "report"); code != exitOK || !strings.Contains(out, "Carrier ranking") || !strings.Contains(errOut, pid) {
		t.Errorf("etalake report beside a read-write notebook: exit %d\n%.300s\n%s", code, out, errOut)
	}
	t.Logf("%s", strings.TrimSpace(errOut))
	nb.close(t)
}

// logValue is the value of key in the first text log line that has it.
func logValue(log, key string) string {
	for _, line := range strings.Split(log, "\n") {
		if _, v, ok := strings.Cut(line, " "+key+"="); ok {
			v, _, _ = strings.Cut(v, " ")
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// etalake sql writes no file unless asked: COPY … TO, EXPORT DATABASE and
// a read of a file outside the warehouse are refused (exit 2, naming
// --allow-files) and nothing is written; with --allow-files the COPY
// runs. Reading the Parquet mirror needs nothing.
func TestSQLWritesNoFileUnlessAsked(t *testing.T) {
	slowtest.Long(t)
	dir := filepath.Join(t.TempDir(), "demo")
	if code, out, errOut := run(t, nil, "demo", "--days", "1", "--shipments", "20", "--warehouse", dir); code != exitOK {
		t.Fatalf("demo: exit %d\n%s%s", code, out, errOut)
	}
	vars := map[string]string{"ETALAKE_WAREHOUSE": dir}
	target := filepath.Join(t.TempDir(), "out.csv")
	inMirror := filepath.Join(dir, "parquet", "shipments", "x.parquet")
	for _, q := range []string{
		"COPY shipments TO '" + target + "'",
		"COPY shipments TO '" + inMirror + "'",
		"EXPORT DATABASE '" + filepath.Join(dir, "parquet", "x") + "'",
		"SELECT * FROM read_text('/etc/hostname')",
	} {
		code, _, errOut := run(t, vars, "sql", q)
		if code != exitUsage || !strings.Contains(errOut, "--allow-files") {
			t.Errorf("etalake sql %q: exit %d, want %d naming --allow-files\n%s", q, code, exitUsage, errOut)
		}
	}
	// One statement per call, files allowed or not: a second is refused
	// in our words (never the driver's "try using PrepareContext"), and
	// none of them runs; SQL that does not parse is DuckDB's syntax error.
	for _, args := range [][]string{{"sql", "SELECT 1; COPY shipments TO '" + target + "'"}, {"sql", "--allow-files", "SELECT 1; COPY shipments TO '" + target + "'"}} {
		code, _, errOut := run(t, vars, args...)
		if code != exitUsage || !strings.Contains(errOut, "2 statements in the query: one statement per call") || strings.Contains(errOut, "PrepareContext") {
			t.Errorf("etalake %q: exit %d, want %d refusing 2 statements\n%s", args, code, exitUsage, errOut)
		}
	}
	if code, _, errOut := run(t, vars, "sql", "SELEC 1"); code != exitUsage || !strings.Contains(errOut, `Parser Error: syntax error at or near "SELEC"`) || strings.Contains(errOut, "a SELEC statement") {
		t.Errorf("etalake sql \"SELEC 1\": exit %d, want %d with DuckDB's syntax error\n%s", code, exitUsage, errOut)
	}
	for _, f := range []string{target, inMirror, filepath.Join(dir, "parquet", "x")} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s was written: %v", f, err)
		}
	}
	mirror := fmt.Sprintf("SELECT count(*) AS n FROM read_parquet('%s/parquet/shipments/**/*.parquet', hive_partitioning = true)", dir)
	if code, out, errOut := run(t, vars, "sql", "--format", "csv", mirror); code != exitOK || out == "n\n0\n" {
		t.Errorf("reading the mirror: exit %d %q %s", code, out, errOut)
	}
	if code, _, errOut := run(t, vars, "sql", "--allow-files", "COPY shipments TO '"+target+"'"); code != exitOK {
		t.Errorf("with --allow-files: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("with --allow-files the COPY wrote nothing: %v", err)
	}
}
