package load_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
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
	slowtest.Long(t)
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

// A second writer waits for the first as long as it may, says once whom it
// waits for, and takes the warehouse when the first closes it; past its
// timeout it gives up with a *BusyError that says how long it waited.
func TestSecondWriterWaitsPolitely(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)

	start := time.Now()
	_, err := load.Open(t.Context(), dir, load.Options{LockTimeout: 300 * time.Millisecond})
	var busy *load.BusyError
	if !errors.As(err, &busy) || busy.Waited != 300*time.Millisecond || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("Open with a timeout of 300ms: %v after %s, want a *BusyError after waiting", err, time.Since(start))
	}
	if !strings.Contains(err.Error(), "gave up after waiting 300ms (--lock-timeout)") {
		t.Errorf("message: %s", err)
	}

	waiting := make(chan *load.BusyError, 2)
	opened := make(chan error, 1)
	go func() {
		w2, err := load.Open(context.Background(), dir, load.Options{LockTimeout: time.Minute, Waiting: func(b *load.BusyError) { waiting <- b }})
		if err == nil {
			err = w2.Close()
		}
		opened <- err
	}()
	b := <-waiting
	if b.Holder.PID != os.Getpid() {
		t.Errorf("told it waits for %+v, want pid %d", b.Holder, os.Getpid())
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-opened; err != nil {
		t.Fatalf("the waiting writer: %v", err)
	}
	if len(waiting) != 0 {
		t.Error("told twice that it waits")
	}
}

// Readers read what the last job published, while a writer works, and
// keep what they opened when the next job publishes; a writer opens while
// readers hold the published database. Readers opened meanwhile are other
// processes, as notebooks are: within one process DuckDB shares a database
// already open by the same path (see OpenReadOnly).
func TestReadersSeeThePublishedWarehouseAndNeverBlockTheWriter(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	if _, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions()); !errors.Is(err, load.ErrNoWarehouse) {
		t.Errorf("empty dir: %v, want ErrNoWarehouse", err)
	}
	w := openWarehouse(t, dir)
	// Open published the new, empty warehouse.
	before, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	if n := queryInt(t, before, "SELECT count(*) FROM eta_observations"); n != 0 {
		t.Fatalf("%d rows before any load", n)
	}
	if _, err := before.ExecContext(t.Context(), "CREATE TABLE x (a INTEGER)"); err == nil {
		t.Error("a read-only warehouse took a write")
	}
	load1(t, w, memory.DefaultAllocator, schema.ETAObservations, crashRows...)
	if out, err := child(t, "count", dir); err != nil || out != "0\n" {
		t.Errorf("a reader opened during the job: %v %q, want the published 0 rows", err, out)
	}
	st, err := w.Publish(t.Context())
	if err != nil || !st.Published || st.Version == 0 {
		t.Fatalf("Publish: %+v, %v", st, err)
	}
	if n := queryInt(t, before, "SELECT count(*) FROM eta_observations"); n != 0 {
		t.Errorf("a reader open across the publish sees %d rows, want the 0 it opened", n)
	}
	if out, err := child(t, "count", dir); err != nil || out != "2\n" {
		t.Errorf("a reader opened after the publish: %v %q, want 2 rows", err, out)
	}
	if st, err := w.Publish(t.Context()); err != nil || st.Published {
		t.Errorf("Publish with nothing changed: %+v, %v; want nothing done", st, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w = openWarehouse(t, dir) // while before is still open
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
