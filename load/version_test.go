package load_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// versions lists the version directories of the warehouse in dir.
func versions(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".versions"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// A publish builds the next version of the mirror: the files of the
// partitions that did not change are the previous version's (the same
// file, no byte copied), the changed one is new, and no temp tree is left
// behind; readers reach it through the same paths as before.
func TestAPublishLinksWhatDidNotChange(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := checkedMem(t)
	days := []string{"2024-01-01", "2024-01-02", "2024-01-03"}
	for i, d := range days {
		load1(t, w, mem, schema.ETAObservations, etaObs("S1", d+"T10:00:00Z", "2024-01-09T00:00:00Z", fmt.Sprintf("r%d", i)))
	}
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	file := func(d string) string {
		return filepath.Join(dir, "parquet", "eta_observations", "observed_date="+d, "data.parquet")
	}
	before := map[string]os.FileInfo{}
	for _, d := range days {
		fi, err := os.Stat(file(d))
		if err != nil {
			t.Fatal(err)
		}
		before[d] = fi
	}
	load1(t, w, mem, schema.ETAObservations, etaObs("S2", "2024-01-02T11:00:00Z", "2024-01-09T00:00:00Z", "r9"))
	st, err := w.SyncParquet(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Written != 1 || st.Linked < 2 || st.Rows != 2 {
		t.Errorf("sync: %+v; want 1 partition of 2 rows written, the 2 others linked", st)
	}
	for _, d := range days {
		fi, err := os.Stat(file(d))
		if err != nil {
			t.Fatal(err)
		}
		if same := os.SameFile(fi, before[d]); same != (d != "2024-01-02") {
			t.Errorf("%s: the same file as before: %v", d, same)
		}
	}
	for _, v := range versions(t, dir) {
		if strings.HasPrefix(v, ".tmp-") {
			t.Errorf("%s left under .versions/", v)
		}
	}
	equal(t, "mirror", parquetRows(t, w, schema.ETAObservations), query(t, w.DB(), "SELECT "+rendered(schema.ETAObservations)+" FROM eta_observations"))
}

// A reader looping over a table of the mirror while publishes rewrite
// every partition of it, one with a row more each time (as a replay's end
// does), never errs and reads the rows of one publish or of the next,
// never fewer, never a table half gone.
func TestAReaderOfTheMirrorNeverSeesAGap(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := checkedMem(t)
	days := []string{"2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"}
	var rows []row
	for i, d := range days {
		rows = append(rows, etaObs("S0", d+"T10:00:00Z", "2024-01-09T00:00:00Z", fmt.Sprintf("r0-%d", i)))
	}
	load1(t, w, mem, schema.ETAObservations, rows...)
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	base := int64(len(rows))
	var synced atomic.Int64               // rows added by the publishes done
	reader, err := sql.Open("duckdb", "") // a notebook of its own
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	glob := filepath.Join(dir, "parquet", "eta_observations", "**", "*.parquet")
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var reads int
	var bad []string
	wg.Go(func() {
		for ctx.Err() == nil {
			before := synced.Load()
			var n int64
			err := reader.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM read_parquet('%s', hive_partitioning=true)", glob)).Scan(&n)
			after := synced.Load()
			switch {
			case ctx.Err() != nil:
			case err != nil:
				bad = append(bad, err.Error())
			case n < base+before || n > base+after+1:
				bad = append(bad, fmt.Sprintf("%d rows between publishes of %d and %d", n, base+before, base+after+1))
			default:
				reads++
			}
		}
	})
	for i := 1; i <= 10; i++ {
		// Every partition pending, as after a replay's reset; the second
		// day's with a row more.
		if err := w.Reset(t.Context(), []*schema.Table{schema.ETAObservations}); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, etaObs(fmt.Sprintf("S%d", i), "2024-01-02T11:00:00Z", "2024-01-09T00:00:00Z", fmt.Sprintf("r%d", i)))
		load1(t, w, mem, schema.ETAObservations, rows...)
		if _, err := w.SyncParquet(t.Context()); err != nil {
			t.Fatal(err)
		}
		synced.Add(1)
	}
	stop()
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("%d of %d reads saw what no publish left: %s", len(bad), reads+len(bad), strings.Join(bad[:min(5, len(bad))], "; "))
	}
	if reads == 0 {
		t.Error("no read finished during the publishes")
	}
}

// A reader that opened the published database keeps the version it
// opened, files and all, across any number of publishes, and its version
// is removed by the first publish after it closed; the version before the
// current stays for readers of the mirror caught by the swap. Meanwhile
// every new reader sees the newest.
func TestAReaderKeepsItsVersionUntilItCloses(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := checkedMem(t)
	load1(t, w, mem, schema.ETAObservations, etaObs("S0", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r0"))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	old, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	held := versions(t, dir)[len(versions(t, dir))-1]
	for i := 1; i <= 3; i++ {
		load1(t, w, mem, schema.ETAObservations, etaObs(fmt.Sprintf("S%d", i), "2024-01-02T10:00:00Z", "2024-01-09T00:00:00Z", fmt.Sprintf("r%d", i)))
		if _, err := w.Publish(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := queryInt(t, old, "SELECT count(*) FROM eta_observations"); n != 1 {
			t.Errorf("after publish %d the reader open before sees %d rows, want the 1 it opened", i, n)
		}
		if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != int64(1+i) {
			t.Errorf("after publish %d a new reader sees %d rows, want %d", i, n, 1+i)
		}
	}
	vs := versions(t, dir)
	if !strings.Contains(strings.Join(vs, " "), held) || len(vs) != 3 {
		t.Errorf("versions kept while a reader holds %s: %v; want it, the current and the one before", held, vs)
	}
	old.Close()
	load1(t, w, mem, schema.ETAObservations, etaObs("S9", "2024-01-03T10:00:00Z", "2024-01-09T00:00:00Z", "r9"))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	if vs := versions(t, dir); len(vs) != 2 || strings.Contains(strings.Join(vs, " "), held) {
		t.Errorf("versions once the reader closed: %v; want the current and the one before", vs)
	}
}

// What a publish killed midway left — a version half built, a version
// built and never made current, a body segment never recorded — is
// invisible to readers and removed by the next writer's Open; the
// published version and its files stay.
func TestOpenSweepsWhatACrashLeft(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	load1(t, w, checkedMem(t), schema.ETAObservations, crashRows...)
	landDerived(t, w, fetched(t0, `{"port":"NLRTM"}`))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := parquetRows(t, w, schema.ETAObservations)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	link, err := os.Readlink(filepath.Join(dir, ".current"))
	if err != nil {
		t.Fatal(err)
	}
	cur := filepath.Base(link)
	var n int
	if _, err := fmt.Sscanf(cur, "v%d", &n); err != nil {
		t.Fatal(err)
	}
	next := fmt.Sprintf("v%09d", n+1)
	orphans := []string{
		filepath.Join(dir, ".versions", ".tmp-"+next+"-3f2a9c", "parquet", "eta_observations", "observed_date=2024-01-01", "data.parquet"),
		filepath.Join(dir, ".versions", next, "parquet", "eta_observations", "observed_date=2024-01-01", "data.parquet"),
		filepath.Join(dir, "bodies", "segments", "s000000002.parquet"),
		filepath.Join(dir, "bodies", "segments", ".tmp-s000000003.parquet"),
	}
	for _, o := range orphans {
		if err := os.MkdirAll(filepath.Dir(o), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(o, []byte("PAR1 half a file"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM raw_responses"); n != 1 {
		t.Errorf("readers see %d responses with the orphans present, want 1", n)
	}
	w = openWarehouse(t, dir)
	for _, o := range orphans {
		if _, err := os.Stat(o); !os.IsNotExist(err) {
			t.Errorf("%s survived Open: %v", o, err)
		}
	}
	if vs := versions(t, dir); slices.Contains(vs, next) || !slices.Contains(vs, cur) {
		t.Errorf("versions after Open: %v, want %s and not %s", vs, cur, next)
	}
	equal(t, "the mirror after Open", parquetRows(t, w, schema.ETAObservations), want)
	if n := publishedCount(t, dir, "SELECT count(*) FROM raw_responses"); n != 1 {
		t.Errorf("readers see %d responses after Open, want 1", n)
	}
}

// A process killed while it built the readers' template — committed, not
// yet renamed — leaves .work/.tmp-readers-<key>.duckdb holding every view;
// the next process's publish builds the template afresh rather than
// running the script again on it ("View with name raw_responses already
// exists", found by TestKillsAtRandomMomentsRebuyOnlyWhatWasInFlight).
func TestAPublishAfterACrashInTheTemplateBuildsItAgain(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	load1(t, w, checkedMem(t), schema.ETAObservations, crashRows[0])
	landDerived(t, w, fetched(t0, `{"port":"NLRTM"}`))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	tmpls, err := filepath.Glob(filepath.Join(dir, ".work", "readers-*.duckdb"))
	if err != nil || len(tmpls) != 1 {
		t.Fatalf("templates under .work: %v %v, want 1", tmpls, err)
	}
	half := filepath.Join(dir, ".work", ".tmp-"+filepath.Base(tmpls[0]))
	if err := os.Rename(tmpls[0], half); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(half+".wal", []byte("half a log"), 0o644); err != nil {
		t.Fatal(err)
	}
	load.ForgetReadersTemplates()
	load1(t, w, checkedMem(t), schema.ETAObservations, crashRows[1])
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatalf("the publish after a crash in the template: %v", err)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != 2 {
		t.Errorf("readers see %d rows, want 2", n)
	}
}

// A publish that fails (cancelled, or unable to read a file it links: a
// body segment lost) leaves readers the version before, no temp tree, and
// the partitions pending; the next publish, once the way is clear,
// publishes the job whole.
func TestAFailedPublishChangesNothing(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	mem := checkedMem(t)
	v1 := etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1")
	v2 := etaObs("S2", "2024-01-01T11:00:00Z", "2024-01-09T00:00:00Z", "r2")
	load1(t, w, mem, schema.ETAObservations, v1)
	landDerived(t, w, fetched(t0, `{"port":"NLRTM"}`))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	load1(t, w, mem, schema.ETAObservations, v2)
	before := versions(t, dir)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := w.Publish(ctx); err == nil {
		t.Fatal("a cancelled publish succeeded")
	}
	equal(t, "after a cancelled publish", parquetRows(t, w, schema.ETAObservations), lines(schema.ETAObservations, v1))

	segment := filepath.Join(dir, "bodies", "segments", "s000000001.parquet")
	if err := os.Rename(segment, segment+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(t.Context()); err == nil || !strings.Contains(err.Error(), "s000000001.parquet") {
		t.Fatalf("a publish that could not link a segment: %v; want an error naming it", err)
	}
	if vs := versions(t, dir); strings.Join(vs, " ") != strings.Join(before, " ") {
		t.Errorf("versions after the failed publishes: %v, want %v", vs, before)
	}
	equal(t, "after a failed publish", parquetRows(t, w, schema.ETAObservations), lines(schema.ETAObservations, v1))
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM parquet_pending"); n != 1 {
		t.Errorf("%d partitions pending, want 1", n)
	}
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != 1 {
		t.Errorf("readers see %d rows after the failed publishes, want the 1 before", n)
	}
	if err := os.Rename(segment+".away", segment); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	equal(t, "after the publish", parquetRows(t, w, schema.ETAObservations), lines(schema.ETAObservations, v1, v2))
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != 2 {
		t.Errorf("readers see %d rows, want 2", n)
	}
}

// A warehouse of the layout before versions — etalake.duckdb a database
// of its own, parquet/ a directory — is taken over by its first publish:
// both become links through .current, the mirror's files are the
// version's, and readers see every row.
func TestTheFirstPublishTakesOverAWarehouseOfTheLayoutBefore(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	load1(t, w, checkedMem(t), schema.ETAObservations, crashRows...)
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := parquetRows(t, w, schema.ETAObservations)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// The same warehouse as an earlier etalake left it: the published
	// database a copy of the writer's, the mirror a directory.
	legacyLayout(t, dir)
	w = openWarehouse(t, dir)
	load1(t, w, checkedMem(t), schema.ETAObservations, etaObs("S9", "2024-01-03T10:00:00Z", "2024-01-09T00:00:00Z", "r9"))
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"etalake.duckdb", "parquet"} {
		if target, err := os.Readlink(filepath.Join(dir, name)); err != nil || target != filepath.Join(".current", name) {
			t.Errorf("%s: %q, %v; want a link to .current/%s", name, target, err, name)
		}
	}
	equal(t, "the mirror taken over", parquetRows(t, w, schema.ETAObservations), append(want, lines(schema.ETAObservations, etaObs("S9", "2024-01-03T10:00:00Z", "2024-01-09T00:00:00Z", "r9"))...))
	if n := publishedCount(t, dir, "SELECT count(*) FROM eta_observations"); n != 3 {
		t.Errorf("readers see %d rows, want 3", n)
	}
}

// legacyLayout turns the published warehouse in dir into the layout of
// an etalake before versions.
func legacyLayout(t *testing.T, dir string) {
	t.Helper()
	mirror, err := filepath.EvalSymlinks(filepath.Join(dir, "parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"etalake.duckdb", "parquet", ".current"} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(filepath.Join(dir, "parquet"), os.DirFS(mirror)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".versions")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".work", "etalake.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etalake.duckdb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
