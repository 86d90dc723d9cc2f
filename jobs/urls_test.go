package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// oneProduct is a client of b's simulator that has a URL for product p
// only: a schedule-only or tracking-only setup.
func (b *bench) oneProduct(t *testing.T, p wire.Product) *extract.Client {
	t.Helper()
	cfg := b.env.Config(t, runKey)
	if p == wire.ProductSchedule {
		cfg.TrackingURL = ""
	} else {
		cfg.ScheduleURL = ""
	}
	cfg.Limiter, _ = extract.NewLimiter(extract.LimiterConfig{Rate: extract.Rate{N: 1000, Window: time.Second}})
	c, err := extract.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (b *bench) runWith(c *extract.Client, opt jobs.RunOptions) (jobs.RunResult, error) {
	opt.LogicalDate = b.env.Service.Clock().Now()
	opt.CapSchedule, opt.CapTracking = extract.Unlimited, extract.Unlimited
	opt.Log = slog.New(slog.NewJSONHandler(&b.logs, nil))
	return jobs.RunJob(context.Background(), c, b.wh, opt)
}

// A schedule-only setup runs its schedules, and asks nothing of tracking,
// not even its balance.
func TestAScheduleOnlySetupRunsItsSchedules(t *testing.T) {
	b := newBench(t, 100, 100)
	c := b.oneProduct(t, wire.ProductSchedule)
	ports := portsOf(t, b.env.Service.World(), 2)
	res, err := b.runWith(c, jobs.RunOptions{Job: "run", Track: true, Selection: jobs.Selection{Ports: ports}})
	if err != nil || res.Run.Status != load.StatusOK || res.Run.SpentSchedule != 2 {
		t.Fatalf("run: %v, %s, %d credits", err, res.Run.Status, res.Run.SpentSchedule)
	}
	for _, e := range b.env.Service.Ledger() {
		if e.Product == string(wire.ProductTracking) {
			t.Errorf("a schedule-only run asked the tracking product: %s", e.Request)
		}
	}
}

// A job whose work needs the product without a URL stops before any
// request — the balances included — with a *jobs.MissingURLError saying
// what needs it, matching extract.ErrNoURL, and is recorded as failed.
func TestAJobNeedingAProductWithoutURLStopsBeforeAnyRequest(t *testing.T) {
	slowtest.Long(t)
	t.Run("tracked shipments, schedule-only", func(t *testing.T) {
		b := newBench(t, 100, 100)
		w := b.env.Service.World()
		if _, err := jobs.TrackAdd(context.Background(), b.wh, visible(t, w, 3), "test", w.Config().Start); err != nil {
			t.Fatal(err)
		}
		c := b.oneProduct(t, wire.ProductSchedule)
		for _, dry := range []bool{true, false} {
			res, err := b.runWith(c, jobs.RunOptions{Job: "run", Track: true, DryRun: dry, Selection: jobs.Selection{Ports: portsOf(t, w, 2)}})
			var e *jobs.MissingURLError
			if !errors.As(err, &e) || !errors.Is(err, extract.ErrNoURL) || e.Product != wire.ProductTracking || e.Shipments != 3 || !e.Tracked {
				t.Fatalf("dry run %v: %v (%+v), want the tracking product missing for 3 tracked shipments", dry, err, e)
			}
			if got, want := err.Error(), "3 tracked shipments are due but the tracking product has no URL"; !strings.HasPrefix(got, want) {
				t.Errorf("error %q, want %q", got, want)
			}
			if res.Run.Status != load.StatusFailed {
				t.Errorf("dry run %v: status %s, want failed", dry, res.Run.Status)
			}
		}
		if n := len(b.env.Service.Ledger()); n != 0 {
			t.Errorf("%d requests sent", n)
		}
		if n := queryCount(t, b.wh, "SELECT count(*) FROM etl_runs WHERE status = 'failed' AND error LIKE '%tracking product has no URL%'"); n != 1 {
			t.Errorf("%d failed runs recorded, want the one that was not dry", n)
		}
	})
	t.Run("schedules, tracking-only", func(t *testing.T) {
		b := newBench(t, 100, 100)
		c := b.oneProduct(t, wire.ProductTracking)
		w := b.env.Service.World()
		sel := jobs.Selection{Ports: portsOf(t, w, 2), Lanes: []jobs.Lane{{POL: w.Lanes()[0].POL, POD: w.Lanes()[0].POD}}, Shipments: visible(t, w, 2)}
		_, err := b.runWith(c, jobs.RunOptions{Job: "backfill", Selection: sel})
		var e *jobs.MissingURLError
		if !errors.As(err, &e) || e.Product != wire.ProductSchedule || e.Ports != 2 || e.Lanes != 1 || e.Shipments != 0 {
			t.Fatalf("%v (%+v), want the schedule product missing for 2 ports and 1 lane", err, e)
		}
		if got, want := e.Due(), "2 port schedules and 1 port-to-port schedule are due"; got != want {
			t.Errorf("Due() = %q, want %q", got, want)
		}
		if n := len(b.env.Service.Ledger()); n != 0 {
			t.Errorf("%d requests sent", n)
		}
	})
}

func TestCreditsOfAOneProductSetup(t *testing.T) {
	b := newBench(t, 100, 40)
	report, err := jobs.Credits(context.Background(), b.oneProduct(t, wire.ProductTracking))
	if err != nil {
		t.Fatal(err)
	}
	if len(report) != 2 || !report[0].NotConfigured || report[0].Product != wire.ProductSchedule || report[0].Current != nil ||
		report[1].NotConfigured || report[1].Current == nil || *report[1].Current.Credits != 40 {
		t.Errorf("report = %+v", report)
	}
	for _, e := range b.env.Service.Ledger() {
		if e.Product != string(wire.ProductTracking) {
			t.Errorf("asked %s", e.Request)
		}
	}
}
