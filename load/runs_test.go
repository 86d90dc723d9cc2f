package load_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// A run killed before it recorded its end is ended by the next writer
// with what it landed, as its own end would have said it: the requests by
// status, the credits charged (2xx answers of paid endpoints, the balance
// being free) and those possibly charged (2xx answers that stayed
// broken), not the zeros its row was saved with when it started.
func TestARunThatDiedIsEndedWithWhatItLandedAndSpent(t *testing.T) {
	w := freshWarehouse(t)
	run := &load.Run{ID: "run-1", Job: "run", StartedAt: t0, Status: load.StatusRunning}
	if err := w.SaveRun(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	resp := func(i int, product, endpoint string, status int, broken string) response.Landed {
		r := fetched(t0.Add(time.Duration(i)*time.Second), "body "+string(rune('a'+i)))
		r.Product, r.Endpoint, r.Status, r.Broken = wire.Product(product), wire.Endpoint(endpoint), status, broken
		return r
	}
	land(t, w,
		resp(0, "schedule", "consumption_current_period", 200, ""),
		resp(1, "schedule", "schedule_port", 200, ""),
		resp(2, "schedule", "schedule_port", 200, ""),
		resp(3, "schedule", "schedule_port", 404, ""),
		resp(4, "schedule", "schedule_port", 200, "a body shorter than its Content-Length"),
		resp(5, "tracking", "shipment", 200, ""),
		resp(6, "tracking", "shipment", 500, ""),
	)
	other := resp(7, "schedule", "schedule_port", 200, "")
	other.RunID = "run-0"
	land(t, w, other)
	if _, err := w.EndUnfinishedRuns(t.Context(), t0.Add(time.Minute), "died"); err != nil {
		t.Fatal(err)
	}
	var requests, spent, uncertain, calls, callsUncertain int64
	var byStatus, status string
	err := w.DB().QueryRowContext(t.Context(), `SELECT requests, credits_spent_schedule, credits_uncertain_schedule, calls_tracking,
		calls_uncertain_tracking, CAST(requests_by_status AS VARCHAR), status FROM etl_runs WHERE run_id = 'run-1'`).
		Scan(&requests, &spent, &uncertain, &calls, &callsUncertain, &byStatus, &status)
	if err != nil {
		t.Fatal(err)
	}
	if requests != 7 || spent != 2 || uncertain != 1 || calls != 1 || callsUncertain != 0 || status != load.StatusFailed {
		t.Errorf("requests %d, schedule %d spent %d uncertain, tracking %d spent %d uncertain, %s; want 7, 2 and 1, 1 and 0, failed",
			requests, spent, uncertain, calls, callsUncertain, status)
	}
	if byStatus != `{"200":5,"404":1,"500":1}` {
		t.Errorf("requests_by_status %s, want {\"200\":5,\"404\":1,\"500\":1}", byStatus)
	}
}

// The mirror writes etl_runs' JSON columns as strings, Parquet's UTF8
// (logical type STRING) that every reader takes: DuckDB's own JSON
// logical type is read as Binary and refused by nodejs-polars
// ("DataType Binary is not supported"). Readers of the warehouse still
// see them as JSON.
func TestTheMirrorWritesJSONColumnsAsStrings(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	run := &load.Run{ID: "run-1", Job: "run", StartedAt: t0, Status: load.StatusOK, Args: map[string]any{"ports": 1},
		Rows: map[string]int64{"eta_observations": 3}, Shortfalls: map[string]int64{"dead_letters": 1}}
	if err := w.SaveRun(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Publish(t.Context()); err != nil {
		t.Fatal(err)
	}
	glob := filepath.Join(dir, "parquet", "etl_runs", "**", "*.parquet")
	rows, err := w.DB().QueryContext(t.Context(), `SELECT name, type, coalesce(converted_type, ''), coalesce(logical_type, '') FROM parquet_schema(?)
		WHERE name IN ('requests_by_status', 'rows_loaded', 'args', 'shortfalls', 'given_up')`, glob)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var name, typ, converted, logical string
		if err := rows.Scan(&name, &typ, &converted, &logical); err != nil {
			t.Fatal(err)
		}
		seen++
		if typ != "BYTE_ARRAY" || converted != "UTF8" || strings.Contains(strings.ToUpper(logical), "JSON") {
			t.Errorf("%s: %s, converted %q, logical %q; want a string: a BYTE_ARRAY of converted type UTF8, no JSON logical type", name, typ, converted, logical)
		}
	}
	if err := rows.Err(); err != nil || seen != 5 {
		t.Fatalf("%d JSON columns in the mirror's schema, want 5: %v", seen, err)
	}
	if got := publishedCount(t, dir, "SELECT count(*) FROM etl_runs WHERE typeof(args) = 'JSON' AND (args->>'ports') = '1'"); got != 1 {
		t.Errorf("readers see %d runs with args as JSON, want 1", got)
	}
}
