package lake_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
)

// A writer that stopped feeding the lake stays in lake status with its
// last run, for as long as a table holds its rows: issue 42 saw writer A
// vanish after `lake maintain --keep-days 0` expired its snapshots while
// its 12 534 rows stayed. Here writer A commits, writer B commits after
// it, and a maintain keeps each table's current snapshot alone.
func TestStatusKeepsAWriterWhoseSnapshotsExpired(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	lk := open(t, localLake(t), lake.Options{})
	a := strconv.FormatInt(writerOf(t, fed(t, lk)), 10)
	before := lastRunOf(t, lk, a)
	fed(t, lk)
	opt := lake.DefaultMaintainOptions()
	opt.KeepDays = 0
	if _, err := lk.Maintain(ctx, opt); err != nil {
		t.Fatal(err)
	}
	tables, err := lk.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	expired := 0
	for _, st := range tables {
		run, ok := before[st.Name]
		if !ok {
			continue
		}
		commits, err := lk.Commits(ctx, st.Name)
		if err != nil {
			t.Fatal(err)
		}
		if commits[run] == 0 {
			expired++
		}
		var got *lake.WriterRun
		for i, r := range st.Writers {
			if r.Writer == a {
				got = &st.Writers[i]
			}
		}
		switch {
		case got == nil:
			t.Errorf("%s: writer %s, whose rows it holds, is not in lake status (writers %+v)", st.Name, a, st.Writers)
		case got.Run != run || got.At.IsZero():
			t.Errorf("%s: writer %s's last run %q at %s, want %q and its time", st.Name, a, got.Run, got.At, run)
		}
	}
	if expired == 0 {
		t.Fatal("no table lost writer A's snapshots: the test tests nothing")
	}
}

// lastRunOf is writer's last run per table, by lake status, for the
// tables where it has one.
func lastRunOf(t *testing.T, lk *lake.Lake, writer string) map[string]string {
	t.Helper()
	tables, err := lk.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, st := range tables {
		for _, r := range st.Writers {
			if r.Writer == writer && r.Run != "" {
				out[st.Name] = r.Run
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("writer %s committed no table", writer)
	}
	return out
}
