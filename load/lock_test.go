package load_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// helperEnv makes the test binary a helper process (see TestMain): its
// value is "<mode> <dir>".
const helperEnv = "ETALAKE_LOAD_TEST_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		mode, dir, _ := strings.Cut(v, " ")
		os.Exit(helper(mode, dir))
	}
	os.Exit(m.Run())
}

// helper runs in a child process: "open" tries to open the warehouse and
// says how it went; "load-and-die" loads rows and exits without closing
// anything, as a crashed job would.
func helper(mode, dir string) int {
	ctx := context.Background()
	w, err := load.Open(ctx, dir, load.Options{Now: clock})
	var busy *load.BusyError
	switch {
	case errors.As(err, &busy):
		fmt.Printf("busy pid=%d: %v\n", busy.Holder.PID, err)
		return 0
	case err != nil:
		fmt.Printf("error: %v\n", err)
		return 1
	}
	switch mode {
	case "open":
		fmt.Println("opened")
		return errorCode(w.Close())
	case "load-and-die":
		rec, err := newRecord(memory.DefaultAllocator, schema.ETAObservations, crashRows...)
		if err == nil {
			_, err = w.Load(ctx, []load.Batch{{Table: schema.ETAObservations, Rec: rec}})
		}
		if err != nil {
			fmt.Println(err)
			return 1
		}
		os.Exit(3) // no Close, no SyncParquet
	}
	return 1
}

var crashRows = []row{
	etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1"),
	etaObs("S2", "2024-01-02T10:00:00Z", "2024-01-09T00:00:00Z", "r2"),
}

func errorCode(err error) int {
	if err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// child runs the test binary as a helper on dir and returns its output.
func child(t *testing.T, mode, dir string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode+" "+dir)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestSecondWriterIsBusy(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	_, err := load.Open(t.Context(), dir, load.Options{})
	var busy *load.BusyError
	if !errors.As(err, &busy) || !errors.Is(err, load.ErrBusy) {
		t.Fatalf("second Open: %v, want a *BusyError", err)
	}
	host, _ := os.Hostname()
	if busy.Holder.PID != os.Getpid() || busy.Holder.Host != host || !busy.Holder.Since.Equal(clock()) {
		t.Errorf("holder %+v, want pid %d on %s since %v", busy.Holder, os.Getpid(), host, clock())
	}
	if msg := err.Error(); !strings.Contains(msg, "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(msg, host) {
		t.Errorf("message does not name the holder: %s", msg)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	openWarehouse(t, dir)
}

func TestSecondWriterProcessIsBusy(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	out, err := child(t, "open", dir)
	if err != nil || !strings.HasPrefix(out, fmt.Sprintf("busy pid=%d:", os.Getpid())) {
		t.Fatalf("child while we hold the warehouse: %v\n%s", err, out)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out, err := child(t, "open", dir); err != nil || out != "opened\n" {
		t.Fatalf("child after Close: %v\n%s", err, out)
	}
}

func TestReadOnlyAndWriterExcludeEachOther(t *testing.T) {
	dir := t.TempDir()
	if _, err := load.OpenReadOnly(t.Context(), dir); !errors.Is(err, load.ErrNoWarehouse) {
		t.Errorf("empty dir: %v, want ErrNoWarehouse", err)
	}
	w := openWarehouse(t, dir)
	_, err := load.OpenReadOnly(t.Context(), dir)
	var busy *load.BusyError
	if !errors.As(err, &busy) || busy.Holder.PID != os.Getpid() {
		t.Fatalf("OpenReadOnly under a writer: %v, want a *BusyError naming us", err)
	}
	t.Log(err)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r1, err := load.OpenReadOnly(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := load.OpenReadOnly(t.Context(), dir)
	if err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	if n := queryInt(t, r1, "SELECT count(*) FROM eta_observations"); n != 0 {
		t.Errorf("%d rows", n)
	}
	if _, err := r1.ExecContext(t.Context(), "CREATE TABLE x (a INTEGER)"); err == nil {
		t.Error("a read-only warehouse took a write")
	}
	_, err = load.Open(t.Context(), dir, load.Options{})
	if !errors.As(err, &busy) || !busy.Readers {
		t.Fatalf("Open under readers: %v, want a *BusyError of readers", err)
	}
	t.Log(err)
	if err := errors.Join(r1.Close(), r2.Close()); err != nil {
		t.Fatal(err)
	}
	openWarehouse(t, dir)
}
