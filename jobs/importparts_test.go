package jobs_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract/sim"
	"github.com/etalake/etalake/extract/sim/simtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// inProcess runs each part as its own process would: the warehouse opened
// for the part alone, then closed; before is called first.
func inProcess(whDir string, before func(jobs.ImportPart)) jobs.PartRunner {
	run := jobs.PartInProcess(func() (*load.Warehouse, error) { return load.Open(context.Background(), whDir, load.DefaultOptions()) })
	return func(ctx context.Context, p jobs.ImportPart, opt jobs.ImportOptions) (jobs.ImportStats, error) {
		before(p)
		return run(ctx, p, opt)
	}
}

func TestImportInPartsEqualsOneImport(t *testing.T) {
	world := simtest.World(sim.WorldConfig{})
	files, _ := writeDays(t, world, 4, 40)
	ctx := context.Background()

	oneDir := t.TempDir()
	one, err := load.Open(ctx, oneDir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if _, err := jobs.Import(ctx, one, []string{files}, jobs.ImportOptions{}); !errors.Is(err, jobs.ErrSomeRefused) {
		t.Fatal(err)
	}
	want := snapshot(t, one.DB())

	// Parts of a third of a day's file: every file is cut between lines.
	day, err := os.Stat(filepath.Join(files, world.Config().Start.AddDate(0, 0, 1).Format("2006-01-02")+".ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	parts, err := jobs.PlanImport([]string{files}, day.Size()/3)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) < 12 {
		t.Fatalf("%d parts of %d bytes; want every file cut in three or more", len(parts), day.Size()/3)
	}
	whDir := t.TempDir()
	noMirrorYet := func(p jobs.ImportPart) {
		var written int
		_ = filepath.WalkDir(filepath.Join(whDir, "parquet"), func(path string, _ fs.DirEntry, _ error) error {
			if strings.HasSuffix(path, ".parquet") {
				written++
			}
			return nil
		})
		if written > 0 {
			t.Errorf("before part %d of %d: %d Parquet files; want the mirror written by the last part only", p.Index, p.Of, written)
		}
	}
	st, err := jobs.ImportParts(ctx, parts, jobs.ImportOptions{}, inProcess(whDir, noMirrorYet))
	if !errors.Is(err, jobs.ErrSomeRefused) || len(st.Refused) != 1 || !strings.Contains(st.Refused[0], ".ndjson:41") {
		t.Fatalf("import in parts: %v, refused %v: want the truncated body refused by file and line, as one import does", err, st.Refused)
	}
	if st.Bodies != 161 || st.Landed != 160 || st.Files != 4 || len(st.Runs) != len(parts) {
		t.Fatalf("import in %d parts: %d bodies, %d landed, %d files, %d runs; want 161, 160, 4, %d", len(parts), st.Bodies, st.Landed, st.Files, len(st.Runs), len(parts))
	}

	wh, err := load.Open(ctx, whDir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if diff := compare(want, snapshot(t, wh.DB())); diff != "" {
		t.Fatalf("in parts differs from one import: %s", diff)
	}
	mirrorEqualsTables(t, wh, whDir, want)
	var recorded int
	if err := wh.DB().QueryRow(`SELECT count(*) FROM etl_runs WHERE job = 'import' AND args LIKE '%"part":%'`).Scan(&recorded); err != nil || recorded != len(parts) {
		t.Fatalf("%d import runs name their part, %v; want %d", recorded, err, len(parts))
	}
}

func TestImportPartsStopsAtTheFailedPart(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.json", "b.json", "c.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"x":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := jobs.PlanImport([]string{dir}, 1)
	if err != nil || len(parts) != 4 || !parts[3].Finish {
		t.Fatalf("%d parts, %v; want a file each, then the finishing part", len(parts), err)
	}
	var ran []int
	run := func(_ context.Context, p jobs.ImportPart, _ jobs.ImportOptions) (jobs.ImportStats, error) {
		ran = append(ran, p.Index)
		if p.Index == 2 {
			return jobs.ImportStats{Runs: []string{"r2"}, Bodies: 0}, errors.New("disk full")
		}
		return jobs.ImportStats{Runs: []string{"r1"}, Files: 1, Bodies: 1, Landed: 1, Rows: map[string]int64{"shipments": 1}}, nil
	}
	st, err := jobs.ImportParts(context.Background(), parts, jobs.ImportOptions{}, run)
	if err == nil || !strings.Contains(err.Error(), "part 2 of 4") || !strings.Contains(err.Error(), "b.json") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v: want it to name part 2 of 4, its file, and the cause", err)
	}
	if len(ran) != 2 || st.Bodies != 1 || st.Rows["shipments"] != 1 || len(st.Runs) != 2 {
		t.Fatalf("ran parts %v, stats %+v: want parts 1 and 2 run, part 1's work counted", ran, st)
	}

	// Options that cannot work fail before any part runs.
	ran = nil
	if _, err := jobs.ImportParts(context.Background(), parts, jobs.ImportOptions{Endpoint: "shipment"}, run); err == nil || len(ran) != 0 {
		t.Fatalf("--endpoint without --request: %v after %v parts; want an error before any", err, ran)
	}
}
