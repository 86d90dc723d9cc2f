package load_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

// journalPath is where the journal of run lives (journal.go).
func journalPath(dir, run string) string {
	return filepath.Join(dir, ".work", "landing", run+".journal")
}

// journal opens the journal name in w and appends rs to it.
func journal(t *testing.T, w *load.Warehouse, name string, rs ...response.Landed) *load.Journal {
	t.Helper()
	j, err := w.OpenJournal(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := j.Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// A job that dies leaves its journal; the next Open lands every response
// in it, once, and removes it.
func TestJournalOfADeadJobIsLandedByTheNextOpen(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	rs := []response.Landed{fetched(t0, `{"a":1}`), fetched(t0.Add(time.Hour), `{"a":2}`), fetched(t0.Add(2*time.Hour), `{"a":3}`)}
	j := journal(t, w, "run-1", rs...)
	land(t, w, rs[0]) // the writer had landed the first before the job died
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Journals != 1 || got.Responses != 3 || got.Landed != 2 || len(got.Damaged) != 0 {
		t.Errorf("recovered %+v, want 1 journal of 3 responses, 2 of them new", got)
	}
	got, _ := all(t, w, load.RawFilter{})
	if len(got) != 3 || string(got[2].Body) != `{"a":3}` || !got[1].ObservedAt.Equal(rs[1].ObservedAt) {
		t.Errorf("landed %d responses: %+v", len(got), got)
	}
	if _, err := os.Stat(journalPath(dir, "run-1")); !os.IsNotExist(err) {
		t.Errorf("the journal is still there: %v", err)
	}
}

// Appends of many workers at once all reach the disk whole, sharing
// their syncs.
func TestJournalTakesConcurrentAppends(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	j := journal(t, w, "run-many")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				if err := j.Append(ptr(fetched(t0.Add(time.Duration(g*100+i)*time.Second), fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	j.Close()
	w.Close()
	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Responses != 200 || got.Landed != 200 {
		t.Errorf("recovered %+v, want the 200 responses appended", got)
	}
}

// A record cut short at the end — the job died writing it, so no worker
// went on with it — is dropped; what precedes it lands.
func TestJournalCutShortLandsWhatPrecedes(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	journal(t, w, "run-2", fetched(t0, `{"a":1}`)).Close()
	whole, err := os.ReadFile(journalPath(dir, "run-2"))
	if err != nil {
		t.Fatal(err)
	}
	// The first record again, cut in the middle.
	if err := os.WriteFile(journalPath(dir, "run-2"), append(whole, whole[:len(whole)/2]...), 0o600); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Responses != 1 || got.Landed != 1 || len(got.Damaged) != 0 {
		t.Errorf("recovered %+v, want the 1 whole response", got)
	}
}

// A record damaged inside the journal stops the landing there; the
// journal is set aside for a person to look at, not deleted.
func TestDamagedJournalIsSetAside(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	journal(t, w, "run-3", fetched(t0, `{"a":1}`), fetched(t0, `{"a":2}`)).Close()
	path := journalPath(dir, "run-3")
	data, _ := os.ReadFile(path)
	data[len(data)-3] ^= 0xff // inside the second record's payload
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	w.Close()
	w = openWarehouse(t, dir)
	got := w.Recovered()
	if got.Responses != 1 || len(got.Damaged) != 1 || got.Damaged[0] != path+".damaged" {
		t.Errorf("recovered %+v, want 1 response and the journal set aside", got)
	}
	if _, err := os.Stat(path + ".damaged"); err != nil {
		t.Error(err)
	}
}

// A journal removed after its responses were landed leaves nothing to land.
func TestRemovedJournalIsGone(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	r := fetched(t0, `{"a":1}`)
	j := journal(t, w, "run-4", r)
	land(t, w, r)
	if err := j.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&r); err == nil {
		t.Error("an append after Remove succeeded")
	}
	w.Close()
	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Journals != 0 {
		t.Errorf("recovered %+v, want nothing", got)
	}
}

// A warehouse of an earlier version, written in place in etalake.duckdb
// and left with a write-ahead log by a job that died, is taken over whole:
// the log's rows are there.
func TestEarlierInPlaceWarehouseIsTakenOver(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	if out, err := child(t, "load-and-die", dir); err == nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	// Make it the earlier layout: the database and its log in place.
	for _, name := range []string{"etalake.duckdb", "etalake.duckdb.wal"} {
		if err := os.Rename(filepath.Join(dir, ".work", name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, ".work")); err != nil {
		t.Fatal(err)
	}
	w := openWarehouse(t, dir)
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM eta_observations"); n != int64(len(crashRows)) {
		t.Errorf("%d rows after the takeover, want %d", n, len(crashRows))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "etalake.duckdb.wal")); !os.IsNotExist(err) {
		t.Errorf("the published database still has the old log beside it: %v", err)
	}
	if out, err := child(t, "count", dir); err != nil || out != "2\n" {
		t.Errorf("a reader after the takeover: %v %q, want 2 rows", err, out)
	}
}

// BenchmarkJournalAppend is the cost of keeping a received response safe
// before it is decoded: one append and one fsync of a body of 8 KiB (a
// shipment answer is 2–20 KiB).
func BenchmarkJournalAppend(b *testing.B) {
	w := openWarehouse(b, b.TempDir())
	j, err := w.OpenJournal("bench")
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	r := fetched(t0, string(make([]byte, 8<<10)))
	b.SetBytes(int64(len(r.Body)))
	for b.Loop() {
		if err := j.Append(&r); err != nil {
			b.Fatal(err)
		}
	}
}
