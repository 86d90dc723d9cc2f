package lake_test

import (
	"context"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
)

// The demo feeding a lake on a SQLite catalog and local files: every
// table holds the warehouse's rows, with its types. Then a replay of a
// date range replaces in the lake the partitions it changed, each table
// in one commit carrying the replay's run id, and no other: the files of
// the partitions it left alone are the same files, and the lake holds the
// warehouse's rows after it (the issue: "replay/backfill of a date range
// replace those partitions in one commit").
func TestTheDemoFeedsTheLakeAndAReplayOfADateRangeReplacesItsPartitionsInOneCommit(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	cfg := localLake(t)
	lk := open(t, cfg, lake.Options{})
	dir := t.TempDir()
	demo(t, dir, lk, 1)
	checkLake(t, lk, dir)

	before := map[string]map[string]bool{} // table → file paths
	total := 0
	for _, tbl := range lake.Tables() {
		files, err := lk.Files(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		before[tbl.Name] = map[string]bool{}
		for _, f := range files {
			before[tbl.Name][f.Path] = true
			total++
		}
	}

	// The demo's second night: what its responses derived is replaced.
	night := sim.DefaultStart.AddDate(0, 0, 1)
	wh, err := load.Open(ctx, dir, load.Options{Lake: lk})
	if err != nil {
		t.Fatal(err)
	}
	st, err := jobs.Replay(ctx, wh, jobs.ReplayOptions{From: night, To: night.AddDate(0, 0, 1)})
	if cerr := wh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if st.Responses == 0 {
		t.Fatalf("the replay of %s read no response: the test tests nothing", night.Format(time.DateOnly))
	}

	committed, kept, replaced := 0, 0, 0
	for _, tbl := range lake.Tables() {
		runs, err := lk.Commits(ctx, tbl.Name)
		if err != nil {
			t.Fatal(err)
		}
		switch n := runs[st.Run]; {
		case n > 1:
			t.Errorf("%s: the replay committed %d times, want once", tbl.Name, n)
		case n == 1:
			committed++
		}
		files, err := lk.Files(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if before[tbl.Name][f.Path] {
				kept++
			} else {
				replaced++
			}
		}
	}
	if committed == 0 || replaced == 0 {
		t.Fatalf("the replay committed to %d tables and wrote %d files: want its partitions replaced", committed, replaced)
	}
	if kept == 0 {
		t.Errorf("no file of the lake's %d was kept: the replay of one night rewrote every partition", total)
	}
	t.Logf("replay of %s: %d responses, %d tables committed once, %d files replaced, %d kept", night.Format(time.DateOnly), st.Responses, committed, replaced, kept)
	checkLake(t, lk, dir)
}
