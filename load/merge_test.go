package load_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// Rows of the tables the suite loads, one per Kind: eta_observations
// (Append), containers (Latest), vessels (Dimension), etl_runs (Ledger).
// Times are RFC 3339 in UTC, whole seconds.

func etaObs(num, observed, eta, rid string) row {
	return row{"shipment_number": num, "shipment_type": "CT", "target": "POD", "source": "CARRIER",
		"observed_at": observed, "locode": "NLRTM", "eta": eta, "is_actual": false,
		"response_id": rid, "observed_date": observed[:10]}
}

func container(num, status, at, rid string) row {
	return row{"shipment_number": "S1", "container_number": num, "shipment_type": "CT", "iso_code": "45G1",
		"status": status, "first_observed_at": at, "last_observed_at": at, "response_id": rid,
		"first_observed_date": at[:10]}
}

// merged is the row a Latest table should hold: r's values with another
// First (and its partition).
func merged(r row, first string) row {
	out := row{}
	for k, v := range r {
		out[k] = v
	}
	out["first_observed_at"], out["first_observed_date"] = first, first[:10]
	return out
}

func vessel(imo int64, name, at, rid string) row {
	return row{"imo": imo, "name": name, "flag": "NL", "first_seen_at": at, "last_seen_at": at,
		"response_id": rid, "first_seen_date": at[:10]}
}

func run(id, status, started string, requests int64) row {
	return row{"run_id": id, "job": "run", "logical_date": started[:10], "started_at": started, "status": status,
		"requests": requests, "credits_spent_schedule": 0, "credits_uncertain_schedule": 0, "calls_tracking": 0,
		"calls_uncertain_tracking": 0, "rows_loaded": `{"eta_observations":3}`, "version": "test",
		"started_date": started[:10]}
}

// line renders r as the stores render a row of tbl.
func line(tbl *schema.Table, r row) string {
	s := ""
	for i, c := range tbl.Columns {
		if i > 0 {
			s += "|"
		}
		switch v := r[c.Name]; {
		case v == nil:
			s += "NULL"
		case c.Type == schema.Timestamp:
			s += timestamp(v.(string))
		case c.Type == schema.Seen:
			g := v.(gave)
			s += fmt.Sprintf("{'%s': '%s', '%s': %s}", schema.SeenAt, timestamp(g.at), schema.SeenResponse, g.rid)
		default:
			s += fmt.Sprint(v)
		}
	}
	return s
}

// timestamp renders an RFC 3339 time as DuckDB casts a TIMESTAMPTZ to
// VARCHAR in UTC.
func timestamp(rfc3339 string) string {
	ts, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		panic(err)
	}
	return ts.UTC().Format("2006-01-02 15:04:05") + "+00"
}

func lines(tbl *schema.Table, rows ...row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = line(tbl, r)
	}
	return sorted(out...)
}

// mergeCase is one case of the suite, run against both stores.
type mergeCase struct {
	name string
	run  func(t *testing.T, st store)
}

var mergeCases = []mergeCase{
	{"append keeps one row per key, the smaller response_id", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		a := etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r2")
		b := etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-08T00:00:00Z", "r1") // same key
		c := etaObs("S1", "2024-01-02T10:00:00Z", "2024-01-08T00:00:00Z", "r3")
		d := etaObs("S2", "2024-01-02T11:00:00Z", "2024-01-10T00:00:00Z", "r3")
		stats := load1(t, w, mem, schema.ETAObservations, a, b, c, d)
		if got := stats.Rows["eta_observations"]; got != 3 {
			t.Errorf("stats: %d rows, want 3", got)
		}
		equal(t, "rows", st.rows(t, w, schema.ETAObservations), lines(schema.ETAObservations, b, c, d))
	}},
	{"append: load twice = load once", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		rows := []row{
			etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1"),
			etaObs("S2", "2024-01-03T10:00:00Z", "2024-01-09T00:00:00Z", "r2"),
		}
		load1(t, w, mem, schema.ETAObservations, rows...)
		once := st.rows(t, w, schema.ETAObservations)
		files := fileTimes(t, w, schema.ETAObservations)
		stats := load1(t, w, mem, schema.ETAObservations, rows...)
		if n := stats.Rows["eta_observations"]; n != 0 {
			t.Errorf("second load changed %d rows", n)
		}
		equal(t, "twice", st.rows(t, w, schema.ETAObservations), once)
		equal(t, "once", once, lines(schema.ETAObservations, rows...))
		if !maps(files, fileTimes(t, w, schema.ETAObservations)) {
			t.Errorf("the second load rewrote partition files")
		}
	}},
	{"append: order does not matter", func(t *testing.T, st store) {
		mem := checkedMem(t)
		b1 := []row{
			etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r7"),
			etaObs("S2", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r7"),
		}
		b2 := []row{
			etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-07T00:00:00Z", "r3"), // same key as b1[0], smaller id
			etaObs("S3", "2024-01-04T10:00:00Z", "2024-01-09T00:00:00Z", "r3"),
		}
		want := lines(schema.ETAObservations, b1[1], b2[0], b2[1])
		for _, order := range [][][]row{{b1, b2}, {b2, b1}} {
			w := freshWarehouse(t)
			for _, b := range order {
				load1(t, w, mem, schema.ETAObservations, b...)
				st.rows(t, w, schema.ETAObservations) // sync between loads too
			}
			equal(t, "rows", st.rows(t, w, schema.ETAObservations), want)
		}
	}},
	{"latest: newest values, first seen, whatever the order", func(t *testing.T, st store) {
		mem := checkedMem(t)
		o1 := container("C1", "GATE_OUT", "2024-01-01T08:00:00Z", "r1")
		o2 := container("C1", "LOADED", "2024-01-02T08:00:00Z", "r2")
		o3 := container("C1", "DISCHARGED", "2024-01-05T08:00:00Z", "r3")
		other := container("C2", "GATE_OUT", "2024-01-02T09:00:00Z", "r2")
		want := lines(schema.Containers, merged(o3, "2024-01-01T08:00:00Z"), other)
		for _, order := range [][]row{{o1, o2, o3, other}, {o3, o1, other, o2}, {other, o2, o3, o1}} {
			w := freshWarehouse(t)
			for _, r := range order {
				load1(t, w, mem, schema.Containers, r)
				st.rows(t, w, schema.Containers)
			}
			equal(t, fmt.Sprint("one by one ", order[0]["status"]), st.rows(t, w, schema.Containers), want)
			// The same rows again, all in one batch: nothing changes.
			stats := load1(t, w, mem, schema.Containers, order...)
			if n := stats.Rows["containers"]; n != 0 {
				t.Errorf("reloading changed %d rows", n)
			}
			equal(t, "reloaded", st.rows(t, w, schema.Containers), want)
		}
		w := freshWarehouse(t)
		load1(t, w, mem, schema.Containers, o2, o1, other, o3)
		equal(t, "one batch", st.rows(t, w, schema.Containers), want)
	}},
	{"latest: a re-observation of the same values moves only last_observed_at", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		o1 := container("C1", "LOADED", "2024-01-01T08:00:00Z", "r1")
		o1["iso_code"] = nil // a null stays a null: the same value, not a change
		other := container("C2", "GATE_OUT", "2024-01-01T09:00:00Z", "r1")
		load1(t, w, mem, schema.Containers, o1, other)
		again := container("C1", "LOADED", "2024-01-03T08:00:00Z", "r3")
		again["iso_code"] = nil
		stats := load1(t, w, mem, schema.Containers, again)
		if n := stats.Rows["containers"]; n != 1 {
			t.Errorf("stats: %d rows changed, want 1", n)
		}
		want := merged(again, "2024-01-01T08:00:00Z")
		equal(t, "touched", st.rows(t, w, schema.Containers), lines(schema.Containers, want, other))
		// The null filled in: a change of values, the row replaced.
		filled := container("C1", "LOADED", "2024-01-04T08:00:00Z", "r4")
		load1(t, w, mem, schema.Containers, filled)
		equal(t, "changed", st.rows(t, w, schema.Containers), lines(schema.Containers, merged(filled, "2024-01-01T08:00:00Z"), other))
		// An older observation of the same values is no touch: nothing moves.
		if n := load1(t, w, mem, schema.Containers, again).Rows["containers"]; n != 0 {
			t.Errorf("an older observation changed %d rows", n)
		}
	}},
	{"latest: an older observation moves the row to an earlier partition", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		o2 := container("C1", "LOADED", "2024-01-02T08:00:00Z", "r2")
		o3 := container("C1", "DISCHARGED", "2024-01-05T08:00:00Z", "r3")
		stay := container("C2", "GATE_OUT", "2024-01-02T09:00:00Z", "r2")
		load1(t, w, mem, schema.Containers, o2, o3, stay)
		equal(t, "before", st.rows(t, w, schema.Containers), lines(schema.Containers, merged(o3, "2024-01-02T08:00:00Z"), stay))
		o1 := container("C1", "GATE_OUT", "2024-01-01T08:00:00Z", "r1")
		stats := load1(t, w, mem, schema.Containers, o1)
		if n := stats.Rows["containers"]; n != 1 {
			t.Errorf("stats: %d rows changed, want 1", n)
		}
		equal(t, "after", st.rows(t, w, schema.Containers), lines(schema.Containers, merged(o3, "2024-01-01T08:00:00Z"), stay))
		// The row moved to its new partition's file.
		for _, c := range []struct{ date, want string }{{"2024-01-01", "C1"}, {"2024-01-02", "C2"}} {
			file := filepath.Join(w.Dir(), "parquet", "containers", "first_observed_date="+c.date, "data.parquet")
			got := query(t, w.DB(), "SELECT container_number FROM read_parquet(?)", file)
			equal(t, c.date, got, []string{c.want})
		}
	}},
	{"dimension: newest name, ties by response_id", func(t *testing.T, st store) {
		mem := checkedMem(t)
		a := vessel(9321483, "OLD NAME", "2024-01-01T00:00:00Z", "r1")
		b := vessel(9321483, "NEW NAME", "2024-02-01T00:00:00Z", "r2")
		c := vessel(9321483, "TIE LOSES", "2024-02-01T00:00:00Z", "r0")
		// Every attribute b gives is b's; a and c give the same ones.
		want := lines(schema.Vessels, observedOnce(schema.Vessels, mergedSeen(b, "2024-01-01T00:00:00Z")))
		for _, order := range [][]row{{a, b, c}, {c, b, a}, {b, a, c}} {
			w := freshWarehouse(t)
			for _, r := range order {
				load1(t, w, mem, schema.Vessels, r)
			}
			equal(t, "rows", st.rows(t, w, schema.Vessels), want)
		}
	}},
	{"ledger: the last write wins", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		started := run("run-1", "running", "2024-01-01T02:00:00Z", 0)
		ended := run("run-1", "ok", "2024-01-01T02:00:00Z", 42)
		ended["ended_at"], ended["exit_code"] = "2024-01-01T02:10:00Z", 0
		other := run("run-2", "running", "2024-01-02T02:00:00Z", 0)
		load1(t, w, mem, schema.ETLRuns, started, other)
		equal(t, "started", st.rows(t, w, schema.ETLRuns), lines(schema.ETLRuns, started, other))
		load1(t, w, mem, schema.ETLRuns, ended)
		equal(t, "ended", st.rows(t, w, schema.ETLRuns), lines(schema.ETLRuns, ended, other))
		if n := load1(t, w, mem, schema.ETLRuns, ended).Rows["etl_runs"]; n != 0 {
			t.Errorf("the same write again changed %d rows", n)
		}
		rec := record(t, mem, schema.ETLRuns, started, ended)
		defer rec.Release()
		if _, err := w.Load(t.Context(), []schema.Rows{{Table: schema.ETLRuns, Rec: rec}}); !errors.Is(err, load.ErrInvalid) {
			t.Errorf("a batch with a key twice: %v, want ErrInvalid", err)
		}
		equal(t, "after the refused batch", st.rows(t, w, schema.ETLRuns), lines(schema.ETLRuns, ended, other))
	}},
	{"all batches of a Load or none", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		good := record(t, mem, schema.ETAObservations, etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1"))
		defer good.Release()
		r := run("run-1", "running", "2024-01-01T02:00:00Z", 0)
		bad := record(t, mem, schema.ETLRuns, r, r)
		defer bad.Release()
		if _, err := w.Load(t.Context(), []schema.Rows{{Table: schema.ETAObservations, Rec: good}, {Table: schema.ETLRuns, Rec: bad}}); err == nil {
			t.Fatal("Load of a bad batch succeeded")
		}
		equal(t, "eta_observations", st.rows(t, w, schema.ETAObservations), nil)
		if n := queryInt(t, w.DB(), "SELECT count(*) FROM parquet_pending"); n != 0 {
			t.Errorf("%d partitions pending after a rolled back load", n)
		}
	}},
	{"reset empties both stores", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		load1(t, w, mem, schema.ETAObservations,
			etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1"),
			etaObs("S1", "2024-01-02T10:00:00Z", "2024-01-09T00:00:00Z", "r2"))
		load1(t, w, mem, schema.Containers, container("C1", "LOADED", "2024-01-02T08:00:00Z", "r2"))
		st.rows(t, w, schema.ETAObservations)
		if err := w.Reset(t.Context(), []*schema.Table{schema.ETAObservations}); err != nil {
			t.Fatal(err)
		}
		equal(t, "eta_observations", st.rows(t, w, schema.ETAObservations), nil)
		if files := parquetFiles(t, w, schema.ETAObservations); len(files) != 0 {
			t.Errorf("files left after Reset: %v", files)
		}
		equal(t, "containers untouched", st.rows(t, w, schema.Containers),
			lines(schema.Containers, container("C1", "LOADED", "2024-01-02T08:00:00Z", "r2")))
		if err := w.Reset(t.Context(), []*schema.Table{schema.RawResponses}); !errors.Is(err, load.ErrInvalid) {
			t.Errorf("Reset of raw_responses: %v, want ErrInvalid", err)
		}
	}},
	{"delete by response removes exactly those rows", func(t *testing.T, st store) {
		mem := checkedMem(t)
		w := freshWarehouse(t)
		keep := etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1")
		gone1 := etaObs("S2", "2024-01-01T11:00:00Z", "2024-01-09T00:00:00Z", "r2")
		gone2 := etaObs("S2", "2024-01-03T11:00:00Z", "2024-01-09T00:00:00Z", "r3")
		load1(t, w, mem, schema.ETAObservations, keep, gone1, gone2)
		st.rows(t, w, schema.ETAObservations)
		if err := w.DeleteByResponse(t.Context(), []*schema.Table{schema.ETAObservations}, []string{"r2", "r3", "r9"}); err != nil {
			t.Fatal(err)
		}
		equal(t, "rows", st.rows(t, w, schema.ETAObservations), lines(schema.ETAObservations, keep))
		equal(t, "files", parquetFiles(t, w, schema.ETAObservations), []string{filepath.Join("observed_date=2024-01-01", "data.parquet")})
		// A range replay loads the responses again.
		load1(t, w, mem, schema.ETAObservations, gone1, gone2)
		equal(t, "reloaded", st.rows(t, w, schema.ETAObservations), lines(schema.ETAObservations, keep, gone1, gone2))
	}},
}

func mergedSeen(r row, first string) row {
	out := row{}
	for k, v := range r {
		out[k] = v
	}
	out["first_seen_at"], out["first_seen_date"] = first, first[:10]
	return out
}

// TestMerge runs the suite against both stores at once: at every read,
// what DuckDB holds after a sequence of loads, the Parquet mirror holds
// after SyncParquet.
func TestMerge(t *testing.T) {
	slowtest.Long(t)
	for _, c := range slices.Concat(mergeCases, dimensionCases) {
		t.Run(c.name, func(t *testing.T) { c.run(t, both) })
	}
}

// TestMirrorMatchesTables loads every kind, syncs, and compares the two
// stores directly, column types included (the partition column comes back
// from the directory name as a DATE; a JSON column is a string in the
// files).
func TestMirrorMatchesTables(t *testing.T) {
	slowtest.Long(t)
	mem := checkedMem(t)
	w := freshWarehouse(t)
	load1(t, w, mem, schema.ETAObservations, etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1"))
	load1(t, w, mem, schema.Containers, container("C1", "LOADED", "2024-01-02T08:00:00Z", "r2"))
	load1(t, w, mem, schema.Vessels, vessel(9321483, "A", "2024-01-01T00:00:00Z", "r1"))
	load1(t, w, mem, schema.ETLRuns, run("run-1", "running", "2024-01-01T02:00:00Z", 0))
	if _, err := w.SyncParquet(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []*schema.Table{schema.ETAObservations, schema.Containers, schema.Vessels, schema.ETLRuns} {
		db := stores[0].rows(t, w, tbl)
		equal(t, tbl.Name, parquetRows(t, w, tbl), db)
		if len(db) != 1 {
			t.Errorf("%s: %d rows, want 1", tbl.Name, len(db))
		}
		// JSON columns are strings in the files, which every reader takes
		// (nodejs-polars reads DuckDB's JSON logical type as Binary).
		want := query(t, w.DB(), fmt.Sprintf("SELECT column_name || ' ' || replace(column_type, 'JSON', 'VARCHAR') FROM (DESCRIBE %s)", tbl.Name))
		got := query(t, w.DB(), fmt.Sprintf("SELECT column_name || ' ' || column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s', hive_partitioning=true))", glob(w, tbl)))
		equal(t, tbl.Name+" columns", got, want)
	}
}

// TestLoadRefusesForeignRecords checks the schema of a batch is the table's.
func TestLoadRefusesForeignRecords(t *testing.T) {
	mem := checkedMem(t)
	w := freshWarehouse(t)
	rec := record(t, mem, schema.Containers, container("C1", "LOADED", "2024-01-02T08:00:00Z", "r2"))
	defer rec.Release()
	for _, b := range []schema.Rows{
		{Table: schema.ETAObservations, Rec: rec},
		{Table: schema.RawResponses, Rec: rec},
		{Table: nil, Rec: rec},
	} {
		if _, err := w.Load(t.Context(), []schema.Rows{b}); !errors.Is(err, load.ErrInvalid) {
			t.Errorf("%v: %v, want ErrInvalid", b.Table, err)
		}
	}
	var empty arrow.RecordBatch = record(t, memory.NewGoAllocator(), schema.Containers)
	defer empty.Release()
	if st, err := w.Load(t.Context(), []schema.Rows{{Table: schema.Containers, Rec: empty}}); err != nil || st.Rows["containers"] != 0 {
		t.Errorf("empty batch: %v, %v", st, err)
	}
}

// fileTimes maps each partition file of the table to its modification
// time and size.
func fileTimes(t testing.TB, w *load.Warehouse, tbl *schema.Table) map[string]string {
	out := map[string]string{}
	for _, f := range parquetFiles(t, w, tbl) {
		fi, err := os.Stat(filepath.Join(w.Dir(), "parquet", tbl.Name, f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = fmt.Sprint(fi.ModTime().UnixNano(), fi.Size())
	}
	return out
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
