package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/schema"
)

// What readers see after every writer: the database and the Parquet
// mirror as of one moment, and etl_runs saying how each job ended.

// expiring is a server in front of the simulator whose key expires after
// the first n paid tracking requests: the service answers 401 from then on.
type expiring struct {
	n    int64
	seen atomic.Int64
}

func (e *expiring) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/shipment") && e.seen.Add(1) > e.n {
			for k := range r.Header {
				if strings.EqualFold(k, "API_KEY") { // as received: Api_key
					r.Header[k] = []string{"an-expired-key"}
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// one is the single value the query q returns, as text.
func one(t *testing.T, db *sql.DB, q string, args ...any) string {
	t.Helper()
	var v sql.NullString
	if err := db.QueryRow(q, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v.String
}

// A run whose key expires after some answers (401: exit 2) publishes what
// it bought with the analytic tables rebuilt from it and the Parquet
// mirror written, and etl_runs says it failed and why, with exit code 2.
func TestAFailedRunPublishesItsAnswersWithTheirAnalytics(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 10_000, 10_000)
	e := &expiring{n: 1 << 30}
	b.wrap(t, e.wrap)
	ships := visible(t, b.env.Service.World(), 40)
	if res := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}, ExitCodes: exitCodes}); res.Run.Status != load.StatusOK {
		t.Fatalf("first run: %s", res.Run.Status)
	}
	// Weeks later, boxes have arrived; the key expires after 25 answers.
	b.env.Service.Clock().Advance(30 * 24 * time.Hour)
	e.seen.Store(0)
	e.n = 25
	res, err := b.runErr(t, jobs.RunOptions{ExitCodes: exitCodes})
	if !errors.Is(err, extract.ErrUnauthorized) || res.Run.Status != load.StatusFailed || res.Run.ExitCode == nil || *res.Run.ExitCode != 2 {
		t.Fatalf("run with an expiring key: %s, exit %v, %v; want failed, 2, unauthorized", res.Run.Status, res.Run.ExitCode, err)
	}
	loadtest.AsOfOneMoment(t, b.dir)
	db := loadtest.Published(t, b.dir)
	if got := one(t, db, "SELECT status || ' ' || exit_code || ' ' || (error LIKE '%401%') FROM etl_runs WHERE run_id = ?", res.Run.ID); got != "failed 2 true" {
		t.Errorf("readers see the run as %q; want failed, exit code 2, the 401 as its error", got)
	}
	arrivals := `SELECT DISTINCT shipment_number FROM eta_observations WHERE is_actual AND source = 'CARRIER' AND target IN ('POD', 'POSTPOD')
		AND response_id IN (SELECT response_id FROM raw_responses WHERE run_id = ?)`
	arrived := one(t, db, "SELECT count(*) FROM ("+arrivals+")", res.Run.ID)
	missing := one(t, db, "SELECT count(*) FROM ("+arrivals+" EXCEPT SELECT shipment_number FROM eta_accuracy_known)", res.Run.ID)
	if arrived == "0" || missing != "0" {
		t.Errorf("%s shipments arrived in the failed run's answers, %s of them missing from eta_accuracy_known: want some, none missing", arrived, missing)
	}
}

// A publish that fails (here a file where the body segments go, as a full
// disk fails a write) makes the job failed, exit code 1, with the
// reason; readers keep the state before, the mirror's etl_runs says it
// failed, and the next job's publish carries the row to readers of the
// database.
func TestAFailedPublishIsRecordedAsFailedAndPublishedByTheNextJob(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 10_000, 10_000)
	ships := visible(t, b.env.Service.World(), 10)
	// A file where the body segments go: the job's answers cannot be
	// kept for readers, as on a full disk.
	blocker := filepath.Join(b.dir, "bodies", "segments")
	if err := os.MkdirAll(filepath.Dir(blocker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := b.runErr(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}, ExitCodes: exitCodes})
	if err == nil || res.Run.Status != load.StatusFailed || res.Run.ExitCode == nil || *res.Run.ExitCode != 1 ||
		!strings.Contains(res.Run.Error, "publishing the warehouse for readers failed") {
		t.Fatalf("run whose publish fails: %s, exit %v, %q, %v; want failed, exit 1, the reason", res.Run.Status, res.Run.ExitCode, res.Run.Error, err)
	}
	if end := endLine(b.logs.String()); !strings.Contains(end, `"status":"failed"`) || !strings.Contains(end, `"exit_code":1`) {
		t.Errorf("the run's end in the log does not say failed, exit 1:\n%s", end)
	}
	db := loadtest.Published(t, b.dir)
	if n := one(t, db, "SELECT count(*) FROM shipments"); n != "0" {
		t.Errorf("readers of the database see %s shipments after the failed publish; want the state before (none)", n)
	}
	mirror := fmt.Sprintf("SELECT status FROM read_parquet('%s', hive_partitioning=true) WHERE run_id = ?", filepath.Join(b.dir, "parquet", "etl_runs", "**", "*.parquet"))
	if got := one(t, db, mirror, res.Run.ID); got != "failed" {
		t.Errorf("the mirror's etl_runs says %q of the run; want failed", got)
	}
	db.Close()

	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if next := b.run(t, jobs.RunOptions{ExitCodes: exitCodes}); next.Run.Status != load.StatusOK {
		t.Fatalf("the next run: %s", next.Run.Status)
	}
	db = loadtest.Published(t, b.dir)
	if got := one(t, db, "SELECT status || ' ' || exit_code || ' ' || (error LIKE '%publishing the warehouse for readers failed%') FROM etl_runs WHERE run_id = ?", res.Run.ID); got != "failed 1 true" {
		t.Errorf("after the next job readers see the run as %q; want failed 1 with the reason", got)
	}
	if n := one(t, db, "SELECT count(*) FROM shipments"); n != "10" {
		t.Errorf("readers see %s shipments after the next job; want the 10 the failed one bought", n)
	}
	loadtest.AsOfOneMoment(t, b.dir)
}

// A full replay with a reader looping on the Parquet mirror, each read in
// a DuckDB of its own, and another on the published database: the replay
// derives again the answers a run quarantined as too large, so the tables
// change; every read sees the rows before the replay or after it, never
// an error, never a table emptied or half rebuilt.
func TestAReplayNeverEmptiesTheMirrorForAReader(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 10_000, 10_000)
	ships := visible(t, b.env.Service.World(), 30)
	b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}})
	b.env.Service.Clock().Advance(24 * time.Hour)
	var median int64
	if err := b.wh.DB().QueryRow(`SELECT CAST(median(body_bytes) AS BIGINT) FROM raw_responses WHERE endpoint = 'shipment' AND status = 200`).Scan(&median); err != nil {
		t.Fatal(err)
	}
	day2 := b.run(t, jobs.RunOptions{MaxBody: median, ExitCodes: exitCodes})
	if day2.Quarantined == 0 {
		t.Fatalf("no answer larger than %d bytes quarantined", median)
	}
	tables := []string{"eta_observations", "dead_letters", "shipments", "container_events"}
	count := func(db *sql.DB, table string, mirror bool) (int64, error) {
		q := "SELECT count(*) FROM " + table
		if mirror {
			q = fmt.Sprintf("SELECT count(*) FROM read_parquet('%s', hive_partitioning=true)", filepath.Join(b.dir, "parquet", table, "**", "*.parquet"))
		}
		var n int64
		err := db.QueryRow(q).Scan(&n)
		return n, err
	}
	before := map[string]int64{}
	for _, tbl := range tables {
		before[tbl] = int64(jobs.QueryCount(t, b.wh, "SELECT count(*) FROM "+tbl))
	}

	ctx, stop := context.WithCancel(context.Background())
	type read struct {
		table  string
		mirror bool
		n      int64
		err    error
	}
	reads := make(chan read, 1<<16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		notebook, err := sql.Open("duckdb", "") // a reader of the mirror, in a DuckDB of its own
		if err != nil {
			reads <- read{err: err}
			return
		}
		defer notebook.Close()
		for i := 0; ctx.Err() == nil; i++ {
			tbl := tables[i%len(tables)]
			n, err := count(notebook, tbl, true)
			reads <- read{tbl, true, n, err}
			if i%8 == 0 { // and now and then the published database, opened anew
				db, err := load.OpenReadOnly(ctx, b.dir, load.DefaultOptions())
				if err == nil {
					n, err = count(db, tbl, false)
					db.Close()
				}
				if ctx.Err() == nil {
					reads <- read{tbl, false, n, err}
				}
			}
		}
	}()
	st, err := jobs.Replay(context.Background(), b.wh, jobs.ReplayOptions{ExitCodes: exitCodes})
	stop()
	<-done
	close(reads)
	if err != nil || st.Status != load.StatusOK || st.Quarantined != 0 {
		t.Fatalf("replay: %s, %d quarantined, %v; want ok, the large answers derived", st.Status, st.Quarantined, err)
	}
	after := map[string]int64{}
	for _, tbl := range tables {
		after[tbl] = int64(jobs.QueryCount(t, b.wh, "SELECT count(*) FROM "+tbl))
	}
	if after["eta_observations"] <= before["eta_observations"] || after["dead_letters"] >= before["dead_letters"] {
		t.Fatalf("the replay changed eta_observations %d → %d, dead_letters %d → %d: want more observations, fewer dead letters",
			before["eta_observations"], after["eta_observations"], before["dead_letters"], after["dead_letters"])
	}
	n, bad := 0, 0
	for r := range reads {
		n++
		where := "the published database"
		if r.mirror {
			where = "the mirror"
		}
		if r.err != nil && strings.Contains(r.err.Error(), "No files found") && after[r.table] == 0 {
			r.n, r.err = 0, nil // a table emptied: it has no file, as it will after the replay
		}
		switch {
		case r.err != nil:
			bad++
			t.Errorf("a read of %s in %s failed during the replay: %v", r.table, where, r.err)
		case r.n != before[r.table] && r.n != after[r.table]:
			bad++
			t.Errorf("a read of %s in %s saw %d rows during the replay; want %d (before) or %d (after)", r.table, where, r.n, before[r.table], after[r.table])
		}
		if bad > 5 {
			t.FailNow()
		}
	}
	if n < 10 {
		t.Errorf("only %d reads during the replay", n)
	}
	t.Logf("%d reads during the replay", n)
	loadtest.AsOfOneMoment(t, b.dir)
}

// A replay that stops midway (here a landed body whose checksum no longer
// matches) publishes nothing: readers of the database and of the mirror
// keep the tables as they were, though the working copy was emptied. Its
// row says it failed and was not published. The next job of any kind —
// here a change of the tracked set — derives what the replay had not and
// publishes the tables whole.
func TestAReplayThatStopsPublishesNothingAndTheNextJobFinishesIt(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 10_000, 10_000)
	ships := visible(t, b.env.Service.World(), 20)
	b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}})
	db := loadtest.Published(t, b.dir)
	want := snapshot(t, db)
	db.Close()
	var id, sum string
	if err := b.wh.DB().QueryRow(`SELECT response_id, body_sha256 FROM raw_responses WHERE endpoint = 'shipment' ORDER BY observed_at, response_id LIMIT 1 OFFSET 10`).Scan(&id, &sum); err != nil {
		t.Fatal(err)
	}
	if _, err := b.wh.DB().Exec(`UPDATE raw_responses SET body_sha256 = 'damaged' WHERE response_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	st, err := jobs.Replay(context.Background(), b.wh, jobs.ReplayOptions{ExitCodes: exitCodes})
	if err == nil || st.Status != load.StatusFailed || !strings.Contains(err.Error(), "was not published") {
		t.Fatalf("replay over a damaged body: %s, %v; want failed, not published", st.Status, err)
	}
	if n := jobs.QueryCount(t, b.wh, "SELECT count(*) FROM shipments"); n >= 20 {
		t.Fatalf("the working copy holds %d shipments: the replay did not stop midway", n)
	}
	db = loadtest.Published(t, b.dir)
	got := snapshot(t, db)
	for table, rows := range want {
		if strings.Join(got[table], "\n") != strings.Join(rows, "\n") {
			t.Errorf("readers of the database see %s changed by the stopped replay (%d rows, want %d)", table, len(got[table]), len(rows))
		}
		if tbl, _ := schema.ByName(table); load.Mirrored(tbl) {
			if n := loadtest.MirrorCount(t, db, b.dir, table); n != int64(len(rows)) {
				t.Errorf("readers of the mirror see %d rows of %s after the stopped replay, want the %d before", n, table, len(rows))
			}
		}
	}
	db.Close()
	if _, err := b.wh.DB().Exec(`UPDATE raw_responses SET body_sha256 = ? WHERE response_id = ?`, sum, id); err != nil {
		t.Fatal(err)
	}
	tr, err := jobs.Track(context.Background(), b.wh, nil, jobs.TrackOptions{ExitCodes: exitCodes})
	if err != nil || tr.Run.Status != load.StatusOK {
		t.Fatalf("the next job: %s, %v", tr.Run.Status, err)
	}
	db = loadtest.Published(t, b.dir)
	got = snapshot(t, db)
	for table, rows := range want {
		if strings.Join(got[table], "\n") != strings.Join(rows, "\n") {
			t.Errorf("after the next job readers see %s as %d rows, want the %d before the replay", table, len(got[table]), len(rows))
		}
	}
	if s := one(t, db, "SELECT status || ': ' || error FROM etl_runs WHERE run_id = ?", st.Run); !strings.HasPrefix(s, "failed: ") || !strings.Contains(s, "was not published") {
		t.Errorf("readers see the replay as %q; want failed, not published", s)
	}
	loadtest.AsOfOneMoment(t, b.dir)
}
