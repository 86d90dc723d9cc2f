package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// What readers see after a job ends however it ends: through the command
// line, as an operator runs it.

// A nightly run killed with SIGKILL midway, then `etalake track rm`: the
// change of the tracked set ends the killed run's row (failed: died),
// derives the answers the killed run had received, and publishes them with
// the analytic tables rebuilt and the Parquet mirror written — the
// tracked set too, in both.
func TestACrashThenTrackRmPublishesTheDeadJobWhole(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("kills a process")
	}
	const key = "crash-track-key-4e0"
	env := simtest.Start(t, simtest.Options{
		Keys:   []sim.KeySpec{{Key: key, Schedule: simtest.Credits(1000), Tracking: simtest.Credits(1000)}},
		Rate:   sim.Rate{N: 1000, Window: time.Second},
		Faults: sim.Faults{LatencyMedian: 300 * time.Millisecond, LatencyP99: 2 * time.Second, Seed: 3},
	})
	w := env.Service.World()
	wh := t.TempDir()
	csv := shipmentsCSV(t, w, 30)
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": key, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": wh}
	var list []string
	for k, v := range vars {
		list = append(list, k+"="+v)
	}
	cmd := etalakeProcess(t, append(list, "ETALAKE_STATE_DIR="+t.TempDir()), "run", "--date", "2026-01-05", "--shipments", csv)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Killed once a few answers are in its journal, the rest in flight.
	deadline := time.Now().Add(30 * time.Second)
	for journalBytes(wh) < 8<<10 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if journalBytes(wh) == 0 {
		t.Fatal("the run was killed before it received anything")
	}

	ref := strings.Split(strings.Split(mustRead(t, csv), "\n")[1], ",")
	code, out, errOut := run(t, vars, "track", "rm", strings.Join(ref, ":"))
	if code != exitOK || !strings.Contains(out, "1 removed, 0 were not tracked") {
		t.Fatalf("track rm after the crash: exit %d\n%s%s", code, out, errOut)
	}
	loadtest.AsOfOneMoment(t, wh)
	db := loadtest.Published(t, wh)
	var runs string
	if err := db.QueryRow(`SELECT string_agg(job || ' ' || status || ' ' || (error IS NOT NULL AND error LIKE '%process ended%'), ', ' ORDER BY started_at) FROM etl_runs`).Scan(&runs); err != nil {
		t.Fatal(err)
	}
	if runs != "run failed true, track ok false" {
		t.Errorf("readers see etl_runs as %q; want the killed run failed (died), the track ok", runs)
	}
	var landed, derived, observations, removed int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM raw_responses),
		(SELECT count(*) FROM eta_observations), (SELECT count(*) FROM tracked_shipments WHERE removed_at IS NOT NULL)`).Scan(&landed, &observations, &removed); err != nil {
		t.Fatal(err)
	}
	db.Close()
	// What was derived is the writer's own record, not shown to readers.
	if err := loadtest.Writer(t, wh).QueryRow(`SELECT count(*) FROM raw_derived`).Scan(&derived); err != nil {
		t.Fatal(err)
	}
	if landed == 0 || derived != landed || observations == 0 || removed != 1 {
		t.Errorf("readers see %d responses landed, %d derived, %d ETA observations, %d shipments removed: want the killed run's answers all derived, 1 removed",
			landed, derived, observations, removed)
	}
}

// journalBytes is the size of the landing journals under the warehouse.
func journalBytes(wh string) int64 {
	var n int64
	files, _ := filepath.Glob(filepath.Join(wh, ".work", "landing", "*.journal"))
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fullDiskEnv, set, makes TestAPublishOntoAFullDiskIsRecordedAsFailed the
// part of itself that runs in a user and mount namespace of its own, on a
// small filesystem (see fullDisk).
const fullDiskEnv = "ETALAKE_TEST_FULL_DISK"

// fullDisk is what the part in the namespace does: mount a tmpfs of Size
// bytes at Mount, copy the warehouse From into it, run etalake with Args
// and Env there, copy the warehouse back out To, and say how etalake
// ended in Result.
type fullDisk struct {
	Size                 int64
	Mount, From, To      string
	Result               string
	Args, Env            []string
	Code                 int
	Stdout, Stderr, Fail string
}

// A nightly run whose publish meets a full disk — a real one: a tmpfs
// too small for the readers' database that a publish writes, mounted in
// a user namespace (no root needed; skipped where user namespaces are not
// allowed) — exits 1, its summary says failed and why, readers keep the
// state before, and the next job, on a disk with room, publishes the
// failed run's row as it was recorded: failed, exit code 1, the reason.
func TestAPublishOntoAFullDiskIsRecordedAsFailed(t *testing.T) {
	slowtest.Long(t)
	if v := os.Getenv(fullDiskEnv); v != "" {
		inNamespace(t, v)
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("a small filesystem without root needs Linux's user namespaces")
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	const key = "full-disk-key-6b1"
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: key, Schedule: simtest.Credits(1000), Tracking: simtest.Credits(1000)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
	})
	w := env.Service.World()
	seed := t.TempDir()
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": key, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": seed}
	csv := shipmentsCSV(t, w, 20)
	if code, out, errOut := run(t, vars, "run", "--date", "2026-01-05", "--shipments", csv); code != exitOK {
		t.Fatalf("the first run: exit %d\n%s%s", code, out, errOut)
	}
	// Room for the seed and for what the next run lands and loads, not
	// for the readers' database its publish writes.
	readers := fileSize(t, filepath.Join(seed, "etalake.duckdb"))
	fd := fullDisk{Size: treeSize(t, seed) + readers/2, Mount: t.TempDir(), From: seed, To: filepath.Join(t.TempDir(), "out"),
		Result: filepath.Join(t.TempDir(), "result.json"),
		Args:   []string{"run", "--date", "2026-01-06"},
		Env: []string{"ETALAKE_SCHEDULE_URL=" + env.ScheduleURL, "ETALAKE_TRACKING_URL=" + env.TrackingURL, "ETALAKE_API_KEY=" + key,
			"ETALAKE_RATE=1000/1s", "ETALAKE_STATE_DIR=" + t.TempDir()}}
	spec, _ := json.Marshal(fd)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAPublishOntoAFullDiskIsRecordedAsFailed$")
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+string(spec))
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	var pe *os.PathError
	if errors.As(err, &pe) || errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) {
		t.Skipf("no user namespace here (%v): the publish onto a full disk is tested in jobs with a write that fails", err)
	}
	data, rerr := os.ReadFile(fd.Result)
	if rerr != nil {
		t.Fatalf("the part in the namespace: %v\n%s", err, out)
	}
	if err := json.Unmarshal(data, &fd); err != nil {
		t.Fatal(err)
	}
	if fd.Fail != "" {
		t.Skipf("no small filesystem here: %s", fd.Fail)
	}
	t.Logf("on a tmpfs of %d KiB: exit %d\n%s%s", fd.Size>>10, fd.Code, fd.Stdout, fd.Stderr)
	if fd.Code != exitFailure || !strings.Contains(fd.Stdout, ": failed") || !strings.Contains(fd.Stdout, "publishing the warehouse for readers failed") ||
		!strings.Contains(fd.Stdout, "no space left on device") || !strings.Contains(fd.Stderr, "no space left on device") {
		t.Fatalf("the run onto a full disk: exit %d; want 1, the summary and the error saying failed, no space left on device\n%s%s", fd.Code, fd.Stdout, fd.Stderr)
	}
	id := strings.Fields(fd.Stdout)[1] // "run <id> for <date>: failed …"

	// Readers of what was left on the full disk see the state before.
	db := loadtest.Published(t, fd.To)
	var runs int
	if err := db.QueryRow(`SELECT count(*) FROM etl_runs`).Scan(&runs); err != nil || runs != 1 {
		t.Errorf("readers see %d runs after the failed publish (%v); want the first alone", runs, err)
	}
	db.Close()
	// The next job, with room, publishes the failed run's row.
	vars["ETALAKE_WAREHOUSE"] = fd.To
	if code, out, errOut := run(t, vars, "track", "add", "--shipments", csv); code != exitOK {
		t.Fatalf("the next job: exit %d\n%s%s", code, out, errOut)
	}
	db = loadtest.Published(t, fd.To)
	var status, reason string
	var exit int
	if err := db.QueryRow(`SELECT status, exit_code, error FROM etl_runs WHERE run_id = ?`, id).Scan(&status, &exit, &reason); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || exit != 1 || !strings.Contains(reason, "no space left on device") {
		t.Errorf("after the next job readers see the run as %s, exit %d, %q; want failed, 1, no space left on device", status, exit, reason)
	}
	loadtest.AsOfOneMoment(t, fd.To)
}

// inNamespace is the part of the full-disk test in its namespace.
func inNamespace(t *testing.T, spec string) {
	var fd fullDisk
	if err := json.Unmarshal([]byte(spec), &fd); err != nil {
		t.Fatal(err)
	}
	defer func() {
		data, _ := json.Marshal(fd)
		if err := os.WriteFile(fd.Result, data, 0o644); err != nil {
			t.Error(err)
		}
	}()
	if err := syscall.Mount("tmpfs", fd.Mount, "tmpfs", 0, fmt.Sprintf("size=%d", fd.Size)); err != nil {
		fd.Fail = fmt.Sprintf("mount tmpfs: %v", err)
		return
	}
	wh := filepath.Join(fd.Mount, "wh")
	if err := copyTree(fd.From, wh); err != nil {
		fd.Fail = fmt.Sprintf("the warehouse does not fit on %d bytes: %v", fd.Size, err)
		return
	}
	cmd := etalakeProcess(t, append(fd.Env, "ETALAKE_WAREHOUSE="+wh), fd.Args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	fd.Stdout, fd.Stderr = stdout.String(), stderr.String()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		fd.Code = ee.ExitCode()
	} else if err != nil {
		fd.Fail = err.Error()
	}
	if err := copyTree(wh, fd.To); err != nil {
		fd.Fail = fmt.Sprintf("copying the warehouse out: %v", err)
	}
}

// copyTree copies the files, directories and symbolic links under src to
// dst (a file linked twice is copied twice).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if e.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			if err == nil {
				err = os.Symlink(target, to)
			}
			return err
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(to)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		return errors.Join(err, out.Close())
	})
}

// treeSize is the bytes of the files under dir, rounded up to pages.
func treeSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		n += (fileSize(t, path) + 4095) &^ 4095
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
