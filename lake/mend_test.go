package lake_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
)

// A table whose current metadata file was deleted (what maintain did in
// issue 42) is found by Status, which names it and the missing file, and
// Mend swings the catalog back to the newest metadata file whose
// snapshot is whole, saying so; the writer's next job sends the table's
// rows again, and the lake equals the warehouse.
func TestStatusFindsAndMendRepairsATableWhoseMetadataWasDeleted(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	cfg := localLake(t)
	lk := open(t, cfg, lake.Options{})
	dir := fed(t, lk)
	// A second job, so that etl_runs has an older whole metadata file.
	if err := replay(ctx, dir, load.Options{Lake: lk}, jobs.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := lk.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var gone string
	for _, ts := range st {
		if ts.Name == "etl_runs" {
			gone = ts.Metadata
		}
	}
	if err := os.Remove(localFile(t, gone)); err != nil {
		t.Fatal(err)
	}

	st, err = lk.Status(ctx)
	if err != nil {
		t.Fatalf("status of a lake with a table broken: %v, want the table said broken", err)
	}
	for _, ts := range st {
		switch {
		case ts.Name == "etl_runs" && !strings.Contains(ts.Missing, gone):
			t.Errorf("status of etl_runs: missing %q, want its metadata file %s named", ts.Missing, gone)
		case ts.Name != "etl_runs" && ts.Missing != "":
			t.Errorf("status of %s: missing %q, want none", ts.Name, ts.Missing)
		}
	}

	mended, err := lk.Mend(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(mended) != 1 || mended[0].Name != "etl_runs" || mended[0].From != gone || mended[0].To == "" || mended[0].Snapshot == 0 || !mended[0].LostUnknown {
		t.Fatalf("mend: %+v, want etl_runs rolled back from %s to an older snapshot, what it lost unknown", mended, gone)
	}
	checkWhole(t, lk)
	if again, err := lk.Mend(ctx); err != nil || len(again) != 0 {
		t.Errorf("a second mend: %+v, %v; want nothing to mend", again, err)
	}

	// The next job of the writer sends etl_runs again: the lake holds
	// every run of the warehouse, though the mended table lost the last.
	if err := replay(ctx, dir, load.Options{Lake: lk}, jobs.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
	checkWhole(t, lk)
	checkLake(t, lk, dir)
}
