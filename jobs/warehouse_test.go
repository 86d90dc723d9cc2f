package jobs_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// writeDays writes, for each of days days from the world's start, one
// NDJSON file of the tracking responses of the first n shipments visible
// that day, and returns the directory and the observation time per file.
func writeDays(t *testing.T, w *sim.World, days, n int) (string, []time.Time) {
	t.Helper()
	dir := t.TempDir()
	var times []time.Time
	for d := 0; d < days; d++ {
		at := w.Config().Start.Add(time.Duration(d)*24*time.Hour + 2*time.Hour)
		var lines []string
		for _, ref := range w.Shipments() {
			s, err := w.Shipment(ref, at)
			if err != nil {
				continue
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b))
			if len(lines) == n {
				break
			}
		}
		if d == 1 {
			lines = append(lines, `{"route":{"pod":{"date":"2026-01-0`) // a truncated body
		}
		f := filepath.Join(dir, at.Format("2006-01-02")+".ndjson")
		if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, at, at); err != nil {
			t.Fatal(err)
		}
		times = append(times, at)
	}
	return dir, times
}

// snapshot renders every derived table, sorted, for comparing warehouses.
func snapshot(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, tbl := range schema.Derived() {
		rows, err := db.Query(fmt.Sprintf("SELECT * FROM %s", tbl.Name))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if tm, ok := v.(time.Time); ok {
					vals[i] = tm.UTC().Format(time.RFC3339Nano)
				}
			}
			b, _ := json.Marshal(vals)
			out[tbl.Name] = append(out[tbl.Name], string(b))
		}
		rows.Close()
		sort.Strings(out[tbl.Name])
	}
	return out
}

func TestImportReplayAndMirror(t *testing.T) {
	slowtest.Long(t)
	world := simtest.World(sim.WorldConfig{})
	files, _ := writeDays(t, world, 4, 40)
	whDir := t.TempDir()
	ctx := context.Background()

	wh, err := load.Open(ctx, whDir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	// The truncated body is landed too, under its file and line, and
	// dead-lettered with the reason: the import is partial, its counts add up.
	st, err := jobs.Import(ctx, wh, []string{files}, jobs.ImportOptions{})
	if err != nil || st.Status != load.StatusPartial || st.Unidentified != 1 || st.DeadLetters != 1 || st.Quarantined != 1 {
		t.Fatalf("import: %v, %+v: want partial, the truncated body landed and dead-lettered", err, st)
	}
	if st.Bodies != 161 || st.Landed != 161 || st.AlreadyThere != 0 || st.Rows["container_events"] == 0 {
		t.Fatalf("import stats %+v", st)
	}
	var resource, reason string
	if err := wh.DB().QueryRow(`SELECT r.resource, d.reason FROM dead_letters d JOIN raw_responses r USING (response_id)`).Scan(&resource, &reason); err != nil ||
		!strings.HasSuffix(resource, ".ndjson:41") || !strings.Contains(reason, "not valid JSON") {
		t.Fatalf("dead letter of the truncated body: %q, %q, %v", resource, reason, err)
	}
	first := snapshot(t, wh.DB())

	// History: every shipment was observed on each of the four days.
	var obs int
	if err := wh.DB().QueryRow("SELECT count(DISTINCT observed_at) FROM eta_observations").Scan(&obs); err != nil || obs != 4 {
		t.Fatalf("distinct observation times = %d, %v; want 4", obs, err)
	}

	// Importing the same files again lands nothing and changes nothing.
	st2, _ := jobs.Import(ctx, wh, []string{files}, jobs.ImportOptions{})
	if st2.Landed != 0 || st2.AlreadyThere != 161 || sum(st2.Rows) != 0 {
		t.Fatalf("second import landed %d and changed %v", st2.Landed, st2.Rows)
	}
	if diff := compare(first, snapshot(t, wh.DB())); diff != "" {
		t.Fatalf("second import changed the tables: %s", diff)
	}

	// A full replay equals the original loads, and so does a second one.
	for i := 0; i < 2; i++ {
		rs, err := jobs.Replay(ctx, wh, jobs.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rs.Responses != 161 {
			t.Fatalf("replay saw %d responses", rs.Responses)
		}
		if diff := compare(first, snapshot(t, wh.DB())); diff != "" {
			t.Fatalf("replay %d differs from the original load: %s", i+1, diff)
		}
	}
	// A range replay too.
	day := world.Config().Start.Add(24 * time.Hour)
	if _, err := jobs.Replay(ctx, wh, jobs.ReplayOptions{From: day, To: day.Add(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if diff := compare(first, snapshot(t, wh.DB())); diff != "" {
		t.Fatalf("range replay changed the tables: %s", diff)
	}

	mirrorEqualsTables(t, wh, whDir, first)

	// One run row per job, each ended.
	var runs, open int
	if err := wh.DB().QueryRow("SELECT count(*), count(*) FILTER (WHERE ended_at IS NULL) FROM etl_runs").Scan(&runs, &open); err != nil || runs != 5 || open != 0 {
		t.Fatalf("etl_runs: %d rows, %d open, %v", runs, open, err)
	}
}

// mirrorEqualsTables checks that the Parquet mirror holds exactly the rows
// of every table that has any.
func mirrorEqualsTables(t *testing.T, wh *load.Warehouse, whDir string, tables map[string][]string) {
	t.Helper()
	for _, tbl := range schema.Derived() {
		glob := filepath.Join(whDir, "parquet", tbl.Name, "**", "*.parquet")
		var cols []string // every column, those the merge computes too
		for _, c := range tbl.Columns {
			cols = append(cols, `"`+c.Name+`"`)
		}
		var n int
		q := fmt.Sprintf(`SELECT count(*) FROM (
			(SELECT * FROM %[1]s EXCEPT ALL SELECT %[2]s FROM read_parquet('%[3]s', hive_partitioning=true))
			UNION ALL
			(SELECT %[2]s FROM read_parquet('%[3]s', hive_partitioning=true) EXCEPT ALL SELECT * FROM %[1]s))`,
			tbl.Name, strings.Join(cols, ", "), glob)
		if len(tables[tbl.Name]) == 0 {
			continue
		}
		if err := wh.DB().QueryRow(q).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s: %d rows differ between DuckDB and Parquet (%v)", tbl.Name, n, err)
		}
	}
}

func sum(m map[string]int64) (n int64) {
	for _, v := range m {
		n += v
	}
	return n
}

func compare(a, b map[string][]string) string {
	for _, tbl := range schema.Derived() {
		x, y := a[tbl.Name], b[tbl.Name]
		if strings.Join(x, "\n") != strings.Join(y, "\n") {
			return fmt.Sprintf("%s: %d rows vs %d", tbl.Name, len(x), len(y))
		}
	}
	return ""
}
