package lake_test

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load/loadtest"
)

// maintainSettings are the settings lake maintain loops through beside the
// writers: every one a user may pick, down to --keep-days 0
// --orphan-grace 0s, which the issue saw corrupt the lake for good.
var maintainSettings = []struct {
	keepDays int
	grace    time.Duration
}{
	{0, 0}, {0, time.Nanosecond}, {1, 0}, {0, time.Second}, {7, time.Hour}, {lake.DefaultKeepDays, lake.DefaultOrphanGrace},
}

// lake maintain looping at every setting beside four writer processes
// committing jobs: every job exits 0, and the lake stays readable and
// equal to the warehouses (issue 42: with --keep-days 0 --orphan-grace 0s
// the catalog came to point at a deleted metadata file, and current
// snapshots at deleted data files). The slow tier loops 50 rounds of
// maintain or more beside 4 writers of 3 jobs each, on SQLite and on
// Postgres; the quick tier 8 rounds or more (until the writers are done)
// beside 4 writers of one job, on SQLite.
func TestMaintainBesideCommittingWritersKeepsTheLakeWhole(t *testing.T) {
	slowtest.Long(t)
	rounds, jobs := 8, 1
	if slowtest.Enabled() {
		rounds, jobs = 50, 3
	}
	t.Run("sqlite", func(t *testing.T) { maintainBeside(t, localLake(t), rounds, jobs) })
	t.Run("postgres", func(t *testing.T) {
		slowtest.Require(t, "maintain beside four writer processes on a Postgres catalog, about a minute; the quick tier runs them on SQLite")
		maintainBeside(t, postgresLake(t), rounds, jobs)
	})
}

func maintainBeside(t *testing.T, cfg lake.Config, rounds, jobs int) {
	ctx := context.Background()
	tpl := template(t)
	var dirs []string
	for range 4 {
		dirs = append(dirs, loadtest.CopyDir(t, tpl))
	}
	lk := open(t, cfg, lake.Options{})
	// The tables exist before the writers start, so that maintain has
	// something to do from its first round.
	if err := lk.EnsureTables(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, len(dirs))
	for _, d := range dirs {
		cmd := startWriter(t, cfg, d, jobs, "")
		go func(cmd *exec.Cmd) { done <- cmd.Wait() }(cmd)
	}
	running, round := len(dirs), 0
	var failed []error
	var maintainErr error
	for running > 0 || round < rounds {
		select {
		case err := <-done:
			running--
			if err != nil {
				failed = append(failed, err)
			}
			continue
		default:
		}
		s := maintainSettings[round%len(maintainSettings)]
		opt := lake.DefaultMaintainOptions()
		// One machine, one clock: no allowance for skew, the leases
		// alone hold maintain back.
		opt.KeepDays, opt.OrphanGrace, opt.ClockSkew = s.keepDays, s.grace, 0
		if _, err := lk.Maintain(ctx, opt); err != nil && maintainErr == nil {
			maintainErr = err
			t.Errorf("maintain round %d (--keep-days %d --orphan-grace %s): %v", round, s.keepDays, s.grace, err)
		}
		round++
	}
	// Every writer was waited for above before the test fails: one still
	// running would find its warehouse removed by the test's cleanup.
	if len(failed) > 0 {
		t.Fatalf("%d of %d writers failed beside maintain: %v", len(failed), len(dirs), errors.Join(failed...))
	}
	t.Logf("%d rounds of maintain beside 4 writers of %d jobs", round, jobs)
	checkWhole(t, lk)
	checkLake(t, lk, dirs...)
	opt := lake.DefaultMaintainOptions()
	opt.KeepDays, opt.OrphanGrace, opt.ClockSkew = 0, 0, 0
	if _, err := lk.Maintain(ctx, opt); err != nil {
		t.Fatalf("maintain after the writers: %v", err)
	}
	checkWhole(t, lk)
	checkLake(t, lk, dirs...)
}

// checkWhole fails t when lake status finds a table it cannot read
// whole: its current metadata, a manifest or a data file missing.
func checkWhole(t *testing.T, lk *lake.Lake) {
	t.Helper()
	st, err := lk.Status(context.Background())
	if err != nil {
		t.Fatalf("lake status: %v", err)
	}
	for _, ts := range st {
		if ts.Missing != "" {
			t.Errorf("lake status: %s is broken: %s", ts.Name, ts.Missing)
		}
	}
}
