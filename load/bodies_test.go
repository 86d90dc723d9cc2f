package load_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

// spilled is response r with its body moved to a file of the landing
// directory, as the client leaves a body larger than --max-body; sized
// and hashed, not yet taken in by a journal.
func spilled(t *testing.T, w *load.Warehouse, r response.Landed) response.Landed {
	t.Helper()
	f, err := os.CreateTemp(w.SpillDir(), "spill-*.part")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(r.Body); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(r.Body)
	r.File = &response.BodyFile{Path: f.Name(), Size: int64(len(r.Body)), SHA256: hex.EncodeToString(sum[:])}
	r.Body = nil
	return r
}

// bigBody is a body of n bytes.
func bigBody(n int) string {
	return `{"pad":"` + strings.Repeat("z", n-10) + `"}`
}

// A body kept in a file gets the id the same bytes in memory get; it lands
// in the body store, compressed, named by its SHA-256, with its row's body
// NULL and body_file naming it; Raw hands it back in its file, ReadBody
// reads it whole; and the same response landed again, in memory or from
// a file, is the same row, its file written once.
func TestABodyInAFileLandsInTheBodyStoreUnderTheSameID(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := fetched(t0, bigBody(1<<20))
	r := spilled(t, w, mem)
	if err := load.HashBodyFile(&r); err != nil {
		t.Fatal(err)
	}
	if got, want := load.ResponseID(&r), load.ResponseID(&mem); got != want {
		t.Fatalf("the id of the body in a file is %s, in memory %s: want one", got, want)
	}
	// An imported file: neither size nor SHA-256 known before.
	unmeasured := spilled(t, w, mem)
	unmeasured.File.Size, unmeasured.File.SHA256 = 0, ""
	if err := load.HashBodyFile(&unmeasured); err != nil || load.ResponseID(&unmeasured) != load.ResponseID(&mem) || *unmeasured.File != (response.BodyFile{Path: unmeasured.File.Path, Size: r.File.Size, SHA256: r.File.SHA256, ID: r.File.ID}) {
		t.Fatalf("a file measured by HashBodyFile: %+v, %v; want %+v", unmeasured.File, err, r.File)
	}
	if n := land(t, w, r); n != 1 {
		t.Fatalf("landed %d", n)
	}
	var file *string
	var body []byte
	var size int64
	if err := w.DB().QueryRow("SELECT body_file, body, body_bytes FROM raw_responses").Scan(&file, &body, &size); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("bodies", r.File.SHA256+".zst")
	if file == nil || *file != filepath.ToSlash(want) || body != nil || size != 1<<20 {
		t.Fatalf("the row: body_file %v, body of %d bytes, body_bytes %d; want %s, NULL, %d", file, len(body), size, want, 1<<20)
	}
	compressed, err := os.ReadFile(filepath.Join(dir, want))
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	if plain, err := dec.DecodeAll(compressed, nil); err != nil || !bytes.Equal(plain, mem.Body) || len(compressed) > 1<<16 {
		t.Fatalf("the stored file: %d bytes compressed, %v: want the body, compressed", len(compressed), err)
	}

	got, ids := all(t, w, load.RawFilter{})
	if len(got) != 1 || got[0].Body != nil || got[0].File == nil || !got[0].File.Compressed || ids[0] != load.ResponseID(&mem) {
		t.Fatalf("Raw: %+v", got)
	}
	if b, err := w.ReadBody(&got[0]); err != nil || !bytes.Equal(b, mem.Body) {
		t.Fatalf("ReadBody: %d bytes, %v", len(b), err)
	}

	again := spilled(t, w, mem)
	if err := load.HashBodyFile(&again); err != nil {
		t.Fatal(err)
	}
	if n := land(t, w, mem, again); n != 0 {
		t.Errorf("the same response landed again, in memory and from a file: %d new rows, want 0", n)
	}
	if stored, _ := os.ReadDir(filepath.Join(dir, "bodies")); len(stored) != 1 {
		t.Errorf("%d files in the body store, want 1", len(stored))
	}
}

// A body file that changed after it was hashed, or that is not the size
// and SHA-256 recorded, is refused, naming the file; the row is not
// landed.
func TestABodyFileThatChangedIsRefused(t *testing.T) {
	slowtest.Long(t)
	w := freshWarehouse(t)
	r := spilled(t, w, fetched(t0, bigBody(4096)))
	if err := load.HashBodyFile(&r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.File.Path, []byte(bigBody(4096)[:4095]+"!"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Land(t.Context(), &r); err == nil || !strings.Contains(err.Error(), r.File.Path) {
		t.Fatalf("Land of a changed body file: %v; want an error naming it", err)
	}
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM raw_responses"); n != 0 {
		t.Errorf("%d rows landed", n)
	}
	bad := spilled(t, w, fetched(t0, bigBody(4096)))
	bad.File.SHA256 = strings.Repeat("0", 64)
	if err := load.HashBodyFile(&bad); err == nil {
		t.Error("HashBodyFile of a file that is not its recorded SHA-256: no error")
	}
}

// A job that dies after its journal took in a body file loses nothing:
// the next Open lands the body from the file into the body store, then
// removes the journal and its file. What a death left half done — a body
// file never taken in, one taken in by a journal whose record was never
// written, a temp file of the body store — is swept; a damaged journal's
// body files are kept with it.
func TestAJournalsBodyFilesAreLandedAfterADeathAndLeftoversSwept(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := fetched(t0, bigBody(1<<20))
	j := journal(t, w, "run-big", fetched(t0.Add(-time.Hour), `{"a":1}`), spilled(t, w, mem))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	landing := w.SpillDir()
	kept, _ := filepath.Glob(filepath.Join(landing, "run-big.journal.*.body"))
	if len(kept) != 1 {
		t.Fatalf("the journal took in %d body files, want 1", len(kept))
	}
	if parts, _ := filepath.Glob(filepath.Join(landing, "*.part")); len(parts) != 0 {
		t.Fatalf("%d spill files left after the journal took them in", len(parts))
	}
	leftovers := []string{
		filepath.Join(landing, "spill-123.part"),
		filepath.Join(landing, "run-gone.journal.1.body"),
		filepath.Join(dir, "bodies", ".tmp-9.zst"),
	}
	damaged := []string{filepath.Join(landing, "run-old.journal.damaged"), filepath.Join(landing, "run-old.journal.1.body")}
	if err := os.MkdirAll(filepath.Join(dir, "bodies"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range append(leftovers, damaged...) {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Responses != 2 || got.Landed != 2 || len(got.Damaged) != 0 {
		t.Fatalf("recovered %+v, want the 2 responses of the journal landed", got)
	}
	got, ids := all(t, w, load.RawFilter{})
	if len(got) != 2 || got[1].File == nil || ids[1] != load.ResponseID(&mem) {
		t.Fatalf("landed %+v", got)
	}
	if b, err := w.ReadBody(&got[1]); err != nil || !bytes.Equal(b, mem.Body) {
		t.Fatalf("the body landed from the journal's file: %d bytes, %v", len(b), err)
	}
	for _, p := range append(leftovers, kept[0], journalPath(dir, "run-big")) {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
	for _, p := range damaged {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s of a damaged journal: %v; want it kept", p, err)
		}
	}
}

// A record whose body file is gone is damage, not a death mid-append: the
// journal is set aside, what preceded the record landed.
func TestAJournalRecordWhoseBodyFileIsGoneIsDamage(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	r := spilled(t, w, fetched(t0, bigBody(4096)))
	j := journal(t, w, "run-lost", fetched(t0.Add(-time.Hour), `{"a":1}`), r, fetched(t0.Add(time.Hour), `{"a":3}`))
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(r.File.Path); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w = openWarehouse(t, dir)
	if got := w.Recovered(); got.Landed != 1 || len(got.Damaged) != 1 {
		t.Fatalf("recovered %+v, want the first response landed and the journal set aside", got)
	}
}
