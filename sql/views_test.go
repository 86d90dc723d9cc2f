package sql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	views "github.com/etalake/etalake/sql"
)

var update = flag.Bool("update", false, "rewrite the golden outputs of the views")

// history opens a warehouse holding the hand-built history of
// testdata/sql/history.sql.
func history(t *testing.T) *sql.DB {
	t.Helper()
	wh, err := load.Open(context.Background(), t.TempDir(), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { wh.Close() })
	fixture, err := os.ReadFile("../testdata/sql/history.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wh.DB().Exec(string(fixture)); err != nil {
		t.Fatalf("history.sql: %v", err)
	}
	if err := wh.RefreshAnalytics(context.Background()); err != nil {
		t.Fatal(err)
	}
	return wh.DB()
}

// querier is a database or one of its connections.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// rows renders a query's rows as JSON lines: times RFC 3339 in UTC, floats
// to 6 significant digits, so the golden files are stable and readable.
func rows(t *testing.T, db querier, q string) []string {
	t.Helper()
	rs, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("{")
		for i, c := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			v := vals[i]
			switch x := v.(type) {
			case time.Time:
				v = x.UTC().Format(time.RFC3339)
			case float64:
				v = json.Number(fmt.Sprintf("%.6g", x))
			}
			js, _ := json.Marshal(v)
			fmt.Fprintf(&b, "%q: %s", c, js)
		}
		b.WriteString("}")
		out = append(out, b.String())
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every view answers on the hand-built history exactly as its golden file
// says (go test ./sql -update rewrites them after a reviewed change).
func TestViewsGolden(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	vs, err := views.Views()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		name := v.View + v.Table
		if name == "" {
			continue // the macros the views share
		}
		t.Run(name, func(t *testing.T) {
			got := strings.Join(rows(t, db, fmt.Sprintf("SELECT * FROM %s ORDER BY ALL", name)), "\n") + "\n"
			if name == "data_freshness" { // hours_since_observed follows the wall clock
				got = strings.Join(rows(t, db, "SELECT * EXCLUDE (hours_since_observed) FROM data_freshness ORDER BY ALL"), "\n") + "\n"
			}
			path := filepath.Join("..", "testdata", "sql", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./sql -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\n--- got\n%s--- want\n%s", name, path, got, want)
			}
		})
	}
}

func one(t *testing.T, db *sql.DB, q string, dest ...any) {
	t.Helper()
	if err := db.QueryRow(q).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// The semantics the golden files encode, said plainly.
func TestViewSemantics(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

	// S1: 10 h late against every carrier ETA, 2 h early against the predictive one.
	var e float64
	one(t, db, "SELECT error_hours FROM eta_accuracy WHERE shipment_number='S1' AND source='CARRIER' AND horizon_days=14", &e)
	if !near(e, 10) {
		t.Errorf("S1 carrier error at 14 d = %v, want +10 (arrived later than promised)", e)
	}
	one(t, db, "SELECT error_hours FROM eta_accuracy WHERE shipment_number='S1' AND source='PREDICTIVE' AND horizon_days=1", &e)
	if !near(e, -2) {
		t.Errorf("S1 predictive error at 1 d = %v, want −2", e)
	}
	// S2: nothing known 7 and 14 days out: rows with a null error.
	var n, nulls int
	one(t, db, "SELECT count(*), count(*) FILTER (WHERE error_hours IS NULL) FROM eta_accuracy WHERE shipment_number='S2' AND source='CARRIER' AND horizon_days IN (7, 14)", &n, &nulls)
	if n != 2 || nulls != 2 {
		t.Errorf("S2 at 7 and 14 days: %d rows, %d null; want 2 rows, both null", n, nulls)
	}
	// S3 never arrived: no row.
	one(t, db, "SELECT count(*) FROM eta_accuracy WHERE shipment_number='S3'", &n)
	if n != 0 {
		t.Errorf("S3 (never arrived) has %d accuracy rows", n)
	}
	// S10's arrival was reported, then withdrawn: no row, and its box's
	// discharge, withdrawn likewise, is no event of event_timeliness.
	one(t, db, "SELECT count(*) FROM eta_accuracy_known WHERE shipment_number='S10'", &n)
	if n != 0 {
		t.Errorf("S10 (arrival withdrawn) has %d accuracy rows", n)
	}
	one(t, db, "SELECT count(*) FROM event_timeliness WHERE event_code = 'DISC'", &n)
	if n != 0 {
		t.Errorf("S10's discharge, withdrawn, is counted in %d event_timeliness rows", n)
	}
	// S4's POSTPOD is its own target, 6 h late; no PREDICTIVE row for it.
	one(t, db, "SELECT error_hours FROM eta_accuracy WHERE shipment_number='S4' AND target='POSTPOD' AND horizon_days=3 AND source='CARRIER'", &e)
	if !near(e, 6) {
		t.Errorf("S4 postpod error = %v, want 6", e)
	}
	one(t, db, "SELECT count(*) FROM eta_accuracy WHERE target='POSTPOD' AND source='PREDICTIVE'", &n)
	if n != 0 {
		t.Errorf("%d predictive POSTPOD rows", n)
	}
	// Call A was observed six times by two queries: counted once.
	one(t, db, "SELECT count(*) FROM port_call_reliability WHERE voyage='101W'", &n)
	if n != 1 {
		t.Errorf("call A counted %d times", n)
	}
	// MAEU: A and G on time, B 72 h late, E not arrived but 44 h past its
	// plan when last seen → 2 of 4 on time, the mean delay of the late
	// calls that arrived 72 h. MSCU: C 48 h early, H on time → 50 %; D not
	// due yet, F due but not judged yet: not counted.
	var share, late float64
	one(t, db, "SELECT on_time_share, avg_delay_late_hours FROM schedule_reliability WHERE level = 'carrier' AND carrier = 'MAEU'", &share, &late)
	if !near(share, 0.5) || !near(late, 72) {
		t.Errorf("MAEU reliability %.2f, late delay %.1f h; want 0.5 and 72", share, late)
	}
	var unknown int
	one(t, db, "SELECT n_calls, on_time_share, n_unknown FROM schedule_reliability WHERE level = 'carrier' AND carrier = 'MSCU'", &n, &share, &unknown)
	if n != 2 || share != 0.5 || unknown != 1 {
		t.Errorf("MSCU: %d calls, on time %.2f, %d unknown; want the early and the on-time call, and F apart", n, share, unknown)
	}
	// The departure of S1's box: its last estimate 2 h early, seen 46 h
	// before; the observation that did not say whether it was actual
	// (is_actual NULL, a day later) is neither the estimate nor the actual.
	var bias, lead float64
	one(t, db, "SELECT bias_hours, avg_lead_hours FROM event_timeliness WHERE event_code = 'DEPA'", &bias, &lead)
	if !near(bias, 2) || !near(lead, 46) {
		t.Errorf("DEPA timeliness: bias %.1f h, lead %.1f h; want 2 and 46", bias, lead)
	}
	// Freshness: S5 never observed is stale; S6 removed is not listed as active.
	var stale bool
	one(t, db, "SELECT is_stale FROM data_freshness WHERE shipment_number='S5'", &stale)
	if !stale {
		t.Error("S5, never observed, is not stale")
	}
	var state string
	one(t, db, "SELECT state FROM data_freshness WHERE shipment_number='S6'", &state)
	if state != "removed" {
		t.Errorf("S6 state %q", state)
	}
	// The refresh policy's word: S3 next asked on 03-14 by its tier; S10,
	// five days behind the newest response, due and deferred by the pace
	// on 03-12, is not stale: it waits by the policy's word, listed.
	var next, reason string
	one(t, db, "SELECT strftime(next_due_date, '%m-%d'), due_reason FROM data_freshness WHERE shipment_number='S3'", &next, &reason)
	if next != "03-14" || reason != "far" {
		t.Errorf("S3 next due %s (%s); want 03-14 (far)", next, reason)
	}
	var behind float64
	one(t, db, "SELECT is_stale, hours_behind_newest, strftime(deferred_since, '%m-%d') FROM data_freshness WHERE shipment_number='S10'", &stale, &behind, &next)
	if stale || behind != 120 || next != "03-12" {
		t.Errorf("S10: stale %v, %.0f h behind, deferred since %s; want not stale though 120 h behind, deferred since 03-12", stale, behind, next)
	}
	// Given up: port:NLRTM for 2026-03-11 and 2026-03-12, a row of its own
	// with the command for the latest date; S5 on its tracked row; DEHAM,
	// answered whole after the run that gave it up, not at all.
	var dates, deham int
	var command string
	one(t, db, "SELECT state, given_up_dates, reask_command FROM data_freshness WHERE resource = 'port:NLRTM'", &state, &dates, &command)
	if state != "given_up" || dates != 2 || !strings.Contains(command, "--date 2026-03-12 --reask port:NLRTM") {
		t.Errorf("port:NLRTM: %s, %d dates, %q; want given_up, 2, the command for 2026-03-12", state, dates, command)
	}
	one(t, db, "SELECT state, reask_command FROM data_freshness WHERE shipment_number = 'S5'", &state, &command)
	if state != "active" || !strings.HasSuffix(command, "--reask shipment:BL:S5:ONEY") {
		t.Errorf("S5: %s, %q; want active, asked again with its sealine", state, command)
	}
	one(t, db, "SELECT count(*) FROM data_freshness WHERE resource = 'port:DEHAM'", &deham)
	if deham != 0 {
		t.Error("port:DEHAM, answered after it was given up, is still listed")
	}
	// Credits: 2026-03-11 sums both runs and keeps the first balance before
	// and the last after.
	var spent, before, after int64
	one(t, db, "SELECT credits_schedule, balance_schedule_before, balance_schedule_after FROM credit_usage WHERE logical_date = DATE '2026-03-11'", &spent, &before, &after)
	if spent != 22 || before != 500 || after != 478 {
		t.Errorf("credit usage 2026-03-11: %d spent, %d → %d", spent, before, after)
	}
}
