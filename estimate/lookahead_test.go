package estimate_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/estimate"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/sim"
)

// demo builds a warehouse of nights nightly jobs in one world of 67 days
// and returns the path of its database.
func demo(t *testing.T, nights int) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := jobs.Demo(context.Background(), jobs.DemoOptions{Days: nights, WorldDays: 67, Dir: dir, Seed: 3, Shipments: 150}); err != nil {
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
	short, long := demo(t, 40), open(t, demo(t, 60))
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

	// Night by night equals whole.
	if _, err := long.Exec("CREATE TABLE mem.nightly AS SELECT * FROM arrival_estimates"); err != nil {
		t.Fatal(err)
	}
	conn, err := long.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := estimate.Update(context.Background(), conn, estimate.Scope{Whole: true}); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM ((SELECT * FROM mem.nightly EXCEPT ALL SELECT * FROM arrival_estimates) UNION ALL (SELECT * FROM arrival_estimates EXCEPT ALL SELECT * FROM mem.nightly))").Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if differ != 0 {
		t.Errorf("%d estimates computed night by night differ from the same computed whole", differ)
	}
}
