package sql_test

import (
	"context"
	"strings"
	"testing"

	"github.com/etalake/etalake/load"
)

// TestRefreshOutgrowsTheMemoryLimit: a warehouse whose analytic tables do
// not fit the writer's memory limit, even on one thread, is refreshed with
// more memory for the rebuild and the limit is back after. The data is the
// analytics benchmark's at 60 000 shipments (1.3 M ETA observations) under
// a 48 MB limit, where the as-of rebuild runs out of memory as the
// benchmark's 10 M observations do under the default 128 MB.
func TestRefreshOutgrowsTheMemoryLimit(t *testing.T) {
	opt := load.DefaultOptions()
	opt.MemoryLimit = "48MB"
	wh, err := load.Open(context.Background(), t.TempDir(), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if _, err := wh.DB().Exec(strings.Replace(synthetic, "SHIPMENTS", "60000", 1)); err != nil {
		t.Fatal(err)
	}
	before := memoryLimit(t, wh)
	if err := wh.RefreshAnalytics(context.Background()); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	var n int64
	if err := wh.DB().QueryRow("SELECT count(*) FROM eta_accuracy_known").Scan(&n); err != nil || n == 0 {
		t.Errorf("eta_accuracy_known: %d rows, %v", n, err)
	}
	if after := memoryLimit(t, wh); after != before {
		t.Errorf("memory limit after the refresh: %s, before: %s", after, before)
	}
}

func memoryLimit(t *testing.T, wh *load.Warehouse) string {
	t.Helper()
	var s string
	if err := wh.DB().QueryRow("SELECT current_setting('memory_limit')").Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
