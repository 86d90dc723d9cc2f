package jobs_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

const runKey = "run-test-KEY-5b7e9d"

// bench is a simulator with a frozen virtual clock, a fast rate on both
// sides, and a warehouse.
type bench struct {
	env  *simtest.Env
	wh   *load.Warehouse
	dir  string
	logs bytes.Buffer
	// front, when set, is a server in front of the simulator that the
	// client talks to instead (see wrap).
	front *httptest.Server
	// api is the schedule profile the simulator serves and the client asks.
	api wire.ScheduleAPI
	// retry, when set, is the client's retry policy (else the default).
	retry extract.RetryPolicy
	// mod, when set, changes the client's configuration last.
	mod func(*extract.Config)
}

// wrap puts a handler made by mw in front of the simulator.
func (b *bench) wrap(t *testing.T, mw func(next http.Handler) http.Handler) {
	t.Helper()
	b.front = httptest.NewServer(mw(b.env.Service))
	t.Cleanup(b.front.Close)
}

func newBench(t *testing.T, schedule, tracking int64) *bench {
	return newProfileBench(t, schedule, tracking, wire.ScheduleAPIService, 0)
}

// newProfileBench is newBench with the simulator serving the schedule
// profile api, in pages of at most pageSize items (DCSA; 0: unpaged).
func newProfileBench(t *testing.T, schedule, tracking int64, api wire.ScheduleAPI, pageSize int) *bench {
	t.Helper()
	fast := sim.Rate{N: 1000, Window: time.Second}
	b := &bench{dir: loadtest.Fresh(t, nil), api: api}
	b.env = simtest.Start(t, simtest.Options{
		Keys:        []sim.KeySpec{{Key: runKey, Schedule: simtest.Credits(schedule), Tracking: simtest.Credits(tracking)}},
		Rate:        fast,
		ScheduleAPI: string(api),
		PageSize:    pageSize,
	})
	var err error
	if b.wh, err = load.Open(context.Background(), b.dir, load.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.wh.Close() })
	return b
}

func (b *bench) client(t *testing.T, capS, capT, maxDecode int64) *extract.Client {
	t.Helper()
	cfg := b.env.Config(t, runKey)
	cfg.ScheduleAPI = b.api
	if b.front != nil {
		cfg.ScheduleURL, cfg.TrackingURL = b.front.URL+b.env.Service.ScheduleBasePath(), b.front.URL+sim.TrackingPrefix
	}
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.Rate{N: 1000, Window: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Limiter = lim
	cfg.MaxDecode = maxDecode
	cfg.Retry = b.retry
	cfg.ScheduleBudget = extract.NewBudget(wire.ProductSchedule, capS)
	cfg.TrackingBudget = extract.NewBudget(wire.ProductTracking, capT)
	if b.mod != nil {
		b.mod(&cfg)
	}
	c, err := extract.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (b *bench) run(t *testing.T, opt jobs.RunOptions) jobs.RunResult {
	t.Helper()
	res, err := b.runErr(t, opt)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func (b *bench) runErr(t *testing.T, opt jobs.RunOptions) (jobs.RunResult, error) {
	t.Helper()
	if opt.Job == "" {
		opt.Job, opt.Track = "run", true
	}
	if opt.LogicalDate.IsZero() {
		opt.LogicalDate = b.env.Service.Clock().Now()
	}
	if opt.CapSchedule == 0 && opt.CapTracking == 0 {
		opt.CapSchedule, opt.CapTracking = extract.Unlimited, extract.Unlimited
	}
	opt.Log = slog.New(slog.NewJSONHandler(&b.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := b.client(t, opt.CapSchedule, opt.CapTracking, opt.MaxBody)
	return jobs.RunJob(context.Background(), c, b.wh, opt)
}

// charged counts the paid requests the simulator charged.
func (b *bench) charged() int {
	n := 0
	for _, e := range b.env.Service.Ledger() {
		if e.Charged {
			n++
		}
	}
	return n
}

// visible picks n shipments the world shows at its start, not finished.
func visible(t *testing.T, w *sim.World, n int) []wire.ShipmentRef {
	t.Helper()
	at := w.Config().Start
	var out []wire.ShipmentRef
	for _, ref := range w.Shipments() {
		s, err := w.Shipment(ref, at)
		if err != nil || s.Route == nil || s.Route.Pod == nil || (s.Route.Pod.Actual != nil && *s.Route.Pod.Actual) {
			continue
		}
		out = append(out, ref)
		if len(out) == n {
			return out
		}
	}
	t.Fatalf("only %d shipments in transit", len(out))
	return nil
}

// queryCount is the one BIGINT the query q returns.
var queryCount = jobs.QueryCount

func TestNightlyRunsOverVirtualDays(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 1000)
	w := b.env.Service.World()
	ships := visible(t, w, 12)
	port := simtest.Port(t, w, w.Config().Start)
	sel := jobs.Selection{Ports: []string{port}, Lanes: []jobs.Lane{{POL: w.Lanes()[0].POL, POD: w.Lanes()[0].POD}}, Shipments: ships}

	// The dry run's estimate is what the run then spends.
	plan := b.run(t, jobs.RunOptions{Selection: sel, DryRun: true}).Plan
	if b.charged() != 0 {
		t.Fatal("the dry run spent credits")
	}
	first := b.run(t, jobs.RunOptions{Selection: sel})
	if first.Run.Status != load.StatusOK || len(first.Failed) > 0 {
		t.Fatalf("first run: %s, failed %v, stopped %v", first.Run.Status, first.Failed, first.Stopped)
	}
	s, tr := plan.Spend()
	if int64(s) != first.Run.SpentSchedule || int64(tr) != first.Run.CallsTracking || b.charged() != s+tr {
		t.Fatalf("dry run planned %d+%d credits, the run spent %d+%d, the server charged %d",
			s, tr, first.Run.SpentSchedule, first.Run.CallsTracking, b.charged())
	}
	if d := first.Run.BalanceScheduleBefore; d == nil || *d != 1000 || *first.Run.BalanceScheduleAfter != 1000-int64(s) {
		t.Fatalf("balances %v → %v", first.Run.BalanceScheduleBefore, first.Run.BalanceScheduleAfter)
	}

	// A second run of the same date spends nothing and sends nothing.
	before := len(b.env.Service.Ledger())
	again := b.run(t, jobs.RunOptions{})
	if b.charged() != s+tr || len(b.env.Service.Ledger()) != before || again.Run.Requests != 0 {
		t.Fatalf("same-day re-run sent %d requests", len(b.env.Service.Ledger())-before)
	}

	// Day after day, the history grows as the world changes.
	var etaRows []int
	for d := 1; d <= 4; d++ {
		b.env.Service.Clock().Advance(24 * time.Hour)
		res := b.run(t, jobs.RunOptions{})
		if res.Run.Status != load.StatusOK {
			t.Fatalf("day %d: %s: %v", d, res.Run.Status, res.Failed)
		}
		etaRows = append(etaRows, queryCount(t, b.wh, "SELECT count(*) FROM eta_observations"))
	}
	for i := 1; i < len(etaRows); i++ {
		if etaRows[i] <= etaRows[i-1] {
			t.Fatalf("eta history did not grow: %v", etaRows)
		}
	}
	if n := queryCount(t, b.wh, "SELECT count(DISTINCT observed_at) FROM eta_observations"); n != 5 {
		t.Fatalf("%d distinct observation times, want one per day (5)", n)
	}
	if n := queryCount(t, b.wh, "SELECT count(*) FROM etl_runs WHERE status <> 'ok'"); n != 0 {
		t.Fatalf("%d runs not ok", n)
	}

	// The key is in no file of the warehouse and no log line.
	err := filepath.WalkDir(b.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() { // a version's files are also reached through links
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(runKey)) {
			t.Errorf("the key is in %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.logs.String(), runKey) {
		t.Error("the key is in the logs")
	}
}

func TestQuotaExhaustedMidRunKeepsDataAndResumes(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 5) // five tracking credits for eight shipments
	ships := visible(t, b.env.Service.World(), 8)
	res := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}})
	if res.Run.Status != load.StatusPartial || res.Stopped[wire.ProductTracking] == "" {
		t.Fatalf("status %s, stopped %v; want partial with tracking stopped", res.Run.Status, res.Stopped)
	}
	if got := queryCount(t, b.wh, "SELECT count(*) FROM shipments"); got != 5 {
		t.Fatalf("%d shipments kept, want the 5 paid for", got)
	}
	if n := queryCount(t, b.wh, "SELECT count(*) FROM etl_runs WHERE status = 'partial' AND stop_reason LIKE 'tracking stopped%'"); n != 1 {
		t.Fatalf("the stop is not recorded in etl_runs")
	}
	// Next month the credits are back: the same logical date resumes and
	// buys only the three missing.
	logical := res.Run.LogicalDate
	clock := b.env.Service.Clock()
	clock.Set(time.Date(clock.Now().Year(), clock.Now().Month()+1, 1, 1, 0, 0, 0, time.UTC))
	charged := b.charged()
	res = b.run(t, jobs.RunOptions{LogicalDate: *logical})
	if res.Run.Status != load.StatusOK || b.charged()-charged != 3 {
		t.Fatalf("resume: %s, %d charged; want ok and 3", res.Run.Status, b.charged()-charged)
	}
	if got := queryCount(t, b.wh, "SELECT count(*) FROM shipments"); got != 8 {
		t.Fatalf("%d shipments after resuming, want 8", got)
	}
}

func TestCapIsReachedNotApproached(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 1000)
	w := b.env.Service.World()
	// Unknown shipments (free 404s) mixed with known ones: a cap of 4 buys 4.
	ships := visible(t, w, 6)
	ships = append([]wire.ShipmentRef{{Number: "CSQU3054383", Type: "CT"}, {Number: "MSCU1234566", Type: "CT"}}, ships...)
	res := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}, CapSchedule: extract.Unlimited, CapTracking: 4})
	if res.Run.CallsTracking != 4 || b.charged() != 4 || res.Run.Status != load.StatusPartial {
		t.Fatalf("cap 4: %d charged (%d by our count), %s", b.charged(), res.Run.CallsTracking, res.Run.Status)
	}
	for _, nf := range res.NotFound { // which unknowns were asked depends on the workers' order
		if nf != "shipment:CT:CSQU3054383" && nf != "shipment:CT:MSCU1234566" {
			t.Fatalf("not found = %v", res.NotFound)
		}
	}
}

func TestBackfillLeavesTheTrackedSetAlone(t *testing.T) {
	slowtest.Long(t)
	b := newBench(t, 1000, 1000)
	ships := visible(t, b.env.Service.World(), 3)
	res := b.run(t, jobs.RunOptions{Job: "backfill", Selection: jobs.Selection{Shipments: ships}})
	if res.Run.Status != load.StatusOK || res.Run.CallsTracking != 3 {
		t.Fatalf("backfill: %s, %d calls", res.Run.Status, res.Run.CallsTracking)
	}
	if n := queryCount(t, b.wh, "SELECT count(*) FROM tracked_shipments"); n != 0 {
		t.Fatalf("backfill tracked %d shipments", n)
	}
}
