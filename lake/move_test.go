package lake_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/sim"
)

// jobLog is the JSON log of the jobs of a test and of the lakes it
// opens, as a user reads it.
type jobLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (j *jobLog) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.buf.Write(p)
}

func (j *jobLog) logger() *slog.Logger { return slog.New(slog.NewJSONHandler(j, nil)) }

// take returns the lines logged since the last take, and forgets them.
func (j *jobLog) take(t *testing.T) []map[string]any {
	t.Helper()
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []map[string]any
	for line := range strings.Lines(j.buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	j.buf.Reset()
	return out
}

// night is a job that changes one night of the warehouse in dir: a replay
// of the template's second day, committed to lk. It returns lake_rows of
// its publish line, and the tables its lines say it committed whole, by
// reason.
func night(t *testing.T, dir string, lk *lake.Lake, log *jobLog) (int64, map[string]string) {
	t.Helper()
	d := sim.DefaultStart.AddDate(0, 0, 1)
	if err := replay(context.Background(), dir, load.Options{Lake: lk}, jobs.ReplayOptions{From: d, To: d.AddDate(0, 0, 1), Log: log.logger()}); err != nil {
		t.Fatal(err)
	}
	rows := int64(-1)
	whole := map[string]string{}
	for _, m := range log.take(t) {
		switch m["msg"] {
		case "published the warehouse for readers":
			if n, ok := m["lake_rows"].(float64); ok {
				rows = int64(n)
			}
		case "lake: committing this warehouse's whole table: the lake table lacks its history":
			whole[m["table"].(string)] = m["reason"].(string)
		}
	}
	if rows < 0 {
		t.Fatal("the job logged no lake_rows")
	}
	return rows, whole
}

// warehouseRows is how many rows the mirrored tables of the published
// warehouse in dir hold.
func warehouseRows(t *testing.T, dir string) int64 {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "etalake.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var total int64
	for _, tbl := range lake.Tables() {
		total += count(t, db, "SELECT count(*) FROM "+schema.Ident(tbl.Name))
	}
	return total
}

// moved feeds a warehouse with history to the lake from, runs a night's
// job with it, then points the warehouse at the lake to: its first job
// there commits the whole warehouse, every table saying why (reason),
// and the lake equals the warehouse, table by table; the next job
// commits only its changes again, as many rows as the night's job
// committed to the first lake.
func moved(t *testing.T, from, to lake.Config, reason string) string {
	t.Helper()
	return movedFrom(t, template(t), from, to, reason)
}

// movedFrom is moved with the warehouse copied from tpl.
func movedFrom(t *testing.T, tpl string, from, to lake.Config, reason string) string {
	t.Helper()
	log := &jobLog{}
	first := open(t, from, lake.Options{Log: log.logger()})
	dir := fedFrom(t, first, tpl)
	log.take(t) // the warehouse's first commit, whole
	before, whole := night(t, dir, first, log)
	if len(whole) != 0 {
		t.Errorf("a job on the lake the warehouse fed committed %v whole", whole)
	}
	first.Close()

	lk := open(t, to, lake.Options{Log: log.logger()})
	rows, whole := night(t, dir, lk, log)
	checkLake(t, lk, dir)
	if all := warehouseRows(t, dir); rows != all {
		t.Errorf("the first job on the new lake committed %d rows, the warehouse holds %d", rows, all)
	}
	for _, tbl := range lake.Tables() {
		if whole[tbl.Name] != reason {
			t.Errorf("%s: the log says %q, want %q", tbl.Name, whole[tbl.Name], reason)
		}
	}

	again, whole := night(t, dir, lk, log)
	checkLake(t, lk, dir)
	if again != before || len(whole) != 0 {
		t.Errorf("the next job on the new lake committed %d rows (%v whole), the same job on the first lake %d", again, whole, before)
	}
	t.Logf("the night: %d rows; the move: %d rows", before, rows)
	return dir
}

// A warehouse that fed a lake on a SQLite catalog, pointed at one
// cataloged in Postgres, gives it its whole history; the warehouse
// records the catalog without the password of its URL.
func TestAWarehouseMovedFromSQLiteToPostgresGivesTheNewLakeItsHistory(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	u, err := url.Parse(pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	// The private server trusts loopback: the password is not checked,
	// only carried.
	u.User = url.UserPassword(u.User.Username(), "s3cret-catalog-password")
	to := lake.Config{Catalog: u.String(), Warehouse: "file://" + filepath.Join(t.TempDir(), "files")}
	dir := moved(t, localLake(t), to, lake.ReasonOtherLake)

	// The lake is committed after the publish: the job's record is in
	// the warehouse's working database, and the next job publishes it.
	db, err := sql.Open("duckdb", filepath.Join(dir, ".work", "etalake.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count(t, db, "SELECT count(*) FROM lake_tables WHERE catalog LIKE '%s3cret%'"); n != 0 {
		t.Errorf("lake_tables holds the catalog's password in %d rows", n)
	}
	if n := count(t, db, "SELECT count(*) FROM lake_tables WHERE catalog = "+schema.Literal(strings.Replace(to.Catalog, ":s3cret-catalog-password", "", 1))); n != int64(len(lake.Tables())) {
		t.Errorf("lake_tables names the Postgres catalog for %d tables, want %d", n, len(lake.Tables()))
	}
}

// A warehouse that fed a lake on local files, pointed at one on S3, gives
// it its whole history.
func TestAWarehouseMovedFromFilesToS3GivesTheNewLakeItsHistory(t *testing.T) {
	slowtest.Long(t)
	moved(t, localLake(t), s3Lake(t), lake.ReasonOtherLake)
}

// A lake whose tables were dropped (and are created anew by the next
// commit, with new table uuids) gets the writer's whole history of those
// tables, and only of those.
func TestADroppedLakeTableGetsTheWholeTableAgain(t *testing.T) {
	slowtest.Long(t)
	droppedTables(t, template(t))
}

// droppedTables is the test above for a warehouse copied from tpl.
func droppedTables(t *testing.T, tpl string) {
	t.Helper()
	cfg := localLake(t)
	log := &jobLog{}
	lk := open(t, cfg, lake.Options{Log: log.logger()})
	dir := fedFrom(t, lk, tpl)
	before, _ := night(t, dir, lk, log)
	lk.Close()

	dropped := []string{schema.PortCalls.Name, schema.ETLRuns.Name}
	dropTables(t, cfg, dropped...)
	lk = open(t, cfg, lake.Options{Log: log.logger()})
	rows, whole := night(t, dir, lk, log)
	checkLake(t, lk, dir)
	var got []string
	for name, why := range whole {
		got = append(got, name)
		if why != lake.ReasonRecreated {
			t.Errorf("%s: the log says %q, want %q", name, why, lake.ReasonRecreated)
		}
	}
	slices.Sort(got)
	slices.Sort(dropped)
	if !slices.Equal(got, dropped) {
		t.Errorf("the tables committed whole are %v, want the dropped %v", got, dropped)
	}
	if rows <= before {
		t.Errorf("the job after the drop committed %d rows, the night alone %d", rows, before)
	}
	again, whole := night(t, dir, lk, log)
	if again != before || len(whole) != 0 {
		t.Errorf("the next job committed %d rows (%v whole), the night alone %d", again, whole, before)
	}
	checkLake(t, lk, dir)
}

// A warehouse that fed a lake with a binary that did not record its lake
// (no lake_tables) keeps committing only its changes to that lake, whose
// tables hold its rows; pointed at a fresh lake, it gives it its whole
// history (the issue: 3 365 rows of a warehouse's 19 433 went to the new
// lake, and the job exited 0).
func TestAWarehouseWithoutARecordOfItsLakeGivesAFreshLakeItsHistory(t *testing.T) {
	slowtest.Long(t)
	log := &jobLog{}
	cfg := localLake(t)
	lk := open(t, cfg, lake.Options{Log: log.logger()})
	dir := fed(t, lk)
	before, _ := night(t, dir, lk, log)

	forget := func() {
		db, err := sql.Open("duckdb", filepath.Join(dir, ".work", "etalake.duckdb"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("DROP TABLE lake_tables"); err != nil {
			t.Fatal(err)
		}
	}
	forget()
	rows, whole := night(t, dir, lk, log)
	if rows != before || len(whole) != 0 {
		t.Errorf("on the lake it fed, a warehouse without lake_tables committed %d rows (%v whole), the night alone %d", rows, whole, before)
	}
	checkLake(t, lk, dir)
	lk.Close()

	forget()
	fresh := open(t, localLake(t), lake.Options{Log: log.logger()})
	rows, whole = night(t, dir, fresh, log)
	checkLake(t, fresh, dir)
	if all := warehouseRows(t, dir); rows != all {
		t.Errorf("the first job on the fresh lake committed %d rows, the warehouse holds %d", rows, all)
	}
	for name, why := range whole {
		if why != lake.ReasonMissing {
			t.Errorf("%s: the log says %q, want %q", name, why, lake.ReasonMissing)
		}
	}
	if len(whole) == 0 {
		t.Error("no log line said a table was committed whole")
	}
}

// dropTables drops lake tables in the lake's SQLite catalog, as a user of
// Spark or PyIceberg would (DROP TABLE: the catalog forgets them, their
// files stay).
func dropTables(t *testing.T, cfg lake.Config, names ...string) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(cfg.Catalog, "sqlite:///"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cat, err := sqlcat.NewCatalog(lake.CatalogName, db, sqlcat.SQLite, iceberg.Properties{"warehouse": cfg.Warehouse})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := cat.DropTable(ctx, table.Identifier{lake.Namespace, n}); err != nil {
			t.Fatalf("dropping %s: %v", n, err)
		}
	}
}

// The trial, in the slow tier: a warehouse of 30 nights of
// history moved from SQLite to Postgres, from local files to S3, and fed
// again to its lake after two of its tables were dropped. Each new lake
// equals the warehouse, table by table, after one job, and the job after
// it commits only its changes.
func TestAWarehouseOfThirtyNightsMovesBetweenLakes(t *testing.T) {
	slowtest.Require(t, "a demo warehouse of 30 nights, moved three ways")
	tpl := template30(t)
	t.Run("sqlite to postgres", func(t *testing.T) {
		to := lake.Config{Catalog: pgtest.Start(t).URL, Warehouse: "file://" + filepath.Join(t.TempDir(), "files")}
		movedFrom(t, tpl, localLake(t), to, lake.ReasonOtherLake)
	})
	t.Run("files to s3", func(t *testing.T) {
		movedFrom(t, tpl, localLake(t), s3Lake(t), lake.ReasonOtherLake)
	})
	t.Run("tables dropped", func(t *testing.T) { droppedTables(t, tpl) })
}
