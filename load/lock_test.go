package load_test

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/etalake/etalake/load"
)

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
	if _, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions()); !errors.Is(err, load.ErrNoWarehouse) {
		t.Errorf("empty dir: %v, want ErrNoWarehouse", err)
	}
	w := openWarehouse(t, dir)
	_, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
	var busy *load.BusyError
	if !errors.As(err, &busy) || busy.Holder.PID != os.Getpid() {
		t.Fatalf("OpenReadOnly under a writer: %v, want a *BusyError naming us", err)
	}
	t.Log(err)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r1, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	r2, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
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
