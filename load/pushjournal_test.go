package load_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

// pushed is a body a webhook receiver lands: a tracking response of
// source push.
func pushed(observed time.Time, body string) response.Landed {
	r := fetched(observed, body)
	r.RunID, r.Source, r.LogicalDate = "webhook-test", load.SourcePush, nil
	return r
}

// pushJournals lists the receiver journals in the landing directory of
// dir, and those being created.
func pushJournals(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, ".work", "landing", "push-*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	return paths
}

// A webhook receiver lands bodies while a writer holds the warehouse: it
// takes no lock of the warehouse. A writer's Open leaves the journal the
// receiver is writing, and lands it — once — after the receiver rotated
// it.
func TestAReceiverJournalIsLandedOnceRotated(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir) // a nightly job, holding the lock
	clock := t0
	p, err := load.OpenPushJournal(dir, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range []string{`{"p":1}`, `{"p":2}`} {
		if err := p.Append(ptr(pushed(t0.Add(time.Duration(i)*time.Hour), b))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Live != 1 || got.Pushes != 0 || got.Journals != 0 {
		t.Fatalf("recovered %+v while the receiver writes its journal: want it left, live", got)
	}
	if got, _ := all(t, w, load.RawFilter{}); len(got) != 0 {
		t.Fatalf("%d responses landed from a journal still written", len(got))
	}
	if rotated, err := p.Rotate(time.Minute); err != nil || rotated {
		t.Fatalf("rotating a journal 0 s old at 1 min: %v, %v", rotated, err)
	}
	clock = clock.Add(time.Minute)
	if rotated, err := p.Rotate(time.Minute); err != nil || !rotated {
		t.Fatalf("rotating a journal 1 min old: %v, %v", rotated, err)
	}
	if err := p.Append(ptr(pushed(t0.Add(3*time.Hour), `{"p":3}`))); err != nil { // opens the next journal
		t.Fatal(err)
	}
	if n := len(pushJournals(t, dir)); n != 2 {
		t.Fatalf("%d receiver journals, want the rotated one and the next", n)
	}
	w.Close()

	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Pushes != 1 || got.PushedBodies != 2 || got.PushedLanded != 2 || got.Live != 1 || got.Journals != 0 {
		t.Fatalf("recovered %+v, want the rotated journal's 2 bodies landed and the next left", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w = openWarehouse(t, dir)
	got, _ := all(t, w, load.RawFilter{})
	if len(got) != 3 || got[2].Source != load.SourcePush || string(got[2].Body) != `{"p":3}` {
		t.Fatalf("landed %+v, want the 3 bodies once, source push", got)
	}
	if left := pushJournals(t, dir); len(left) != 0 {
		t.Fatalf("receiver journals left after they were landed: %v", left)
	}
}

// A receiver killed while it appended leaves a record cut short at the
// end of its journal: it was never acknowledged (the vendor retries it),
// and what precedes it lands.
func TestAReceiverKilledMidAppendLosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	p, err := load.OpenPushJournal(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{`{"p":1}`, `{"p":2}`} {
		if err := p.Append(ptr(pushed(t0, b))); err != nil {
			t.Fatal(err)
		}
	}
	paths := pushJournals(t, dir)
	whole, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths[0], append(whole, whole[:len(whole)/3]...), 0o600); err != nil {
		t.Fatal(err)
	}
	// The process dies: its lock goes with it (here, Close drops it).
	p.Close()
	w := openWarehouse(t, dir)
	if got := w.Recovered(); got.PushedBodies != 2 || got.PushedLanded != 2 || len(got.Damaged) != 0 {
		t.Fatalf("recovered %+v, want the 2 whole bodies and no damage", got)
	}
}

// A writer killed while it landed a receiver's journal — after its
// transaction committed, before the journal was removed — leaves it for
// the next writer, which lands nothing twice.
func TestAJournalLandedAgainAfterAWriterDiedLandsNothingTwice(t *testing.T) {
	dir := t.TempDir()
	p, err := load.OpenPushJournal(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{`{"p":1}`, `{"p":2}`, `{"p":3}`} {
		if err := p.Append(ptr(pushed(t0, b))); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	path := pushJournals(t, dir)[0]
	kept, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w := openWarehouse(t, dir)
	w.Close()
	if err := os.WriteFile(path, kept, 0o600); err != nil { // as if the writer died before removing it
		t.Fatal(err)
	}
	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.PushedBodies != 3 || got.PushedLanded != 0 {
		t.Fatalf("recovered %+v, want the 3 bodies read again and none landed twice", got)
	}
	if got, _ := all(t, w, load.RawFilter{}); len(got) != 3 {
		t.Fatalf("%d responses, want 3", len(got))
	}
}

// A journal a receiver died creating — never named, never written — is
// swept by the next receiver; one a live receiver is creating is not.
func TestAJournalLeftBeingCreatedIsSwept(t *testing.T) {
	dir := t.TempDir()
	landing := filepath.Join(dir, ".work", "landing")
	if err := os.MkdirAll(landing, 0o755); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(landing, "push-20260101T000000.000000000Z-1-1.journal.new")
	if err := os.WriteFile(dead, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := load.OpenPushJournal(dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the journal a dead receiver was creating is still there: %v", err)
	}
	if _, err := load.OpenPushJournal(filepath.Join(dir, "nowhere"), nil); err == nil {
		t.Fatal("a receiver journal opened in a warehouse directory that does not exist")
	}
}

// Bodies appended by many requests at once while the receiver rotates
// its journals all land, each once.
func TestAReceiverJournalTakesConcurrentAppendsWhileRotating(t *testing.T) {
	dir := t.TempDir()
	p, err := load.OpenPushJournal(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if err := p.Append(ptr(pushed(t0.Add(time.Duration(g*100+i)*time.Second), fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 30 {
			if _, err := p.Rotate(0); err != nil {
				t.Error(err)
			}
		}
	}()
	wg.Wait()
	<-done
	p.Close()
	w := openWarehouse(t, dir)
	if got := w.Recovered(); got.PushedBodies != 120 || got.PushedLanded != 120 || got.Live != 0 {
		t.Fatalf("recovered %+v, want the 120 bodies from every journal", got)
	}
}
