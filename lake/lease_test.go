package lake_test

import (
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
)

// A writer killed between its data files and its commit leaves its lease:
// while it lives, maintain at --orphan-grace 0s spares the files (they
// could be a commit in flight); once it expired (LeaseTTL, the clock
// moved on rather than slept through), they are orphans like any, and
// maintain removes them.
func TestADeadWritersLeaseHoldsMaintainBackOnlyUntilItExpires(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	cfg := localLake(t)
	dir := loadtest.CopyDir(t, template(t))
	err := startWriter(t, cfg, dir, 1, "before:port_calls").Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != -1 {
		t.Fatalf("the writer killed before its commit of port_calls: %v", err)
	}
	lk := open(t, cfg, lake.Options{})
	root := strings.TrimPrefix(cfg.Warehouse, "file://")
	unreferenced := func() int {
		referenced := map[string]bool{}
		for _, tbl := range lake.Tables() {
			files, err := lk.Files(ctx, tbl)
			if err != nil {
				continue // not created yet
			}
			for _, f := range files {
				referenced[strings.TrimPrefix(f.Path, "file://")] = true
			}
		}
		n := 0
		_ = filepath.WalkDir(filepath.Join(root, "etalake.db", "port_calls", "data"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !referenced[p] {
				n++
			}
			return nil
		})
		return n
	}
	left := unreferenced()
	if left == 0 {
		t.Fatal("the killed writer left no data file of port_calls: the test tests nothing")
	}
	leases, err := lk.Leases(ctx, time.Now(), 0)
	if err != nil || len(leases) != 1 {
		t.Fatalf("leases after the kill: %v, %v; want the dead writer's", leases, err)
	}

	opt := lake.DefaultMaintainOptions()
	opt.KeepDays, opt.OrphanGrace, opt.ClockSkew = 0, 0, 0
	if _, err := lk.Maintain(ctx, opt); err != nil {
		t.Fatal(err)
	}
	if n := unreferenced(); n != left {
		t.Errorf("maintain beside a live lease: %d of the %d files of the commit in flight left, want all", n, left)
	}

	later := time.Now().Add(lake.LeaseTTL + time.Second)
	opt.Now = func() time.Time { return later }
	if _, err := lk.Maintain(ctx, opt); err != nil {
		t.Fatal(err)
	}
	if n := unreferenced(); n != 0 {
		t.Errorf("maintain once the dead writer's lease expired: %d of its %d files left, want none", n, left)
	}
}

// A commit whose lease lapsed before it swung the catalog — its process
// stood still past LeaseTTL, so maintain may have taken its files for a
// killed job's — commits nothing: the job fails with ErrLeaseLapsed, and
// the next job commits what it had to, the lake then equal to the
// warehouse. The clock moves past the lease once it is taken, rather than
// the test sleeping through it.
func TestACommitWhoseLeaseLapsedCommitsNothingAndTheNextJobCommitsIt(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	cfg := localLake(t)
	var mu sync.Mutex
	calls, base := 0, time.Now()
	lapsing := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 { // the lease taken
			return base
		}
		return base.Add(lake.LeaseTTL + time.Minute)
	}
	lk := open(t, cfg, lake.Options{Now: lapsing})
	dir := loadtest.CopyDir(t, template(t))
	err := replay(ctx, dir, load.Options{Lake: lk}, jobs.ReplayOptions{})
	if !errors.Is(err, lake.ErrLeaseLapsed) {
		t.Fatalf("a job whose lease lapsed: %v, want %v", err, lake.ErrLeaseLapsed)
	}
	tables, err := lk.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range tables {
		if st.Rows != 0 {
			t.Errorf("%s: %d rows committed under a lapsed lease", st.Name, st.Rows)
		}
	}
	lk.Close()

	log := &jobLog{}
	lk = open(t, cfg, lake.Options{Log: log.logger()})
	night(t, dir, lk, log)
	checkLake(t, lk, dir)
}
