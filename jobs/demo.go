package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// DemoOptions configure the demo.
type DemoOptions struct {
	Days int    // virtual days to run, one nightly job each
	Dir  string // the warehouse to build
	Seed int64  // seed of the simulated world
	// Shipments in the simulated world; the demo tracks each from the day
	// it is booked.
	Shipments int
	// ETAErrors are the simulated world's realistic ETA errors (nil:
	// sim.DefaultETAErrors).
	ETAErrors *sim.ETAErrors
	// WorldDays is how long the simulated world is (0: Days + 7): the
	// same world run for fewer nights is the same world cut short.
	WorldDays int
	// ScheduleAPI is the profile the simulated schedule product speaks
	// (wire.ScheduleAPIService when empty), answering in pages of at most
	// PageSize items (0: unpaged).
	ScheduleAPI wire.ScheduleAPI
	PageSize    int
	// Refresh is the refresh policy of each night's run (nil:
	// DefaultRefresh, the adaptive policy; NightlyRefresh asks every
	// tracked shipment every night, as the demo did before).
	Refresh *Refresh
	// Warehouse are the options the warehouse is opened with.
	Warehouse load.Options
	// ExitCodes are the caller's exit codes of each verdict, recorded in
	// each night's etl_runs.exit_code as a run records its own (nil:
	// none, which reads as a job that never ended).
	ExitCodes ExitCodes
	Version   string
	Log       *slog.Logger
	// Began, when set, is told what the demo will do once the simulator
	// runs; Night, after each night's run.
	Began func(DemoSetup)
	Night func(DemoNight)
	Now   func() time.Time
}

// DemoSetup is what the demo runs against and asks each night.
type DemoSetup struct {
	URL                   string // the simulator's base URL
	Shipments, Carriers   int
	Days                  int
	Start                 time.Time // the first virtual night's date
	Ports, Lanes, Vessels int       // schedules asked each night
}

// DemoNight is what one night's run did.
type DemoNight struct {
	Date                         time.Time
	Status                       string
	Requests, Schedule, Tracking int64
	Rows                         int64
	Took                         time.Duration
}

// DemoResult says what the demo built.
type DemoResult struct {
	Dir       string
	Days      int
	Requests  int64
	Schedule  int64 // credits spent
	Tracking  int64 // calls
	Rows      map[string]int64
	Elapsed   time.Duration
	Simulated time.Time // the virtual date of the last day
}

// demoKey is the simulator's key inside the demo; it never leaves the
// process.
const demoKey = "etalake-demo"

// ErrNotADemo: the demo refuses to write into a warehouse it did not build.
var ErrNotADemo = errors.New("not a demo warehouse")

// Demo starts the simulator in-process on loopback, and for each virtual
// day tracks the shipments booked so far and runs the nightly job against
// it (with opt.Refresh's policy), as a scheduler would, with the schedules of a few busy ports, lanes
// and vessels. Nothing to configure. The warehouse is rebuilt from scratch
// if it is a previous demo's, whose readers see its last version until the
// new demo publishes (load.Options.Fresh); any other warehouse is refused.
func Demo(ctx context.Context, opt DemoOptions) (DemoResult, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if err := opt.Validate(); err != nil {
		return DemoResult{}, fmt.Errorf("demo: %w", err)
	}
	began := opt.Now()
	if err := checkDemoDir(ctx, opt.Dir, opt.Warehouse); err != nil {
		return DemoResult{}, err
	}
	world := sim.NewWorld(opt.world())
	start := world.Config().Start
	clock := sim.NewClock(start, 0, nil)
	api, _ := wire.ParseScheduleAPI(string(opt.ScheduleAPI)) // validated
	svc, base, stop, err := demoSimulator(world, clock, api, opt.PageSize)
	if err != nil {
		return DemoResult{}, err
	}
	defer stop()

	// A previous demo's warehouse is built again from nothing, its
	// readers keeping its last version until the new one is published.
	wopt := opt.Warehouse
	wopt.Fresh = true
	wh, err := load.Open(ctx, opt.Dir, wopt)
	if err != nil {
		return DemoResult{}, err
	}
	defer wh.Close()
	key, _ := extract.NewKey(demoKey)
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: demoRate})
	if err != nil {
		return DemoResult{}, err
	}
	sel := demoSchedules(world, start)
	if opt.Began != nil {
		opt.Began(DemoSetup{URL: base, Shipments: len(world.Shipments()), Carriers: len(world.Truth().Carriers), Days: opt.Days,
			Start: start, Ports: len(sel.Ports), Lanes: len(sel.Lanes), Vessels: len(sel.Vessels)})
	}
	res := DemoResult{Dir: opt.Dir, Days: opt.Days, Rows: map[string]int64{}}
	tracked := map[wire.ShipmentRef]bool{}
	for d := 0; d < opt.Days; d++ {
		night := start.AddDate(0, 0, d).Add(2 * time.Hour)
		clock.Set(night)
		day := sel
		day.Shipments = newlyBooked(world, night, tracked)
		client, err := extract.NewClient(extract.Config{
			ScheduleURL: base + svc.ScheduleBasePath(), TrackingURL: base + sim.TrackingPrefix, Key: key, Limiter: lim,
			ScheduleAPI: api, UserAgent: "etalake-demo/" + opt.Version,
		})
		if err != nil {
			return res, err
		}
		t0 := opt.Now()
		r, err := RunJob(ctx, client, wh, RunOptions{
			Job: "demo", LogicalDate: night, Selection: day, Track: true,
			CapSchedule: extract.Unlimited, CapTracking: extract.Unlimited, Refresh: opt.Refresh,
			Night: d < opt.Days-1, Version: opt.Version, Log: opt.Log, Now: opt.Now, ExitCodes: opt.ExitCodes,
		})
		if err != nil {
			return res, fmt.Errorf("demo: night of %s: %w", night.Format(time.DateOnly), err)
		}
		rows := res.add(night, r.Run)
		if opt.Night != nil {
			opt.Night(DemoNight{Date: night, Status: r.Run.Status, Requests: r.Run.Requests, Schedule: r.Run.SpentSchedule,
				Tracking: r.Run.CallsTracking, Rows: rows, Took: opt.Now().Sub(t0)})
		}
	}
	res.Elapsed = opt.Now().Sub(began)
	return res, nil
}

// demoSimulator serves the demo's simulated service of world on loopback,
// with the demo's key and credits: its base URL, and stop to end it.
func demoSimulator(world *sim.World, clock *sim.Clock, api wire.ScheduleAPI, pageSize int) (svc *sim.Service, base string, stop func(), err error) {
	credits := int64(50_000)
	scfg := demoService(api, pageSize)
	scfg.World, scfg.Clock = world, clock
	scfg.Keys = []sim.KeySpec{{Key: demoKey, Schedule: &credits, Tracking: &credits}}
	if svc, err = sim.New(scfg); err != nil {
		return nil, "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, fmt.Errorf("demo: starting the simulator: %w", err)
	}
	srv := &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return svc, "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// add counts a night's run in res, and returns the rows it loaded.
func (res *DemoResult) add(night time.Time, run load.Run) int64 {
	res.Requests += run.Requests
	res.Schedule += run.SpentSchedule
	res.Tracking += run.CallsTracking
	rows := int64(0)
	for t, n := range run.Rows {
		res.Rows[t] += n
		rows += n
	}
	res.Simulated = night
	return rows
}

// demoVesselsPerCarrier is how many vessels of each carrier the demo asks
// by vessel each night: schedule reliability is clustered by vessel (a
// vessel's delay carries over to its next calls), so a carrier needs
// several vessels for an interval narrower than the whole scale.
const demoVesselsPerCarrier = 4

// demoSchedules picks the schedules the demo asks each night: the ports
// with by-port data and the most lanes, the busiest lanes, and up to
// demoVesselsPerCarrier vessels of every carrier with by-vessel schedules,
// so that the schedule reliability it reports covers every carrier whose
// schedules show actual arrivals (by port or by vessel), not only the few
// that answer by port.
func demoSchedules(w *sim.World, at time.Time) Selection {
	var sel Selection
	for _, p := range w.Ports() {
		if _, err := w.PortSchedule(p.Locode, at); err == nil && len(sel.Ports) < 6 {
			sel.Ports = append(sel.Ports, p.Locode)
		}
	}
	lanes := w.Lanes()
	sort.SliceStable(lanes, func(i, j int) bool { return lanes[i].Shipments > lanes[j].Shipments })
	for _, l := range lanes[:min(6, len(lanes))] {
		sel.Lanes = append(sel.Lanes, Lane{POL: l.POL, POD: l.POD})
	}
	// One vessel of each of a carrier's services first, then a second, …:
	// the services of a carrier differ in reliability.
	perCarrier, perService := map[string]int{}, map[string]int{}
	taken := map[int]bool{}
	for round := 1; round <= demoVesselsPerCarrier; round++ {
		for _, v := range w.Vessels() {
			if taken[v.IMO] || perCarrier[v.Carrier] >= demoVesselsPerCarrier || perService[v.Service] >= round {
				continue
			}
			if _, err := w.VesselSchedule(v.IMO, at); err == nil {
				sel.Vessels = append(sel.Vessels, v.IMO)
				taken[v.IMO] = true
				perCarrier[v.Carrier]++
				perService[v.Service]++
			}
		}
	}
	return sel
}

// newlyBooked returns the shipments the service shows at at, not delivered,
// that the demo does not track yet, as an operations team adds each new
// booking (on the first night: every shipment on its way).
func newlyBooked(w *sim.World, at time.Time, tracked map[wire.ShipmentRef]bool) []wire.ShipmentRef {
	var out []wire.ShipmentRef
	for _, ref := range w.Shipments() {
		if tracked[ref] {
			continue
		}
		s, err := w.Shipment(ref, at)
		if err != nil {
			continue
		}
		if s.Delivered() {
			continue
		}
		tracked[ref] = true
		out = append(out, ref)
	}
	return out
}

// checkDemoDir refuses a dir that holds a warehouse other than a
// previous demo's (one whose every run is a demo run).
func checkDemoDir(ctx context.Context, dir string, wopt load.Options) error {
	db, err := load.OpenReadOnly(ctx, dir, wopt)
	if errors.Is(err, load.ErrNoWarehouse) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("demo: %s: %w", dir, err)
	}
	pulled, perr := load.IsPull(ctx, db)
	if perr == nil && pulled {
		db.Close()
		return fmt.Errorf("demo: %s is a pull of the lake (etalake lake pull: every writer's rows merged, rebuilt whole by the next pull); run jobs on a worker's warehouse, or give the demo another --warehouse: %w", dir, load.ErrPull)
	}
	byJob, qerr := load.RunsByJob(ctx, db)
	db.Close()
	qerr = errors.Join(perr, qerr)
	if qerr != nil {
		return fmt.Errorf("demo: reading %s: %w", dir, qerr)
	}
	others := int64(0)
	for job, n := range byJob {
		if job != "demo" {
			others += n
		}
	}
	if others > 0 {
		return fmt.Errorf("demo: %s holds a warehouse with %d runs that are not the demo's: %w; give --warehouse another directory", dir, others, ErrNotADemo)
	}
	return nil
}
