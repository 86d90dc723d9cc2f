package lake_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/childproc"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load/loadtest"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
)

// A writer process: the test binary run again with these variables set
// runs jobs (full replays) on one warehouse, each committing to the lake,
// and exits; ETALAKE_TEST_KILL kills it with SIGKILL at a moment it names.
const (
	envDir       = "ETALAKE_TEST_WRITER_DIR"
	envCatalog   = "ETALAKE_TEST_WRITER_CATALOG"
	envWarehouse = "ETALAKE_TEST_WRITER_WAREHOUSE"
	envJobs      = "ETALAKE_TEST_WRITER_JOBS"
	// envKill is "before:<table>" (between the table's data files and its
	// commit) or "after:<duration>" (wherever the job is then).
	envKill = "ETALAKE_TEST_KILL"
	// envLog, when 1, has the writer log its jobs as JSON on stderr: the
	// publish line carries each commit's time and retries.
	envLog = "ETALAKE_TEST_WRITER_LOG"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(envDir); dir != "" {
		if err := writer(dir); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	childproc.QuickExit()
	code := m.Run()
	for _, dir := range []string{tplWarehouse.dir, tpl30Warehouse.dir} {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	os.Exit(code)
}

func die() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }

func writer(dir string) error {
	ctx := context.Background()
	opt := lake.Options{}
	kill := os.Getenv(envKill)
	if t, ok := strings.CutPrefix(kill, "before:"); ok {
		opt.BeforeCommit = func(table string) {
			if table == t {
				die()
			}
		}
	}
	if d, ok := strings.CutPrefix(kill, "after:"); ok {
		wait, err := time.ParseDuration(d)
		if err != nil {
			return err
		}
		time.AfterFunc(wait, die)
	}
	lk, err := lake.Open(ctx, lake.Config{Catalog: os.Getenv(envCatalog), Warehouse: os.Getenv(envWarehouse)}, opt)
	if err != nil {
		return err
	}
	defer lk.Close()
	n, _ := strconv.Atoi(os.Getenv(envJobs))
	ropt := jobs.ReplayOptions{}
	if os.Getenv(envLog) == "1" {
		ropt.Log = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	for range n {
		if err := replay(ctx, dir, load.Options{Lake: lk, LockTimeout: time.Minute}, ropt); err != nil {
			return err
		}
	}
	return nil
}

// replay is one job on the warehouse in dir: a replay, committed to the
// lake opt names, its close included.
func replay(ctx context.Context, dir string, opt load.Options, ropt jobs.ReplayOptions) error {
	wh, err := load.Open(ctx, dir, opt)
	if err != nil {
		return err
	}
	_, err = jobs.Replay(ctx, wh, ropt)
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	return err
}

// startWriter starts a writer process of n jobs on the warehouse in dir.
func startWriter(t *testing.T, cfg lake.Config, dir string, n int, kill string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envDir+"="+dir, envCatalog+"="+cfg.Catalog, envWarehouse+"="+cfg.Warehouse,
		envJobs+"="+strconv.Itoa(n), envKill+"="+kill)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// template is a small demo warehouse, built once for the package's tests
// (TestMain removes it), never written: each writer runs on a copy.
func template(t *testing.T) string {
	t.Helper()
	tplWarehouse.once.Do(func() {
		tplWarehouse.dir, tplWarehouse.err = os.MkdirTemp("", "etalake-lake-template-")
		if tplWarehouse.err == nil {
			_, tplWarehouse.err = jobs.Demo(context.Background(), jobs.DemoOptions{Days: 3, Dir: tplWarehouse.dir, Seed: 7, Shipments: 20})
		}
	})
	if tplWarehouse.err != nil {
		t.Fatalf("the template warehouse: %v", tplWarehouse.err)
	}
	return tplWarehouse.dir
}

var tplWarehouse, tpl30Warehouse struct {
	once sync.Once
	dir  string
	err  error
}

// template30 is a demo warehouse of 30 nights (the slow tier's), built
// once for the package's tests.
func template30(t *testing.T) string {
	t.Helper()
	tpl30Warehouse.once.Do(func() {
		tpl30Warehouse.dir, tpl30Warehouse.err = os.MkdirTemp("", "etalake-lake-template30-")
		if tpl30Warehouse.err == nil {
			_, tpl30Warehouse.err = jobs.Demo(context.Background(), jobs.DemoOptions{Days: 30, Dir: tpl30Warehouse.dir, Seed: 7, Shipments: 20})
		}
	})
	if tpl30Warehouse.err != nil {
		t.Fatalf("the template warehouse of 30 nights: %v", tpl30Warehouse.err)
	}
	return tpl30Warehouse.dir
}

// Four writer processes commit jobs to the same tables at once: every
// job's commit lands once, none is lost, and the rows are the sum. The
// issue's 5 jobs a writer, on SQLite and on Postgres, run in the slow
// tier; the quick tier runs one a writer on SQLite, whose four commits
// race each other all the same.
func TestFourWritersCommitAtOnce(t *testing.T) {
	slowtest.Long(t)
	jobs := 1
	if slowtest.Enabled() {
		jobs = 5
	}
	t.Run("sqlite", func(t *testing.T) { fourWriters(t, localLake(t), jobs) })
	t.Run("postgres", func(t *testing.T) {
		slowtest.Require(t, "four writer processes on a Postgres catalog, about 30 s; the quick tier races them on SQLite")
		fourWriters(t, postgresLake(t), jobs)
	})
}

func fourWriters(t *testing.T, cfg lake.Config, jobs int) {
	tpl := template(t)
	var dirs []string
	var cmds []*exec.Cmd
	for range 4 {
		dirs = append(dirs, loadtest.CopyDir(t, tpl))
	}
	for _, d := range dirs {
		cmds = append(cmds, startWriter(t, cfg, d, jobs, ""))
	}
	// Every writer is waited for before the test fails: one still running
	// would find its warehouse removed by the test's cleanup.
	var failed []error
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d writers failed: %v", len(failed), len(cmds), failed)
	}
	lk := open(t, cfg, lake.Options{})
	checkLake(t, lk, dirs...)
	st, err := lk.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range st {
		if ts.Name != "etl_runs" {
			continue
		}
		// One snapshot a run (counted below), and the upkeep's
		// compactions, which carry none.
		if ts.Snapshots < 4*jobs || len(ts.Writers) != 4 {
			t.Errorf("etl_runs: %d snapshots by %d writers, want %d runs' by 4", ts.Snapshots, len(ts.Writers), 4*jobs)
		}
	}
	runs := commitsPerRun(t, lk, "etl_runs")
	if len(runs) != 4*jobs {
		t.Errorf("%d runs committed to etl_runs, want %d", len(runs), 4*jobs)
	}
	for r, n := range runs {
		if n != 1 {
			t.Errorf("run %s committed %d times", r, n)
		}
	}
}

func commitsPerRun(t *testing.T, lk *lake.Lake, table string) map[string]int {
	t.Helper()
	out, err := lk.Commits(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
