package cli

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// An import of the simulator's responses with one truncated body lands
// the rest, says which body it refused by file and line, and ends partial;
// a full replay, a second one and a ranged one rebuild the same tables;
// a warehouse held by another writer stops both with a usage error.
func TestCLIImportThenReplay(t *testing.T) {
	slowtest.Long(t)
	in := filepath.Join(t.TempDir(), "responses")
	if code, _, stderr := run(t, nil, "sim", "responses", "--shipments", "25", "--days", "3", "--out", in); code != 0 {
		t.Fatalf("sim responses: exit %d: %s", code, stderr)
	}
	days, _ := filepath.Glob(filepath.Join(in, "*.ndjson"))
	if len(days) != 3 {
		t.Fatalf("%d day files; want 3", len(days))
	}
	f, err := os.OpenFile(days[1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"metadata":{"shipmentId":` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	wh := t.TempDir()
	code, out, stderr := run(t, nil, "import", "--warehouse", wh, in)
	if code != exitPartial || !regexp.MustCompile(`import \S+: partial\n  bodies +\d+ read from 3 files: \d+ landed new, 0 already there`).MatchString(out) {
		t.Fatalf("import: exit %d; want %d, a summary naming its run: %s%s", code, exitPartial, out, stderr)
	}
	if said := regexp.MustCompile(`not identified: landed and dead-lettered" where=\S+\.ndjson:\d+`).FindAllString(stderr, -1); len(said) != 1 {
		t.Fatalf("said %v; want the truncated body, by file and line, once:\n%s", said, stderr)
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
				t.Errorf("%s after %s: %d bytes, %d as imported", name, how, len(rows), len(imported[name]))
			}
		}
	}
	for _, args := range [][]string{{}, {}, {"--from", "2026-01-06", "--to", "2026-01-07"}} {
		// The truncated body is landed: a full replay derives it again, and
		// dead-letters it again, so it says partial; the ranged replay
		// finds no response observed in its range.
		want, status := exitPartial, ", partial): "
		if len(args) > 0 {
			want, status = exitOK, ", ok): "
		}
		code, out, errOut := run(t, nil, append([]string{"replay", "--warehouse", wh}, args...)...)
		if code != want || !strings.Contains(out, status) {
			t.Fatalf("replay %v: exit %d, %q%s", args, code, out, errOut)
		}
		same("replay " + strings.Join(args, " "))
	}
	_, runs, _ := run(t, nil, "sql", "--warehouse", wh, "--format", "csv",
		`SELECT job, status, exit_code FROM etl_runs ORDER BY started_at`)
	if runs != "job,status,exit_code\nimport,partial,3\nreplay,partial,3\nreplay,partial,3\nreplay,ok,0\n" {
		t.Fatalf("etl_runs:\n%swant the import partial (exit 3), two full replays partial, the ranged one ok", runs)
	}

	if code, _, errOut := run(t, nil, "replay", "--warehouse", wh, "2026-01-02"); code != exitUsage || !strings.Contains(errOut, "--from") {
		t.Errorf("replay with an argument: exit %d, %q; want a usage error pointing at --from/--to", code, errOut)
	}
	holder, err := load.Open(context.Background(), wh, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	// A second writer waits for the first up to --lock-timeout, saying
	// whom it waits for, then gives up busy (75), not as a usage error.
	for _, args := range [][]string{{"replay", "--warehouse", wh, "--lock-timeout", "300ms"}, {"import", "--warehouse", wh, "--lock-timeout", "0", in}} {
		code, _, errOut := run(t, nil, args...)
		if code != exitBusy || !strings.Contains(errOut, "busy") || !strings.Contains(errOut, fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("%s into a held warehouse: exit %d, %q; want %d, naming the holder", args[0], code, errOut, exitBusy)
		}
		if waited := strings.Contains(errOut, "waiting for the warehouse"); waited != (args[4] != "0") {
			t.Errorf("%v: said it waits: %v, want %v\n%s", args, waited, !waited, errOut)
		}
	}
}

// A bad memory limit or body limit is a usage error naming the setting
// and the forms it takes, before the warehouse is touched.
func TestCLIRefusesBadLimits(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		mention []string
	}{
		{[]string{"--memory-limit", "lots"}, []string{"--memory-limit", "512MiB", "40%"}},
		{[]string{"--memory-limit", "0"}, []string{"--memory-limit", "64MiB"}},
		{[]string{"--memory-limit", "120%"}, []string{"--memory-limit", "at most 100"}},
		{[]string{"--max-body", "-1MiB"}, []string{"--max-body", "512MiB"}},
		{[]string{"--max-body", "0"}, []string{"--max-body", "at least 1 byte"}},
	} {
		wh := filepath.Join(t.TempDir(), "wh")
		code, _, stderr := run(t, nil, append([]string{"replay", "--warehouse", wh}, tc.args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, %q; want %d", tc.args, code, stderr, exitUsage)
		}
		for _, m := range tc.mention {
			if !strings.Contains(stderr, m) {
				t.Errorf("%v: %q does not mention %q", tc.args, stderr, m)
			}
		}
		if _, err := os.Stat(wh); err == nil {
			t.Errorf("%v: the warehouse was created", tc.args)
		}
	}
}

// The memory limit a user gives reaches DuckDB, as a size or as a share of
// the machine's memory.
func TestMemoryLimitReachesDuckDB(t *testing.T) {
	slowtest.Long(t)
	for _, limit := range []string{"300MiB", "5%"} {
		wh := t.TempDir()
		if code, _, stderr := run(t, nil, "replay", "--warehouse", wh); code != exitOK {
			t.Fatalf("replay of an empty warehouse: exit %d: %s", code, stderr)
		}
		want, err := parseMemoryLimit(limit)
		if err != nil {
			t.Fatal(err)
		}
		code, out, stderr := run(t, map[string]string{"ETALAKE_MEMORY_LIMIT": limit}, "sql", "--warehouse", wh, "--format", "csv",
			"SELECT current_setting('memory_limit') AS m")
		if code != exitOK {
			t.Fatalf("sql: exit %d: %s", code, stderr)
		}
		// DuckDB shows the limit rounded down to a tenth of a binary unit.
		got, err := bytesize.Parse(strings.TrimSpace(strings.TrimPrefix(out, "m\n")))
		if err != nil || math.Abs(float64(got-want)) > 0.1*float64(want) {
			t.Errorf("ETALAKE_MEMORY_LIMIT=%s: DuckDB's memory_limit is %q (%v), want about %d bytes", limit, out, err, want)
		}
	}
}

// The default memory limit is 1 GiB, or half the memory when that is less;
// a percentage is of the memory this process may use.
func TestMemoryLimitDefaultAndShares(t *testing.T) {
	total, err := availableMemory()
	if err != nil {
		t.Skipf("this machine does not say its memory (%v): percentages cannot be tested here", err)
	}
	if got, want := defaultMemory(), min(int64(1<<30), int64(total/2)); got != max(want, load.MinMemoryLimit) {
		t.Errorf("default memory limit %d; want %d (1 GiB, or half of %d)", got, want, total)
	}
	half, err := parseMemoryLimit("50%")
	if err != nil || math.Abs(float64(half)-float64(total)/2) > 1 {
		t.Errorf("50%% = %d, %v; want half of %d", half, err, total)
	}
	for in, want := range map[string]int64{"2GB": 2e9, "512MiB": 512 << 20, " 1GiB ": 1 << 30} {
		if got, err := parseMemoryLimit(in); err != nil || got != want {
			t.Errorf("parseMemoryLimit(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

// Another tool's DuckDB file named etalake.duckdb is refused by every
// writer (exit 2), naming the user's file and saying it is no etalake
// warehouse, and nothing is left behind: no working copy half migrated.
func TestWritersRefuseAnotherToolsDuckDB(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "etalake.duckdb")
	db, err := sql.Open("duckdb", path)
	if err == nil {
		_, err = db.Exec("CREATE TABLE shipments (id INTEGER)")
	}
	if err != nil || db.Close() != nil {
		t.Fatal(err)
	}
	responses := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(responses, []byte(`{"hello":"world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"track", "add", "--warehouse", dir, "MSCU1234566"}, {"import", "--warehouse", dir, responses}} {
		code, out, stderr := run(t, nil, args...)
		if code != exitUsage || !strings.Contains(stderr, path+" is another tool's DuckDB database") || !strings.Contains(stderr, "not an etalake warehouse") {
			t.Errorf("%s: exit %d, want %d naming %s as no etalake warehouse\n%s%s", args[0], code, exitUsage, path, out, stderr)
		}
	}
	if got, _ := os.ReadDir(dir); len(got) != 1 {
		t.Errorf("left behind: %v", got)
	}
}
