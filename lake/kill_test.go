package lake_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load/loadtest"
)

// Writers killed with SIGKILL at random moments — between a table's data
// files and its commit, or anywhere in the job — and each re-run: the
// lake holds exactly the warehouse's rows (what a never-killed run
// commits), every file the snapshots name exists, and after lake
// maintain no file is left that no snapshot references.
func TestKilledWritersLeaveTheLakeWhole(t *testing.T) {
	slowtest.Long(t)
	kills := 2 // one of each kind: between files and commit, and anywhere
	if slowtest.Enabled() {
		kills = 20
	}
	cfg := localLake(t)
	dir := loadtest.CopyDir(t, template(t))
	rng := rand.New(rand.NewPCG(33, 1))
	tables := lake.Tables()
	for i := range kills {
		kill := "before:" + tables[rng.IntN(len(tables))].Name
		if i%2 == 1 {
			kill = fmt.Sprintf("after:%dms", 200+rng.IntN(2500))
		}
		cmd := startWriter(t, cfg, dir, 2, kill)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != -1) {
			t.Fatalf("kill %d (%s): the writer failed otherwise: %v", i, kill, err)
		}
		if i%3 == 2 { // a re-run between kills, now and then
			if err := startWriter(t, cfg, dir, 1, "").Wait(); err != nil {
				t.Fatalf("re-run after kill %d: %v", i, err)
			}
		}
	}
	if err := startWriter(t, cfg, dir, 1, "").Wait(); err != nil {
		t.Fatalf("the last re-run: %v", err)
	}
	lk := open(t, cfg, lake.Options{})
	checkLake(t, lk, dir)

	opt := lake.DefaultMaintainOptions()
	opt.KeepDays, opt.OrphanGrace = 0, time.Nanosecond
	if _, err := lk.Maintain(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	checkLake(t, lk, dir)
	referenced := map[string]bool{}
	for _, tbl := range tables {
		files, err := lk.Files(context.Background(), tbl)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			referenced[strings.TrimPrefix(f.Path, "file://")] = true
		}
	}
	root := strings.TrimPrefix(cfg.Warehouse, "file://")
	var left []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "/data/") && !referenced[p] {
			left = append(left, p)
		}
		return err
	})
	if len(left) > 0 {
		t.Errorf("after maintain, %d data files no snapshot references, as %s", len(left), left[0])
	}
}
