package cli

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	views "github.com/etalake/etalake/sql"
)

// pullFleet is a simulator on a virtual clock, a lake on a SQLite
// catalog and local files, and the warehouses of a test of lake pull.
type pullFleet struct {
	env   *simtest.Env
	clock *sim.Clock
	lake  map[string]string // the lake's settings
	dir   string
}

func newPullFleet(t *testing.T, keys ...string) *pullFleet {
	t.Helper()
	clock := sim.NewClock(sim.DefaultStart, 0, nil)
	var specs []sim.KeySpec
	for _, k := range keys {
		specs = append(specs, sim.KeySpec{Key: k, Schedule: simtest.Credits(1_000_000), Tracking: simtest.Credits(1_000_000)})
	}
	// The world before realistic ETA errors (sim.ETAErrors all off): its
	// shipments near their port of discharge at the start, and their
	// carrier's and predictive ETAs a day out, are what fleetWorld and
	// the comparison views need in three nights.
	env := simtest.Start(t, simtest.Options{Keys: specs, Rate: sim.Rate{N: 1000, Window: time.Second}, Clock: clock,
		World: sim.WorldConfig{Errors: &sim.ETAErrors{}}})
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "lake"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &pullFleet{env: env, clock: clock, dir: dir, lake: map[string]string{
		"ETALAKE_LAKE_CATALOG": "sqlite:///" + filepath.Join(dir, "lake", "catalog.db"), "ETALAKE_LAKE_WAREHOUSE": "file://" + filepath.Join(dir, "lake", "files")}}
}

// worker is the settings of a job of the warehouse name asking with key,
// feeding the lake when lake is set.
func (f *pullFleet) worker(name, key string, lake bool, more ...string) map[string]string {
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": f.env.ScheduleURL, "ETALAKE_TRACKING_URL": f.env.TrackingURL,
		"ETALAKE_API_KEY": key, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": filepath.Join(f.dir, name)}
	if lake {
		for k, v := range f.lake {
			vars[k] = v
		}
	}
	for i := 0; i+1 < len(more); i += 2 {
		vars[more[i]] = more[i+1]
	}
	return vars
}

// asked is what a nightly run asks: schedules and a shipments file.
type asked struct {
	ports, lanes, vessels []string
	shipments             []string // CSV rows
}

func (s asked) args(t *testing.T, dir string) []string {
	var args []string
	if len(s.ports) > 0 {
		args = append(args, "--ports", strings.Join(s.ports, ","))
	}
	if len(s.lanes) > 0 {
		args = append(args, "--lanes", strings.Join(s.lanes, ","))
	}
	if len(s.vessels) > 0 {
		args = append(args, "--vessels", strings.Join(s.vessels, ","))
	}
	if len(s.shipments) > 0 {
		path := filepath.Join(dir, fmt.Sprintf("shipments-%d.csv", len(s.shipments)))
		body := "shipment_number,shipment_type,sealine\n" + strings.Join(s.shipments, "\n") + "\n"
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--shipments", path)
	}
	return args
}

// fleetWorld picks from the world what the fleet asks: ports and vessels
// with schedules, the busiest lanes, and shipments on their way at the
// start whose port of discharge is near (so that they arrive within the
// nights, and eta_accuracy has rows).
func fleetWorld(t *testing.T, w *sim.World, n int) asked {
	t.Helper()
	at := w.Config().Start
	var s asked
	for _, p := range w.Ports() {
		if _, err := w.PortSchedule(p.Locode, at); err == nil && len(s.ports) < 4 {
			s.ports = append(s.ports, p.Locode)
		}
	}
	for _, l := range w.Lanes()[:2] {
		s.lanes = append(s.lanes, l.POL+"-"+l.POD)
	}
	for _, v := range w.Vessels() {
		if _, err := w.VesselSchedule(v.IMO, at); err == nil && len(s.vessels) < 2 {
			s.vessels = append(s.vessels, strconv.Itoa(v.IMO))
		}
	}
	for _, ref := range w.Shipments() {
		sh, err := w.Shipment(ref, at)
		if err != nil || sh.Route == nil || sh.Route.Pod == nil || sh.Route.Pod.Date == nil || sh.Delivered() {
			continue
		}
		if d := sh.Route.Pod.Date.Sub(at); d > 0 && d < 6*24*time.Hour {
			s.shipments = append(s.shipments, fmt.Sprintf("%s,%s,%s", ref.Number, ref.Type, ref.Sealine))
		}
		if len(s.shipments) == n {
			break
		}
	}
	if len(s.shipments) < n {
		t.Fatalf("the world has %d shipments arriving within 6 days of its start, want %d", len(s.shipments), n)
	}
	return s
}

// job is one nightly job of the fleet: who runs it and what it asks.
type job struct {
	vars map[string]string
	sel  asked
}

// nights runs the jobs of n nights, 02:00 each virtual night, every job
// of a night at the same virtual time; the first night's adds the
// shipments to each warehouse's tracked set, the later ones refresh it.
func (f *pullFleet) nights(t *testing.T, n int, jobs ...job) {
	t.Helper()
	f.nightsFrom(t, 0, n, jobs...)
}

// nightsFrom is nights from the night of day from (0: the first).
func (f *pullFleet) nightsFrom(t *testing.T, from, n int, jobs ...job) {
	t.Helper()
	for d := from; d < from+n; d++ {
		night := sim.DefaultStart.AddDate(0, 0, d).Add(2 * time.Hour)
		f.clock.Set(night)
		for _, j := range jobs {
			sel := j.sel
			if d > 0 {
				sel.shipments = nil
			}
			args := append([]string{"run", "--date", night.Format(time.DateOnly)}, sel.args(t, f.dir)...)
			if code, stdout, stderr := run(t, j.vars, args...); code != exitOK {
				t.Fatalf("night %s, %s: exit %d\n%s%s", night.Format(time.DateOnly), j.vars["ETALAKE_WAREHOUSE"], code, stdout, stderr)
			}
		}
	}
}

// pull runs etalake lake pull into the warehouse name and returns its
// output.
func (f *pullFleet) pull(t *testing.T, name string) string {
	t.Helper()
	vars := f.worker(name, "", true)
	code, stdout, stderr := run(t, vars, "lake", "pull")
	if code != exitOK {
		t.Fatalf("lake pull: exit %d\n%s%s", code, stdout, stderr)
	}
	return stdout
}

// shardColumns are the columns of the views that differ between two
// warehouses holding the same observations, by nature: what a worker's
// own runs and clock put there, not what was observed.
var shardColumns = map[string][]string{
	// The wall clock of the query (now()), and the newest response in
	// raw_responses, which a pull does not have (it is not in the lake);
	// so is_stale, which is measured from it, and added_at, the wall
	// clock of the job that added the shipment.
	"data_freshness": {"hours_since_observed", "hours_behind_newest", "is_stale", "added_at"},
	// Per run: two workers run twice the jobs of one, each asking the
	// free consumption calls and reading its own key's balance; the
	// credits and calls spent are compared.
	"credit_usage": {"runs", "requests", "balance_schedule_before", "balance_schedule_after", "balance_tracking_before", "balance_tracking_after"},
}

// observed are the contract tables of what was observed, compared whole
// beside the views (response_id included: it is derived from the
// response's content, so the same answer has the same id in every
// warehouse). The ledgers are a worker's own (its runs, the wall clock
// of its track adds), consumption_periods its key's balance, and
// dead_letters is empty here.
var observed = []string{"locations", "facilities", "vessels", "shipments", "eta_observations", "containers", "container_events", "event_observations", "port_calls"}

// sameViews compares every view and analytic table of package sql, and
// the observed tables, in the published warehouses got and want, row for
// row, ordered by every column but those perWarehouse names (a view named with no column is left out), and
// returns the rows of each.
func sameViews(t *testing.T, got, want string, perWarehouse map[string][]string) map[string]int {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for alias, dir := range map[string]string{"got": got, "want": want} {
		if _, err := db.Exec(fmt.Sprintf("ATTACH '%s' AS %s (READ_ONLY)", filepath.Join(dir, "etalake.duckdb"), alias)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec("USE got"); err != nil { // the views name their tables unqualified
		t.Fatal(err)
	}
	vs, err := views.Views()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range vs {
		switch {
		case v.View != "":
			names = append(names, v.View)
		case v.Table != "":
			names = append(names, v.Table)
		}
	}
	counts := map[string]int{}
	for _, name := range append(names, observed...) {
		skip, ok := perWarehouse[name]
		if ok && len(skip) == 0 {
			continue // not comparable at all: the caller says why
		}
		var cols []string
		rows, err := db.Query("SELECT column_name FROM duckdb_columns() WHERE database_name = 'got' AND table_name = ? ORDER BY column_index", name)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(skip, c) {
				cols = append(cols, `"`+c+`"`)
			}
		}
		rows.Close()
		a := viewRows(t, db, "got", name, cols)
		b := viewRows(t, db, "want", name, cols)
		counts[name] = len(a)
		if len(a) != len(b) {
			t.Errorf("%s: %d rows in the pull, %d in the warehouse holding everything", name, len(a), len(b))
		}
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Errorf("%s: row %d differs (%s):\n pull: %s\n  one: %s", name, i, strings.Join(cols, ", "), a[i], b[i])
				break
			}
		}
	}
	return counts
}

// viewRows reads the view name of the database alias, its columns cols,
// ordered by all of them, each row rendered.
func viewRows(t *testing.T, db *sql.DB, alias, name string, cols []string) []string {
	t.Helper()
	// The views read their tables unqualified: from the database USEd.
	if _, err := db.Exec("USE " + alias); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(fmt.Sprintf("SELECT %s FROM %s.%s ORDER BY ALL", strings.Join(cols, ", "), alias, name))
	if err != nil {
		t.Fatalf("%s.%s: %v", alias, name, err)
	}
	defer rows.Close()
	var out []string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = fmt.Sprint(v)
			if f, ok := v.(float64); ok {
				// A mean or a sum of doubles differs in its last bits
				// with the order DuckDB's threads add the rows in, which
				// follows the rows' physical order, not their values.
				cells[i] = strconv.FormatFloat(f, 'g', 12, 64)
			}
		}
		out = append(out, strings.Join(cells, " | "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Two workers of one key, --shard 1/2 and --shard 2/2, feed one lake for
// three nights; a third warehouse runs the same nights unsharded with
// another key, on the same world at the same virtual times. After lake
// pull, every view and analytic table of package sql over the pull
// equals, row for row, the one over the warehouse that asked everything
// itself (but for the columns shardColumns names, and why).
func TestLakePullEqualsOneWarehouseOfTheShards(t *testing.T) {
	slowtest.Long(t)
	const key, ref = "worker-KEY-5b1e", "reference-KEY-77c0"
	f := newPullFleet(t, key, ref)
	sel := fleetWorld(t, f.env.Service.World(), 24)
	f.nights(t, 3,
		job{f.worker("shard1", key, true, "ETALAKE_SHARD", "1/2"), sel},
		job{f.worker("shard2", key, true, "ETALAKE_SHARD", "2/2"), sel},
		job{f.worker("one", ref, false), sel})
	out := f.pull(t, "pull")
	if !regexp.MustCompile(`(?m)^lake pull: .*: 13 tables, 2 writers`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^ *etl_runs +[0-9]+ +\S+ +whole +2 +6 +6 *$`).MatchString(out) {
		t.Errorf("lake pull says:\n%s\nwant 13 tables and 2 writers read, etl_runs with 6 runs of 2 writers, its snapshot id", out)
	}
	counts := sameViews(t, filepath.Join(f.dir, "pull"), filepath.Join(f.dir, "one"), shardColumns)
	// What the pull's data_freshness lacks without raw_responses, as
	// lake pull --help and README say.
	db := attached(t, f.dir, "pull")
	if n := queryInt(t, db, "SELECT count(*) FROM pull.data_freshness WHERE hours_behind_newest IS NOT NULL OR (state = 'active' AND last_observed_at IS NOT NULL AND is_stale IS NOT NULL)"); n != 0 {
		t.Errorf("the pull's data_freshness has %d rows with hours_behind_newest, or is_stale of an observed active shipment; the help says it has none", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pull.lake_pull WHERE snapshot_id IS NOT NULL AND len(writers) = 2"); n < 10 {
		t.Errorf("lake_pull names %d tables read at a snapshot from 2 writers", n)
	}
	for _, v := range []string{"eta_accuracy", "eta_accuracy_comparison", "schedule_reliability", "port_call_reliability", "event_timeliness", "data_freshness", "credit_usage"} {
		if counts[v] == 0 {
			t.Errorf("%s has no rows: the comparison shows nothing", v)
		}
	}
	t.Logf("rows compared per view: %v", counts)
}

// A second lake pull reads what the nights since the first changed, not
// the lake: every table committed to is read as changes (in a lake this
// small the upkeep rewrites most files within two nights, so the rows
// read are no fewer: bench/growth measures a pull's cost), and the pull
// then equals, table for table and view for view, a pull that read the
// lake whole (a new directory, and --full on the same one).
func TestLakePullReadsWhatChangedAndEqualsAWholePull(t *testing.T) {
	slowtest.Long(t)
	const key = "worker-KEY-31d7"
	f := newPullFleet(t, key)
	sel := fleetWorld(t, f.env.Service.World(), 24)
	shards := []job{
		{f.worker("shard1", key, true, "ETALAKE_SHARD", "1/2"), sel},
		{f.worker("shard2", key, true, "ETALAKE_SHARD", "2/2"), sel},
	}
	f.nights(t, 2, shards...)
	f.pull(t, "pull")
	f.nightsFrom(t, 2, 2, shards...)
	out := f.pull(t, "pull")
	changed := 0
	for _, m := range regexp.MustCompile(`(?m)^ *(\w+) +[0-9]+ +\S+ +(changes|whole) +[0-9]+ +[0-9]+ +[0-9]+ *$`).FindAllStringSubmatch(out, -1) {
		if m[2] != "changes" {
			t.Errorf("the second pull read %s whole", m[1])
		}
		changed++
	}
	if changed < 10 {
		t.Errorf("the second pull read %d tables as changes:\n%s", changed, out)
	}
	whole := f.pull(t, "whole")
	sameViews(t, filepath.Join(f.dir, "pull"), filepath.Join(f.dir, "whole"), shardColumns)
	db := attached(t, f.dir, "pull", "whole")
	for _, tbl := range []string{"etl_runs", "tracked_shipments", "dead_letters", "consumption_periods"} {
		q := fmt.Sprintf("SELECT count(*) FROM ((SELECT * FROM pull.%[1]s EXCEPT ALL SELECT * FROM whole.%[1]s) UNION ALL (SELECT * FROM whole.%[1]s EXCEPT ALL SELECT * FROM pull.%[1]s))", tbl)
		if n := queryInt(t, db, q); n != 0 {
			t.Errorf("%s: %d rows differ between the pull of changes and the whole pull", tbl, n)
		}
	}
	db.Close()
	if !strings.Contains(whole, " whole ") {
		t.Errorf("a pull to a new directory did not read the lake whole:\n%s", whole)
	}
	vars := f.worker("pull", "", true)
	code, stdout, stderr := run(t, vars, "lake", "pull", "--full")
	if code != exitOK || strings.Contains(stdout, " changes ") {
		t.Fatalf("lake pull --full: exit %d, want every table read whole\n%s%s", code, stdout, stderr)
	}
	sameViews(t, filepath.Join(f.dir, "pull"), filepath.Join(f.dir, "whole"), shardColumns)
}

// Two keys whose tracked sets and schedules overlap feed one lake: A
// tracks shipments 0–15 and asks ports 0–2 and the lanes, B tracks 8–23
// and asks ports 2–3 and the vessels, each for four nights at the same
// virtual times; a third warehouse asks the union (shipments 0–23, ports
// 0–3, lanes and vessels) with a key of its own.
//
// Equal here means: the pull equals one warehouse that tracked the union.
// A shipment both keys track is one shipment of the pull (one row in
// shipments and tracked_shipments, counted once by every view), and its
// ETA history is the union of the two keys' histories. The simulator
// answers the same resource at the same virtual time alike whatever the
// key (its answers are the world's at that time; only the balances are
// per key), which the test checks first: the two keys' observations of
// the shipments they share are the same rows, response ids included, so
// the union adds none and the pull's history of each equals the
// reference's. What is not equal, by nature: the credits. Both keys pay
// for what they share, so the pull's credit_usage is the sum of the two
// keys' spending (checked), which one warehouse tracking the union does
// not spend; the other columns shardColumns names differ as they do for
// shards.
func TestLakePullOfOverlappingKeysEqualsTheUnion(t *testing.T) {
	slowtest.Require(t, "three warehouses over four nights, about 20 s; the quick tier pulls two shards (TestLakePullEqualsOneWarehouseOfTheShards)")
	const keyA, keyB, ref = "fleet-A-KEY-0d2c", "fleet-B-KEY-9a41", "reference-KEY-77c0"
	f := newPullFleet(t, keyA, keyB, ref)
	all := fleetWorld(t, f.env.Service.World(), 24)
	a := asked{ports: all.ports[:3], lanes: all.lanes, shipments: all.shipments[:16]}
	b := asked{ports: all.ports[2:], vessels: all.vessels, shipments: all.shipments[8:]}
	f.nights(t, 4,
		job{f.worker("a", keyA, true), a},
		job{f.worker("b", keyB, true), b},
		job{f.worker("one", ref, false), all})
	f.pull(t, "pull")

	// The simulator's answers to two keys at one virtual time are alike.
	var shared []string
	for _, row := range all.shipments[8:16] {
		shared = append(shared, schemaLiteral(strings.Split(row, ",")[0]))
	}
	hist := func(name string) string {
		return fmt.Sprintf("SELECT * EXCLUDE (observed_date) FROM %s.eta_observations WHERE shipment_number IN (%s)", name, strings.Join(shared, ", "))
	}
	db := attached(t, f.dir, "a", "b", "pull", "one")
	if n := queryInt(t, db, "SELECT count(*) FROM ("+hist("a")+")"); n == 0 {
		t.Fatal("the shared shipments have no ETA observed")
	}
	for _, q := range []string{
		"SELECT count(*) FROM ((" + hist("a") + ") EXCEPT ALL (" + hist("b") + "))",
		"SELECT count(*) FROM ((" + hist("b") + ") EXCEPT ALL (" + hist("a") + "))",
		"SELECT count(*) FROM ((" + hist("pull") + ") EXCEPT ALL ((" + hist("a") + ") UNION (" + hist("b") + ")))",
		"SELECT count(*) FROM (((" + hist("a") + ") UNION (" + hist("b") + ")) EXCEPT ALL (" + hist("pull") + "))",
	} {
		if n := queryInt(t, db, q); n != 0 {
			t.Errorf("%d rows differ: %s", n, q)
		}
	}
	for _, tbl := range []string{"shipments", "tracked_shipments"} {
		if n := queryInt(t, db, "SELECT count(*) FROM pull."+tbl); n != 24 {
			t.Errorf("the pull's %s has %d rows, want the union's 24 (8 shared, counted once)", tbl, n)
		}
	}
	// The credits: the pull's spending is both keys'.
	spent := "SELECT logical_date, sum(credits_schedule), sum(calls_tracking) FROM %s GROUP BY ALL"
	sum := fmt.Sprintf(spent, "(SELECT * FROM a.credit_usage UNION ALL SELECT * FROM b.credit_usage)")
	pulled := fmt.Sprintf(spent, "pull.credit_usage")
	if n := queryInt(t, db, "SELECT count(*) FROM (("+sum+") EXCEPT ALL ("+pulled+"))") + queryInt(t, db, "SELECT count(*) FROM (("+pulled+") EXCEPT ALL ("+sum+"))"); n != 0 {
		t.Errorf("the pull's credit_usage differs from the sum of the two keys' on %d rows", n)
	}
	db.Close()

	overlap := map[string][]string{"credit_usage": nil}
	for k, v := range shardColumns {
		if k != "credit_usage" {
			overlap[k] = v
		}
	}
	counts := sameViews(t, filepath.Join(f.dir, "pull"), filepath.Join(f.dir, "one"), overlap)
	if counts["eta_accuracy"] == 0 || counts["data_freshness"] != 24 {
		t.Errorf("rows compared: %v; want eta_accuracy rows and the 24 shipments in data_freshness", counts)
	}
}

// schemaLiteral quotes s as a SQL string.
func schemaLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// attached is an in-memory DuckDB with the published warehouses names
// (under dir) attached by their names.
func attached(t *testing.T, dir string, names ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, n := range names {
		if _, err := db.Exec(fmt.Sprintf("ATTACH '%s' AS %s (READ_ONLY)", filepath.Join(dir, n, "etalake.duckdb"), n)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func queryInt(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// A pull's warehouse is the pull's: every writer refuses it (exit 2,
// saying what it is and where jobs run), and a pull refuses a worker's
// warehouse, leaving it as it was. A second pull replaces the first;
// etalake sql and report read a pull.
func TestLakePullAndWritersKeepToTheirOwnWarehouses(t *testing.T) {
	slowtest.Long(t)
	const key = "worker-KEY-5b1e"
	f := newPullFleet(t, key)
	sel := fleetWorld(t, f.env.Service.World(), 6)
	worker := f.worker("worker", key, true)
	f.nights(t, 1, job{worker, sel})
	f.pull(t, "pull")
	pull := f.worker("pull", key, true)

	csv := sel.args(t, f.dir)[len(sel.args(t, f.dir))-1]
	ref := strings.ReplaceAll(strings.Split(sel.shipments[0], ",")[0], "'", "")
	responses := filepath.Join(f.dir, "responses.json") // import reads JSON, not the selection's CSV
	if err := os.WriteFile(responses, []byte(`{"hello":"world"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--date", "2026-01-06"},
		{"backfill", "--yes", "--date", "2026-01-06", "--ports", sel.ports[0]},
		{"replay"},
		{"import", responses},
		{"track", "add", "--shipments", csv},
		{"track", "rm", "--shipments", csv},
		{"demo", "--days", "1", "--warehouse", pull["ETALAKE_WAREHOUSE"]}, // its own default, not ETALAKE_WAREHOUSE
	} {
		code, stdout, stderr := run(t, pull, args...)
		if code != exitUsage || !strings.Contains(stderr, "is a pull of the lake") || !strings.Contains(stderr, "run jobs on a worker's warehouse") {
			t.Errorf("%s on a pull: exit %d, want %d saying it is a pull and to run jobs on a worker's warehouse:\n%s%s", args[0], code, exitUsage, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "pull", "etalake.duckdb")); err != nil {
		t.Fatalf("the demo removed the pull: %v", err)
	}

	db := attached(t, f.dir, "worker")
	runs := queryInt(t, db, "SELECT count(*) FROM worker.etl_runs")
	db.Close()
	code, stdout, stderr := run(t, f.worker("worker", key, true), "lake", "pull")
	if code != exitUsage || !strings.Contains(stderr, "is a worker's warehouse") || !strings.Contains(stderr, "never writes over a worker's") {
		t.Errorf("lake pull on a worker's warehouse: exit %d, want %d refusing it:\n%s%s", code, exitUsage, stdout, stderr)
	}
	db = attached(t, f.dir, "worker")
	if n := queryInt(t, db, "SELECT count(*) FROM worker.etl_runs"); n != runs {
		t.Errorf("the refused pull changed the worker's etl_runs: %d runs, had %d", n, runs)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM duckdb_tables() WHERE database_name = 'worker' AND table_name = 'lake_pull'"); n != 0 {
		t.Error("the refused pull marked the worker's warehouse")
	}
	db.Close()

	// A second night, a second pull: it replaces the first.
	snapshot := func() string {
		_, out, _ := run(t, pull, "sql", "--format", "csv", "SELECT snapshot_id, rows_kept FROM lake_pull WHERE table_name = 'etl_runs'")
		return out
	}
	first := snapshot()
	f.clock.Set(sim.DefaultStart.AddDate(0, 0, 1).Add(2 * time.Hour))
	if code, stdout, stderr := run(t, worker, "run", "--date", "2026-01-06"); code != exitOK {
		t.Fatalf("night 2: exit %d\n%s%s", code, stdout, stderr)
	}
	f.pull(t, "pull")
	second := snapshot()
	if first == second || !strings.HasSuffix(second, ",2\n") {
		t.Errorf("lake_pull's etl_runs: %q after the first pull, %q after the second; want a new snapshot holding 2 runs", first, second)
	}
	if code, out, stderr := run(t, pull, "sql", "--format", "csv", "SELECT count(*) AS n FROM tracked_shipments WHERE shipment_number = '"+ref+"'"); code != exitOK || out != "n\n1\n" {
		t.Errorf("etalake sql on the pull: exit %d, %q%s; want the shipment tracked once", code, out, stderr)
	}
	if code, out, stderr := run(t, pull, "report"); code != exitOK || !strings.Contains(out, "Schedule reliability") {
		t.Errorf("etalake report on the pull: exit %d\n%s%s", code, out, stderr)
	}
}
