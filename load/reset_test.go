package load_test

import (
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// Reset empties a table too large to delete in one statement within the
// memory limit: 4 M rows over 30 days under 32 MB (one DELETE of them
// all fails there with DuckDB 1.5.5, and one transaction a day without
// checkpoints fails at 16 MB; measured when Reset was made to delete a
// partition at a time).
func TestResetEmptiesATableLargerThanItsMemory(t *testing.T) {
	slowtest.Require(t, "large input: writes 4 M rows")
	w, err := load.Open(t.Context(), t.TempDir(), load.Options{MemoryLimit: 512 << 20, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	db := w.DB()
	if _, err := db.Exec(`INSERT INTO eta_observations (shipment_number, shipment_type, target, source, observed_at, locode, eta, is_actual, response_id, observed_date)
		SELECT 'S' || i, 'CT', 'POD', 'CARRIER', TIMESTAMP '2024-01-01' + INTERVAL (i % 30) DAY, 'NLRTM', TIMESTAMP '2024-03-01', false, 'r' || i,
			DATE '2024-01-01' + (i % 30)::INT
		FROM range(4000000) t(i) ORDER BY i % 30`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CHECKPOINT"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("SET memory_limit = '32MB'"); err != nil {
		t.Fatal(err)
	}
	if err := w.Reset(t.Context(), []*schema.Table{schema.ETAObservations}); err != nil {
		t.Fatalf("reset of 4 M rows under 32 MB: %v", err)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM eta_observations"); n != 0 {
		t.Errorf("%d rows left after Reset", n)
	}
	// The mirror is left for the replay's end to rewrite: every partition
	// pending.
	if n := queryInt(t, db, "SELECT count(*) FROM parquet_pending"); n != 30 {
		t.Errorf("%d partitions pending after Reset, want the 30", n)
	}
}
