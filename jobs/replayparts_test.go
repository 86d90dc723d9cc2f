package jobs_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract/sim"
	"github.com/etalake/etalake/extract/sim/simtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// parquetFiles counts the files of the derived tables' Parquet mirror.
func parquetFiles(whDir string) int {
	n := 0
	for _, tbl := range schema.Derived() {
		_ = filepath.WalkDir(filepath.Join(whDir, "parquet", tbl.Name), func(path string, _ fs.DirEntry, _ error) error {
			if strings.HasSuffix(path, ".parquet") {
				n++
			}
			return nil
		})
	}
	return n
}

// checkPlan checks that parts cover [from, to) in consecutive order, with
// every response once, then a part that only writes the mirror.
func checkPlan(t *testing.T, parts []jobs.ReplayPart, from, to time.Time, responses int64, full bool) {
	t.Helper()
	if f := parts[len(parts)-1]; !f.Finish || !f.Last || f.Responses != 0 {
		t.Errorf("the last part %+v; want the finishing part, which replays nothing", f)
	}
	if r := parts[0]; r.Reset != full || (full && r.Responses != 0) {
		t.Errorf("the first part %+v; want the part that empties the tables, which replays nothing, for a full replay only", r)
	}
	of, first := len(parts), 1
	if full {
		parts, first = parts[1:], 2
	}
	parts = parts[:len(parts)-1]
	var n int64
	for i, p := range parts {
		n += p.Responses
		if p.Index != i+first || p.Of != of || p.Last || p.Finish || p.Reset || p.Full != full {
			t.Errorf("part %d: %+v; want index %d of %d, not the last, full %v", i+1, p, i+first, of, full)
		}
		if i > 0 && !p.From.Equal(parts[i-1].To) {
			t.Errorf("part %d starts at %s, part %d ends at %s: want them to meet", i+1, p.From, i, parts[i-1].To)
		}
	}
	if !parts[0].From.Equal(from) || !parts[len(parts)-1].To.Equal(to) {
		t.Errorf("the parts run from %s to %s; want %s to %s", parts[0].From, parts[len(parts)-1].To, from, to)
	}
	if n != responses {
		t.Errorf("the parts hold %d responses; want %d", n, responses)
	}
}

func TestReplayInPartsEqualsOneReplay(t *testing.T) {
	world := simtest.World(sim.WorldConfig{})
	files, times := writeDays(t, world, 4, 40)
	ctx := context.Background()
	whDir := t.TempDir()
	open := func() (*load.Warehouse, error) { return load.Open(ctx, whDir, load.DefaultOptions()) }
	wh, err := open()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.Import(ctx, wh, []string{files}, jobs.ImportOptions{}); !errors.Is(err, jobs.ErrSomeRefused) {
		t.Fatal(err)
	}
	want := snapshot(t, wh.DB())
	// Parts of a byte: every hour that holds a response is a part.
	full, err := jobs.PlanReplay(ctx, wh, jobs.ReplayOptions{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != len(times)+2 {
		t.Fatalf("%d parts; want one per observed hour, %d, between the resetting and the finishing parts", len(full), len(times))
	}
	checkPlan(t, full, time.Time{}, time.Time{}, 160, true)
	from, to := times[1].Truncate(24*time.Hour), times[3].Truncate(24*time.Hour)
	ranged, err := jobs.PlanReplay(ctx, wh, jobs.ReplayOptions{From: from, To: to}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ranged) != 3 {
		t.Fatalf("%d parts for two days of a byte each; want 2 and the finishing part", len(ranged))
	}
	checkPlan(t, ranged, from, to, 80, false)
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name  string
		opt   jobs.ReplayOptions
		parts []jobs.ReplayPart
	}{{"full", jobs.ReplayOptions{}, full}, {"ranged", jobs.ReplayOptions{From: from, To: to}, ranged}} {
		run := jobs.ReplayPartInProcess(open)
		mirror := parquetFiles(whDir)
		st, err := jobs.ReplayParts(ctx, c.parts, c.opt, func(ctx context.Context, p jobs.ReplayPart, opt jobs.ReplayOptions) (jobs.ReplayStats, error) {
			if c.opt.From.IsZero() && p.Index > 1 && parquetFiles(whDir) > 0 {
				t.Errorf("%s, before part %d of %d: a mirror of the emptied tables; want it gone until the last part writes it", c.name, p.Index, p.Of)
			}
			if !c.opt.From.IsZero() && parquetFiles(whDir) != mirror {
				t.Errorf("%s, before part %d of %d: the mirror changed; want it written by the last part only", c.name, p.Index, p.Of)
			}
			return run(ctx, p, opt)
		})
		if err != nil {
			t.Fatalf("%s replay in parts: %v", c.name, err)
		}
		if int64(st.Responses) != sumResponses(c.parts) || len(st.Runs) != len(c.parts) {
			t.Fatalf("%s replay in %d parts: %d responses in %d runs; want %d in %d", c.name, len(c.parts), st.Responses, len(st.Runs), sumResponses(c.parts), len(c.parts))
		}
		wh, err := open()
		if err != nil {
			t.Fatal(err)
		}
		if diff := compare(want, snapshot(t, wh.DB())); diff != "" {
			t.Fatalf("%s replay in parts differs from the original load: %s", c.name, diff)
		}
		mirrorEqualsTables(t, wh, whDir, want)
		var named, failed int
		if err := wh.DB().QueryRow(`SELECT count(*) FILTER (WHERE args LIKE '%"part":%' AND (args LIKE '%"observed":%') <> (args LIKE '%"step":%')), count(*) FILTER (WHERE status <> 'ok')
			FROM etl_runs WHERE job = 'replay' AND run_id IN (SELECT unnest(?::VARCHAR[]))`, st.Runs).Scan(&named, &failed); err != nil || named != len(c.parts) || failed != 0 {
			t.Fatalf("%s: %d replay runs name their part and range, %d not ok, %v; want %d and 0", c.name, named, failed, err, len(c.parts))
		}
		if err := wh.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func sumResponses(parts []jobs.ReplayPart) (n int64) {
	for _, p := range parts {
		n += p.Responses
	}
	return n
}

func TestPlanReplayOfAnEmptyLandingIsOnePart(t *testing.T) {
	wh, err := load.Open(context.Background(), t.TempDir(), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	parts, err := jobs.PlanReplay(t.Context(), wh, jobs.ReplayOptions{}, 1)
	if err != nil || len(parts) != 1 || !parts[0].Full || !parts[0].Last || parts[0].Finish || parts[0].Responses != 0 {
		t.Fatalf("plan of an empty raw landing: %+v, %v; want one full part that writes the mirror", parts, err)
	}
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	if _, err := jobs.PlanReplay(t.Context(), wh, jobs.ReplayOptions{From: day, To: day}, 1); err == nil || !strings.Contains(err.Error(), "--to 2026-01-02 is not after --from 2026-01-02") {
		t.Fatalf("an empty range: %v; want it refused by name", err)
	}
}

func TestReplayPartsStopsAtTheFailedPart(t *testing.T) {
	at := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	parts := []jobs.ReplayPart{
		{Index: 1, Of: 3, To: at(2), Full: true},
		{Index: 2, Of: 3, From: at(2), To: at(3), Full: true},
		{Index: 3, Of: 3, From: at(3), Full: true, Last: true},
	}
	var ran []int
	run := func(_ context.Context, p jobs.ReplayPart, _ jobs.ReplayOptions) (jobs.ReplayStats, error) {
		ran = append(ran, p.Index)
		if p.Index == 2 {
			return jobs.ReplayStats{Runs: []string{"r2"}}, errors.New("disk full")
		}
		return jobs.ReplayStats{Runs: []string{"r1"}, Responses: 7, Rows: map[string]int64{"shipments": 7}}, nil
	}
	st, err := jobs.ReplayParts(context.Background(), parts, jobs.ReplayOptions{}, run)
	if err == nil || !strings.Contains(err.Error(), "replay part 2 of 3 (observed [2026-01-02T00:00:00Z, 2026-01-03T00:00:00Z))") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v: want it to name part 2 of 3, its range, and the cause", err)
	}
	if len(ran) != 2 || st.Responses != 7 || st.Rows["shipments"] != 7 || len(st.Runs) != 2 {
		t.Fatalf("ran parts %v, stats %+v: want parts 1 and 2 run, part 1's work counted", ran, st)
	}
}
