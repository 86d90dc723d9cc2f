package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	views "github.com/etalake/etalake/sql"
)

// A job refreshes an analytic table whose rows are per shipment
// (eta_accuracy_known) for the shipments it changed, not whole: after
// twenty nightly jobs, each refreshing the shipments of its night, the
// table equals, row for row, the table built whole from the same
// warehouse.
func TestAnalyticsRefreshedForTheShipmentsChangedEqualBuiltWhole(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := jobs.Demo(ctx, jobs.DemoOptions{Days: 20, Dir: dir, Seed: 5, Shipments: 60}); err != nil {
		t.Fatal(err)
	}
	vs, err := views.Views()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, ".work", "etalake.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	checked := 0
	for _, v := range vs {
		if !v.PerShipment {
			continue
		}
		checked++
		if _, err := db.Exec("CREATE TEMP TABLE whole AS " + v.Select); err != nil {
			t.Fatal(err)
		}
		var rows, differ int
		q := fmt.Sprintf("SELECT (SELECT count(*) FROM %[1]s), (SELECT count(*) FROM ((SELECT * FROM %[1]s EXCEPT ALL SELECT * FROM whole) UNION ALL (SELECT * FROM whole EXCEPT ALL SELECT * FROM %[1]s)))", v.Table)
		if err := db.QueryRow(q).Scan(&rows, &differ); err != nil {
			t.Fatal(err)
		}
		if rows == 0 {
			t.Errorf("%s has no row after twenty nights: the test tests nothing", v.Table)
		}
		if differ != 0 {
			t.Errorf("%s, refreshed night by night for the shipments changed: %d of its %d rows differ from the table built whole", v.Table, differ, rows)
		}
		if _, err := db.Exec("DROP TABLE whole"); err != nil {
			t.Fatal(err)
		}
	}
	if checked == 0 {
		t.Fatal("no analytic table says its rows are per shipment")
	}
}
