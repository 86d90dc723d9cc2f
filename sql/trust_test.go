package sql_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	views "github.com/etalake/etalake/sql"
)

// A call already more than 24 h past its plan when a by-port query last
// showed it, not arrived, is late, not left out; a call due but not yet
// judged is counted apart; a call seen only by a query that never reports
// actual arrivals (port to port) is never taken for late, nor pending; a
// call whose plan was first seen after it was due has no baseline and is
// not judged; a call its port's schedule dropped on two later nights before
// its plan is omitted, counted apart and not judged, and one missing on a
// single night is not yet.
func TestACallAlreadyLateButNotArrivedCountsLate(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	var outcome string
	var atLeast float64
	one(t, db, "SELECT outcome, late_at_least_hours FROM port_call_reliability WHERE voyage = '103W'", &outcome, &atLeast)
	if outcome != "late_not_arrived" || atLeast != 44 {
		t.Errorf("call E: %s, at least %.0f h late; want late_not_arrived, 44 h", outcome, atLeast)
	}
	for voyage, want := range map[string]string{"9E": "unknown", "P1": "unobservable", "8E": "not_due", "4E": "no_baseline", "K1": "omitted", "L1": "not_due"} {
		one(t, db, "SELECT outcome FROM port_call_reliability WHERE voyage = '"+voyage+"'", &outcome)
		if outcome != want {
			t.Errorf("call %s: %s, want %s", voyage, outcome, want)
		}
	}
	// March at NLRTM for MAEU: A on time, B late, E late and not arrived.
	var calls, late, notArrived, unknown int
	var share float64
	var complete bool
	one(t, db, `SELECT n_calls, on_time_share, n_late, n_late_not_arrived, n_unknown, month_complete FROM schedule_reliability
		WHERE level = 'carrier_port_month' AND carrier = 'MAEU' AND month = DATE '2026-03-01'`, &calls, &share, &late, &notArrived, &unknown, &complete)
	if calls != 3 || math.Abs(share-1.0/3) > 1e-9 || late != 2 || notArrived != 1 || unknown != 0 || complete {
		t.Errorf("MAEU March: %d calls, %.3f on time, %d late (%d not arrived), %d unknown, complete %v; want 3, 1/3, 2 (1), 0, false",
			calls, share, late, notArrived, unknown, complete)
	}
	var omitted int
	one(t, db, `SELECT n_omitted FROM schedule_reliability
		WHERE level = 'carrier_port_month' AND carrier = 'MAEU' AND month = DATE '2026-03-01'`, &omitted)
	if omitted != 1 {
		t.Errorf("MAEU March at NLRTM: %d omitted, want 1 (K1)", omitted)
	}
	// February is over, and the 24 h after it: complete.
	one(t, db, "SELECT month_complete FROM schedule_reliability WHERE level = 'month' AND month = DATE '2026-02-01'", &complete)
	if !complete {
		t.Error("February is not complete by 2026-03-12")
	}
	// CMDU's only call was seen port to port, where no actual arrival is
	// shown: it will never be judged, and is not counted as pending.
	one(t, db, "SELECT count(*) FROM schedule_reliability WHERE carrier = 'CMDU'", &calls)
	if calls != 0 {
		t.Errorf("CMDU, seen only port to port, has %d schedule_reliability rows", calls)
	}
}

// The predictive ETA is published only while it promises arrival within
// 72 hours: at 3 days its rows exist only for shipments it expected early,
// so they are flagged selective, carried as such by the summary, and left
// out of the comparison with the carrier's ETA.
func TestAPredictiveETAPublishedOnlyNearArrivalIsNotCompared(t *testing.T) {
	db := history(t)
	var errH float64
	var selective bool
	one(t, db, "SELECT error_hours, selective FROM eta_accuracy WHERE shipment_number = 'S7' AND source = 'PREDICTIVE' AND horizon_days = 3", &errH, &selective)
	if errH != 36 || !selective {
		t.Errorf("S7 predictive at 3 days: error %.0f h, selective %v; want +36 h, flagged", errH, selective)
	}
	var n int
	one(t, db, "SELECT count(*) FROM eta_accuracy_summary WHERE source = 'PREDICTIVE' AND horizon_days >= 3 AND NOT selective", &n)
	if n != 0 {
		t.Errorf("%d summary rows of the predictive ETA at 3 days or more are not flagged selective", n)
	}
	one(t, db, "SELECT count(*) FROM eta_accuracy_summary WHERE source = 'CARRIER' AND selective", &n)
	if n != 0 {
		t.Errorf("%d summary rows of the carrier's ETA flagged selective", n)
	}
	one(t, db, "SELECT count(*) FROM eta_accuracy_comparison WHERE horizon_days >= 3", &n)
	if n != 0 {
		t.Errorf("the comparison has %d rows at 3 days or more, where the predictive ETA is selective", n)
	}
}

// An ETA seen long before a horizon's cut does not stand for it: S7's last
// carrier ETA was seen 118 h before the arrival, too old for "1 day" (24 +
// 48 h), fine for "3 days" (72 + 48 h).
func TestAStaleETAIsNotUsedForAHorizon(t *testing.T) {
	db := history(t)
	var lead float64
	var errH sql.NullFloat64
	var stale bool
	one(t, db, "SELECT observed_lead_hours, error_hours, stale FROM eta_accuracy WHERE shipment_number = 'S7' AND source = 'CARRIER' AND horizon_days = 1", &lead, &errH, &stale)
	if lead != 118 || errH.Valid || !stale {
		t.Errorf("S7 at 1 day: lead %.0f h, error %v, stale %v; want 118 h, no error, stale", lead, errH, stale)
	}
	one(t, db, "SELECT error_hours, stale FROM eta_accuracy WHERE shipment_number = 'S7' AND source = 'CARRIER' AND horizon_days = 3", &errH, &stale)
	if !errH.Valid || errH.Float64 != 4 || stale {
		t.Errorf("S7 at 3 days: error %v, stale %v; want +4 h, not stale", errH, stale)
	}
	var nStale int
	one(t, db, "SELECT n_stale FROM eta_accuracy_summary WHERE level = 'carrier' AND carrier = 'MSCU' AND source = 'CARRIER' AND horizon_days = 1", &nStale)
	if nStale != 1 {
		t.Errorf("MSCU at 1 day: %d stale, want S7's", nStale)
	}
}

// Shipments on one vessel call are one draw: MAEU's 3-day row counts 3
// shipments on 2 calls (S1 and S8 arrived together), and its standard
// error is the one clustered by call, computed by hand here.
func TestIntervalsClusterShipmentsByVesselCall(t *testing.T) {
	db := history(t)
	var n, calls int
	var enough bool
	var bias, se, lo, hi float64
	one(t, db, `SELECT n, n_calls, enough, bias_hours, bias_se_hours, bias_lo_hours, bias_hi_hours FROM eta_accuracy_summary
		WHERE level = 'carrier' AND carrier = 'MAEU' AND source = 'CARRIER' AND horizon_days = 3`, &n, &calls, &enough, &bias, &se, &lo, &hi)
	// Errors +10 and +4 (one call), 0 (another): mean 14/3; clusters' sums
	// 14 over 2 and 0 over 1; CR1 variance 2/1 · ((14 − 2m)² + (0 − m)²) / 3².
	m := 14.0 / 3
	wantSE := math.Sqrt(2*((14-2*m)*(14-2*m)+m*m)) / 3
	if n != 3 || calls != 2 || enough || math.Abs(bias-m) > 1e-9 || math.Abs(se-wantSE) > 1e-9 ||
		math.Abs(lo-(m-12.7062*wantSE)) > 1e-6 || math.Abs(hi-(m+12.7062*wantSE)) > 1e-6 {
		t.Errorf("MAEU at 3 days: n %d on %d calls (enough %v), bias %.4f ± se %.4f [%.3f, %.3f]; want 3 on 2 (not enough), %.4f ± %.4f, t(1) = 12.7062",
			n, calls, enough, bias, se, lo, hi, m, wantSE)
	}
	var call string
	var transhipped bool
	var revisions int
	var meanRevision float64
	one(t, db, "SELECT vessel_call, transhipped, revisions, mean_abs_revision_hours FROM eta_accuracy WHERE shipment_number = 'S7' AND source = 'CARRIER' AND horizon_days = 3",
		&call, &transhipped, &revisions, &meanRevision)
	if call != "DEHAM 9074729 6E" || !transhipped || revisions != 1 || meanRevision != 6 {
		t.Errorf("S7: call %q, transhipped %v, %d revisions of %.0f h; want DEHAM 9074729 6E, transhipped, 1 of 6 h", call, transhipped, revisions, meanRevision)
	}
	var direct bool
	one(t, db, "SELECT transhipped FROM eta_accuracy WHERE shipment_number = 'S1' AND source = 'CARRIER' AND horizon_days = 3", &direct)
	if direct {
		t.Error("S1, loaded at its POL and never discharged elsewhere, is called transhipped")
	}
}

// Every summary row says what it sums: its level names exactly the
// grouping columns it is grouped by, and the rollups an analyst asks for
// exist — per port over every carrier, every carrier together, carrier ×
// port over every month.
func TestRollupsSayWhatTheyAre(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	groups := map[string]map[string][]string{
		"eta_accuracy_summary": {
			"carrier_port": {"carrier", "pod_locode"}, "carrier": {"carrier"}, "port": {"pod_locode"}, "all": nil,
			"carrier_lane": {"carrier", "lane"}, "lane": {"lane"}, "carrier_transhipment": {"carrier", "transhipped"},
			"transhipment": {"transhipped"}, "carrier_month": {"carrier", "arrival_month"}, "month": {"arrival_month"},
		},
		"schedule_reliability": {
			"carrier_port_month": {"carrier", "port_locode", "month"}, "carrier_port": {"carrier", "port_locode"},
			"carrier_month": {"carrier", "month"}, "carrier": {"carrier"}, "port_month": {"port_locode", "month"},
			"port": {"port_locode"}, "month": {"month"}, "all": nil,
		},
	}
	for view, levels := range groups {
		all := map[string]bool{}
		for _, cols := range levels {
			for _, c := range cols {
				all[c] = true
			}
		}
		for level, cols := range levels {
			var rows int
			one(t, db, "SELECT count(*) FROM "+view+" WHERE level = '"+level+"'", &rows)
			if rows == 0 {
				t.Errorf("%s has no %s row", view, level)
			}
			for c := range all {
				grouped := strings.Contains(" "+strings.Join(cols, " ")+" ", " "+c+" ")
				if grouped {
					continue
				}
				var set int
				one(t, db, "SELECT count(*) FROM "+view+" WHERE level = '"+level+"' AND "+c+" IS NOT NULL", &set)
				if set != 0 {
					t.Errorf("%s: %d %s rows set %s, which that level does not group by", view, set, level, c)
				}
			}
		}
		var other int
		one(t, db, "SELECT count(*) FROM "+view+" WHERE level NOT IN ('"+strings.Join(keys(levels), "', '")+"')", &other)
		if other != 0 {
			t.Errorf("%s has %d rows of an undocumented level", view, other)
		}
	}
	// The all-carrier total of schedules equals the sum over carriers.
	var total, sum int
	one(t, db, "SELECT n_calls FROM schedule_reliability WHERE level = 'all'", &total)
	one(t, db, "SELECT sum(n_calls) FROM schedule_reliability WHERE level = 'carrier'", &sum)
	if total != sum || total == 0 {
		t.Errorf("all carriers: %d calls, the carriers' sum %d", total, sum)
	}
	// One name for the carrier: no view has a column named sealine.
	var sealine int
	one(t, db, `SELECT count(*) FROM duckdb_columns() WHERE column_name = 'sealine'
		AND (table_name IN (SELECT view_name FROM duckdb_views() WHERE NOT internal) OR table_name LIKE 'eta_accuracy%')`, &sealine)
	if sealine != 0 {
		t.Errorf("%d view columns are named sealine; the views say carrier", sealine)
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The warehouse documents what it answers: every view, the tables
// materialised for them (eta_accuracy_known, eta_accuracy_summary), and
// every column of them carry a comment a notebook can read.
func TestEveryViewAndColumnIsDocumented(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	var views, undocumented int
	one(t, db, "SELECT count(*), count(*) FILTER (WHERE coalesce(comment, '') = '') FROM duckdb_views() WHERE NOT internal", &views, &undocumented)
	if views < 7 || undocumented != 0 {
		t.Errorf("%d views, %d without a comment", views, undocumented)
	}
	one(t, db, "SELECT count(*) FILTER (WHERE coalesce(comment, '') = '') FROM duckdb_tables() WHERE table_name IN ('eta_accuracy_known', 'eta_accuracy_summary')", &undocumented)
	if undocumented != 0 {
		t.Errorf("%d tables of the analytics without a comment", undocumented)
	}
	rows, err := db.Query(`SELECT table_name || '.' || column_name FROM duckdb_columns()
		WHERE (table_name IN (SELECT view_name FROM duckdb_views() WHERE NOT internal)
		       OR table_name IN ('eta_accuracy_known', 'eta_accuracy_summary'))
		  AND coalesce(comment, '') = ''`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s has no comment", col)
	}
	var macros int
	one(t, db, "SELECT count(DISTINCT function_name) FROM duckdb_functions() WHERE function_name LIKE 'etalake_%' AND coalesce(comment, '') <> ''", &macros)
	if macros < 8 {
		t.Errorf("%d documented etalake_ macros, want the 8 the views share", macros)
	}
}

// The same warehouse gives the same answers to a reader in any time zone:
// every view's and analytic table's rows (data_freshness but for
// hours_since_observed, which follows the wall clock), and
// schedule_reliability written out as CSV byte for byte, under UTC and
// zones far west (Los Angeles, UTC−8) and far east (Kiritimati, UTC+14) of
// it. The history has calls whose naive month differs in New York (H) and
// in Shanghai (G), and a shipment (S11) due on the UTC night before the
// newest response's, which in Los Angeles is still that night, so the test
// would see a bucket or a date that followed the session.
func TestEveryAnswerIsTheSameInEveryTimeZone(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	ctx := context.Background()
	zones := []string{"UTC", "America/New_York", "America/Los_Angeles", "Asia/Shanghai", "Pacific/Kiritimati"}
	var base map[string]string
	var baseCSV []byte
	for _, zone := range zones {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, "SET TimeZone = '"+zone+"'"); err != nil {
			t.Fatal(err)
		}
		// The fixture has teeth: in these zones a month taken naively moves.
		var naiveG, naiveH string
		if err := conn.QueryRowContext(ctx, `SELECT
			CAST(CAST(date_trunc('month', TIMESTAMPTZ '2026-02-28 23:30:00+00') AS DATE) AS VARCHAR),
			CAST(CAST(date_trunc('month', TIMESTAMPTZ '2026-03-01 03:00:00+00') AS DATE) AS VARCHAR)`).Scan(&naiveG, &naiveH); err != nil {
			t.Fatal(err)
		}
		var naiveNewest string
		if err := conn.QueryRowContext(ctx, `SELECT CAST(CAST(max(observed_at) AS DATE) AS VARCHAR)
			FROM raw_responses WHERE status BETWEEN 200 AND 299`).Scan(&naiveNewest); err != nil {
			t.Fatal(err)
		}
		if (zone == "Asia/Shanghai" && naiveG != "2026-03-01") || (zone == "America/New_York" && naiveH != "2026-02-01") ||
			(zone == "Pacific/Kiritimati" && naiveG != "2026-03-01") || (zone == "America/Los_Angeles" && naiveNewest != "2026-03-11") {
			t.Fatalf("%s: naive months %s and %s, naive date of the newest response %s: the fixture no longer tells the zones apart",
				zone, naiveG, naiveH, naiveNewest)
		}
		got := map[string]string{}
		vs, err := views.Views()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			name := v.View + v.Table
			switch name {
			case "": // the macros
			case "data_freshness": // hours_since_observed follows the wall clock
				got[name] = strings.Join(rows(t, conn, "SELECT * EXCLUDE (hours_since_observed) FROM data_freshness ORDER BY ALL"), "\n")
			default:
				got[name] = strings.Join(rows(t, conn, "SELECT * FROM "+name+" ORDER BY ALL"), "\n")
			}
		}
		csv := filepath.Join(t.TempDir(), "schedule_reliability.csv")
		if _, err := conn.ExecContext(ctx, "COPY (SELECT * FROM schedule_reliability ORDER BY ALL) TO '"+csv+"' (HEADER)"); err != nil {
			t.Fatal(err)
		}
		bytes, err := os.ReadFile(csv)
		if err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if base == nil {
			base, baseCSV = got, bytes
			continue
		}
		for v, rows := range base {
			if got[v] != rows {
				t.Errorf("%s under %s differs from UTC:\n%s\n--- UTC\n%s", v, zone, got[v], rows)
			}
		}
		if string(bytes) != string(baseCSV) {
			t.Errorf("schedule_reliability as CSV under %s differs from UTC:\n%s\n--- UTC\n%s", zone, bytes, baseCSV)
		}
	}
	var month string
	one(t, db, "SELECT CAST(month AS VARCHAR) FROM port_call_reliability WHERE voyage = '100W'", &month)
	if month != "2026-02-01" {
		t.Errorf("call G, planned 2026-02-28 23:30 UTC, is in month %s", month)
	}
}

// A schedule share rests on its vessels, not its calls: a vessel's delay
// carries over to its next calls, so seven calls of one vessel are one
// draw. EGLV's seven calls at CNSHK, all late, are one vessel: no
// interval, and never enough, at any level; HLCU's six calls of five
// vessels are enough. No row of any summary is enough on fewer clusters
// than etalake_min_n().
func TestACarrierAtAPortWithOneVesselIsNeverEnough(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	var levels, enough, calls, vessels, withInterval int
	one(t, db, `SELECT count(*), count(*) FILTER (WHERE enough), max(n_calls), max(n_vessels), count(on_time_lo)
		FROM schedule_reliability WHERE carrier = 'EGLV'`, &levels, &enough, &calls, &vessels, &withInterval)
	if levels == 0 || enough != 0 || calls != 7 || vessels != 1 || withInterval != 0 {
		t.Errorf("EGLV: %d rows, %d enough, up to %d calls, %d vessels, %d with an interval; want rows of up to 7 calls of one vessel, none enough, none with an interval",
			levels, enough, calls, vessels, withInterval)
	}
	var share float64
	var isEnough bool
	one(t, db, `SELECT n_calls, n_vessels, on_time_share, enough FROM schedule_reliability
		WHERE level = 'carrier_port' AND carrier = 'EGLV' AND port_locode = 'CNSHK'`, &calls, &vessels, &share, &isEnough)
	if calls != 7 || vessels != 1 || share != 0 || isEnough {
		t.Errorf("EGLV at CNSHK: %d calls, %d vessels, %.0f %% on time, enough %v; want 7 calls of 1 vessel, 0 %%, not enough", calls, vessels, 100*share, isEnough)
	}
	one(t, db, `SELECT n_calls, n_vessels, on_time_share, enough FROM schedule_reliability
		WHERE level = 'carrier' AND carrier = 'HLCU'`, &calls, &vessels, &share, &isEnough)
	if calls != 6 || vessels != 5 || math.Abs(share-4.0/6) > 1e-9 || !isEnough {
		t.Errorf("HLCU: %d calls, %d vessels, %.3f on time, enough %v; want 6 calls of 5 vessels, 4/6, enough", calls, vessels, share, isEnough)
	}
	for _, q := range []string{
		"SELECT count(*) FROM schedule_reliability WHERE enough AND n_vessels < etalake_min_n()",
		"SELECT count(*) FROM eta_accuracy_summary WHERE enough AND n_calls < etalake_min_n()",
		"SELECT count(*) FROM eta_accuracy_comparison WHERE enough AND n_calls < etalake_min_n()",
	} {
		var n int
		if one(t, db, q, &n); n != 0 {
			t.Errorf("%s: %d rows enough on fewer clusters than etalake_min_n()", q, n)
		}
	}
}

// Every 95 % interval of the summaries says how many clusters it rests
// on, in a column of its row: an interval exists exactly where that count
// is 2 or more (t has a degree of freedom), whatever the number of
// shipments or calls.
func TestEveryIntervalSaysHowManyClustersItRestsOn(t *testing.T) {
	db := history(t)
	for _, c := range []struct{ table, lo, hi, clusters, n string }{
		{"eta_accuracy_summary", "bias_lo_hours", "bias_hi_hours", "n_calls", "n"},
		{"eta_accuracy_summary", "mae_lo_hours", "mae_hi_hours", "n_calls", "n"},
		{"eta_accuracy_comparison", "mae_diff_lo_hours", "mae_diff_hi_hours", "n_calls", "n"},
		{"schedule_reliability", "on_time_lo", "on_time_hi", "n_vessels", "n_calls"},
	} {
		var documented int
		one(t, db, "SELECT count(*) FROM duckdb_columns() WHERE table_name = '"+c.table+"' AND column_name = '"+c.clusters+
			"' AND comment ILIKE '%the clusters of the interval%'", &documented)
		if documented == 0 {
			t.Errorf("%s.%s does not say it counts the clusters of the intervals", c.table, c.clusters)
		}
		var rows, wrong, lonely int
		one(t, db, "SELECT count(*), count(*) FILTER (WHERE ("+c.lo+" IS NOT NULL) <> ("+c.clusters+" >= 2) OR ("+c.hi+" IS NOT NULL) <> ("+c.clusters+" >= 2)), "+
			"count(*) FILTER (WHERE "+c.clusters+" = 1) FROM "+c.table+" WHERE "+c.n+" > 0", &rows, &wrong, &lonely)
		if rows == 0 || wrong != 0 {
			t.Errorf("%s: %d of %d rows have an interval %s–%s where %s is below 2, or none where it is 2 or more", c.table, wrong, rows, c.lo, c.hi, c.clusters)
		}
		if c.table != "eta_accuracy_comparison" && lonely == 0 {
			t.Errorf("%s: no row of a single cluster: the fixture no longer tests the missing interval", c.table)
		}
	}
}

// Every month row of the summaries says whether its month is complete,
// and no other row does: February, over by the newest answer, is
// complete; March, still going, is not, in both the ETA summary (S9
// arrived in February) and schedule reliability.
func TestEveryMonthRowSaysWhetherItsMonthIsComplete(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	for _, c := range []struct{ table, month string }{
		{"eta_accuracy_summary", "arrival_month"},
		{"schedule_reliability", "month"},
	} {
		var monthRows, unsaid, otherRows, said int
		one(t, db, "SELECT count(*) FILTER (WHERE level LIKE '%month'), count(*) FILTER (WHERE level LIKE '%month' AND month_complete IS NULL), "+
			"count(*) FILTER (WHERE level NOT LIKE '%month'), count(*) FILTER (WHERE level NOT LIKE '%month' AND month_complete IS NOT NULL) FROM "+c.table,
			&monthRows, &unsaid, &otherRows, &said)
		if monthRows == 0 || unsaid != 0 || otherRows == 0 || said != 0 {
			t.Errorf("%s: %d of %d month rows do not say whether the month is complete; %d of %d other rows do",
				c.table, unsaid, monthRows, said, otherRows)
		}
		for month, want := range map[string]bool{"2026-02-01": true, "2026-03-01": false} {
			var rows, wrong int
			one(t, db, "SELECT count(*), count(*) FILTER (WHERE month_complete <> "+map[bool]string{true: "true", false: "false"}[want]+") FROM "+c.table+
				" WHERE level LIKE '%month' AND "+c.month+" = DATE '"+month+"'", &rows, &wrong)
			if rows == 0 || wrong != 0 {
				t.Errorf("%s: %d of %d rows of %s say month_complete is not %v", c.table, wrong, rows, month, want)
			}
		}
	}
	var documented int
	one(t, db, "SELECT count(*) FROM duckdb_columns() WHERE column_name = 'month_complete' AND comment LIKE 'month levels:%'", &documented)
	if documented != 2 {
		t.Errorf("%d month_complete columns say what they mean, want the ETA summary's and schedule reliability's", documented)
	}
}

// A report delay is how long after an event the carrier showed it actual,
// which only an event that happened while the shipment was tracked can
// tell: an event that happened before the shipment was first observed is
// shown actual at that first look, however promptly the carrier reported
// it. S1's gate-out (01-30 10:00, S1 first observed 02-02 02:00) is
// counted in n_before_tracking and left out of avg_report_delay_hours;
// its departure (02-05 00:00, first shown actual 02-06 02:00) is a delay
// of 26 h.
func TestAReportDelayOnlyCountsEventsAfterTrackingBegan(t *testing.T) {
	db := history(t)
	var events, before int
	var delay sql.NullFloat64
	one(t, db, "SELECT n_events, n_before_tracking, avg_report_delay_hours FROM event_timeliness WHERE event_code = 'GTOT'", &events, &before, &delay)
	if events != 1 || before != 1 || delay.Valid {
		t.Errorf("gate-out before tracking began: %d events, %d before tracking, report delay %v; want 1, 1 and none (NULL)", events, before, delay)
	}
	one(t, db, "SELECT n_events, n_before_tracking, avg_report_delay_hours FROM event_timeliness WHERE event_code = 'DEPA'", &events, &before, &delay)
	if events != 1 || before != 0 || !delay.Valid || delay.Float64 != 26 {
		t.Errorf("departure while tracked: %d events, %d before tracking, report delay %v; want 1, 0 and 26 h", events, before, delay)
	}
}

// A month row of schedule_reliability that says it is complete no longer
// moves, whatever later jobs bring. Call X, MAEU's at NLRTM planned
// 2026-02-20 00:00, was last shown on 02-22, 48 h past its plan and not
// arrived: late, not arrived. February and the 24 h after it are over by
// 03-12, yet X's rows wait for it (its arrival moves n_late_not_arrived
// and avg_delay_late_hours); a later job sees it arrived on 02-25, 120 h
// late, and then MAEU's February at NLRTM is complete. Every row complete
// before that job
// is the same after it.
func TestACompleteScheduleMonthDoesNotMoveAfterLaterJobs(t *testing.T) {
	slowtest.Long(t)
	db := history(t)
	call := func(classifier, observed, event string) string {
		return fmt.Sprintf(`('PORT', 'NLRTM', 9321483, '99W', 'ARRI', '%s', TIMESTAMPTZ '%s', 'MAEU', 'AE7', NULL, 'MAERSK A', '99W', '99E', NULL, TIMESTAMPTZ '%s', 'px', CAST(TIMESTAMPTZ '%[2]s' AS DATE), NULL)`,
			classifier, observed, event)
	}
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("INSERT INTO port_calls VALUES " + call("PLN", "2026-02-15 02:00:00+00", "2026-02-20 00:00:00+00") + ", " +
		call("PLN", "2026-02-22 02:00:00+00", "2026-02-20 00:00:00+00"))
	// The complete month rows by their grouping (the first four columns,
	// unique: both queries list the rows in the same order).
	complete := func() map[string]string {
		t.Helper()
		keys := rows(t, db, "SELECT level, carrier, port_locode, month FROM schedule_reliability WHERE month_complete ORDER BY ALL")
		full := rows(t, db, "SELECT * FROM schedule_reliability WHERE month_complete ORDER BY ALL")
		out := map[string]string{}
		for i, k := range keys {
			out[k] = full[i]
		}
		return out
	}
	var outcome string
	var waiting bool
	one(t, db, "SELECT outcome FROM port_call_reliability WHERE voyage = '99W'", &outcome)
	if outcome != "late_not_arrived" {
		t.Fatalf("call X: %s, want late_not_arrived", outcome)
	}
	one(t, db, "SELECT NOT month_complete FROM schedule_reliability WHERE level = 'month' AND month = DATE '2026-02-01'", &waiting)
	if !waiting {
		t.Error("February is complete while call X is late and not arrived")
	}
	before := complete()
	if len(before) == 0 {
		t.Fatal("no month row is complete: the test tests nothing")
	}
	// The next job: X arrived on 02-25 00:00, 120 h late.
	exec("INSERT INTO port_calls VALUES " + call("ACT", "2026-03-13 02:00:00+00", "2026-02-25 00:00:00+00"))
	after := complete()
	for key, row := range before {
		if after[key] != row {
			t.Errorf("a complete month row moved after a later job:\n%s\nbecame\n%s", row, after[key])
		}
	}
	var late float64
	one(t, db, `SELECT month_complete, avg_delay_late_hours FROM schedule_reliability
		WHERE level = 'carrier_port_month' AND carrier = 'MAEU' AND port_locode = 'NLRTM' AND month = DATE '2026-02-01'`, &waiting, &late)
	if !waiting || late != 120 {
		t.Errorf("MAEU at NLRTM in February once X arrived: complete %v, mean delay of its late calls %.0f h; want complete, 120 h", waiting, late)
	}
}
