package estimate_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/estimate"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/sim"
)

// demo builds a warehouse of nights nightly jobs in one world of 67 days
// with shipments shipments and returns the path of its database.
func demo(t *testing.T, nights, shipments int) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := jobs.Demo(context.Background(), jobs.DemoOptions{Days: nights, WorldDays: 67, Dir: dir, Seed: 3, Shipments: shipments}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, ".work", "etalake.duckdb")
}

// open opens a warehouse's database for writing (its demo is over).
func open(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// Issue 43: "the estimates for observations of the first 40 days are
// identical, row for row, in a warehouse holding 40 days and in one
// holding 60 days of the same world" — an estimate learns only from the
// arrivals known before the day its ETA was observed. And the tables
// computed night by night, for each night's observations, equal the
// tables computed whole from the same warehouse.
func TestEstimatesOfTheFirst40DaysAreTheSameWithTwentyDaysMore(t *testing.T) {
	slowtest.Require(t, "two demos of 40 and 60 nights, a minute")
	short, long := demo(t, 40, 150), open(t, demo(t, 60, 150))
	cut := sim.DefaultStart.AddDate(0, 0, 40)
	if _, err := long.Exec("ATTACH '' AS mem; CREATE TABLE mem.long40 AS SELECT * FROM arrival_estimates WHERE observed_at < ?", cut); err != nil {
		t.Fatal(err)
	}
	var rows, learned int
	if err := long.QueryRow("SELECT count(*), (SELECT count(*) FROM arrival_learning WHERE known_at < ?) FROM mem.long40", cut).Scan(&rows, &learned); err != nil {
		t.Fatal(err)
	}
	if rows < 500 || learned < 50 {
		t.Fatalf("the 60-night warehouse has %d estimates and %d arrivals learned in its first 40 days: the test tests little", rows, learned)
	}
	if _, err := long.Exec("ATTACH '" + short + "' AS short (READ_ONLY); CREATE TABLE mem.short40 AS SELECT * FROM short.arrival_estimates"); err != nil {
		t.Fatal(err)
	}
	var differ int
	if err := long.QueryRow("SELECT count(*) FROM ((SELECT * FROM mem.long40 EXCEPT ALL SELECT * FROM mem.short40) UNION ALL (SELECT * FROM mem.short40 EXCEPT ALL SELECT * FROM mem.long40))").Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if differ != 0 {
		t.Errorf("%d of the %d estimates of the first 40 days differ between the warehouses of 40 and 60 nights: an estimate learned from what was known later", differ, rows)
	}
}

// The tables computed night by night, each job for the observations it
// landed, equal the tables computed whole from the same warehouse.
func TestEstimatesNightByNightEqualThemComputedWhole(t *testing.T) {
	slowtest.Long(t)
	db := open(t, demo(t, 20, 60))
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH '' AS mem; CREATE TABLE mem.estimates AS SELECT * FROM arrival_estimates; CREATE TABLE mem.learning AS SELECT * FROM arrival_learning"); err != nil {
		t.Fatal(err)
	}
	var estimates, learned int
	if err := conn.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM mem.estimates), (SELECT count(*) FROM mem.learning)").Scan(&estimates, &learned); err != nil {
		t.Fatal(err)
	}
	if estimates < 200 || learned < 20 {
		t.Fatalf("twenty nights left %d estimates and %d rows learned: the test tests little", estimates, learned)
	}
	if _, err := estimate.Update(ctx, conn, estimate.Scope{Whole: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ nightly, whole string }{{"mem.estimates", "arrival_estimates"}, {"mem.learning", "arrival_learning"}} {
		var differ int
		q := fmt.Sprintf("SELECT count(*) FROM ((SELECT * FROM %[1]s EXCEPT ALL SELECT * FROM %[2]s) UNION ALL (SELECT * FROM %[2]s EXCEPT ALL SELECT * FROM %[1]s))", tc.nightly, tc.whole)
		if err := conn.QueryRowContext(ctx, q).Scan(&differ); err != nil {
			t.Fatal(err)
		}
		if differ != 0 {
			t.Errorf("%s: %d rows computed night by night differ from the same computed whole", tc.whole, differ)
		}
	}
}
