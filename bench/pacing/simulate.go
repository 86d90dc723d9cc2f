package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/webhook"
	"github.com/etalake/etalake/wire"
)

// benchKey is the simulator's key inside the benchmark; it never leaves
// the process. pushKey signs the simulator's webhooks.
const benchKey = "etalake-bench-pacing"

var pushKey = bytes.Repeat([]byte{0x5a}, 32)

// fast is the rate of the simulator and of the limiter: the benchmark
// measures a policy, not time.
var fast = extract.Rate{N: 5000, Window: time.Second}

// trial is one policy run over one world.
type trial struct {
	Policy policy
	World  *sim.World
	Seed   int64
	Jumps  bool
	Nights int
	Dir    string // the warehouse
	// Credits is the tracking credits a period the key gets.
	Credits int64
	Log     *slog.Logger
}

// outcome is what a trial did, night by night, and what it left in its
// warehouse for the metrics.
type outcome struct {
	Trial trial
	// Nights are the logical nights' run times (the virtual clock's when
	// each night's run asked), oldest first.
	Nights []time.Time
	// TrackedAt is the night each shipment joined the tracked set.
	TrackedAt map[wire.ShipmentRef]time.Time
	// Charged is the tracking credits the simulator charged; Calls the
	// tracking calls the runs counted (the same, or a run lost count).
	Charged, Calls int64
	// Deferred sums the due shipments the pace deferred, night by night;
	// Beyond those asked past the allowance (never observed, or starving).
	Deferred, Beyond int
	// Pushes counts the webhooks delivered (each landed once).
	Pushes int
	// Partial counts the nights whose run was not ok.
	Partial int
	Took    time.Duration
	// metrics, computed on the warehouse after the last night.
	M metrics
}

// simulate runs t: the simulator in-process over httptest, its virtual
// clock set to each night in turn, the nightly job (jobs.RunJob) with the
// policy's refresh against it, tracking every shipment from the night it
// is booked (as the demo does); with pushes, the vendor's webhooks of
// the day flushed through a receiver into the warehouse's push landing
// before each night's run, and the warehouse opened anew for each night
// (a writer's Open lands them). The metrics are computed at the end, on
// the warehouse as its last night's run published it.
func simulate(ctx context.Context, t trial) (*outcome, error) {
	began := time.Now()
	start := t.World.Config().Start
	api, err := startService(t)
	if err != nil {
		return nil, err
	}
	defer api.srv.Close()
	open := func() (*load.Warehouse, error) { return load.Open(ctx, t.Dir, load.Options{}) }
	wh, err := open()
	if err != nil {
		return nil, err
	}
	defer func() { _ = wh.Close() }()

	var push *pushes
	if t.Policy.Pushes {
		if push, err = startPushes(api.svc, t.Dir); err != nil {
			return nil, err
		}
		defer push.close()
	}
	out := &outcome{Trial: t, TrackedAt: map[wire.ShipmentRef]time.Time{}}
	for d := 0; d < t.Nights; d++ {
		night := start.AddDate(0, 0, d).Add(2 * time.Hour)
		api.clock.Set(night)
		if push != nil {
			n, err := push.flush(ctx)
			if err != nil {
				return nil, fmt.Errorf("night of %s: %w", night.Format(time.DateOnly), err)
			}
			out.Pushes += n
			// The next writer's Open lands what the receiver took.
			if err := wh.Close(); err != nil {
				return nil, err
			}
			if wh, err = open(); err != nil {
				return nil, err
			}
		}
		// A night's publish waits for the last night, as the demo's,
		// unless the warehouse is closed between nights anyway.
		if err := api.night(ctx, t, wh, night, push == nil && d < t.Nights-1, out); err != nil {
			return nil, fmt.Errorf("night of %s: %w", night.Format(time.DateOnly), err)
		}
	}
	out.Charged = api.svc.Stats().Charged[string(wire.ProductTracking)]
	if out.M, err = measure(ctx, wh, out); err != nil {
		return nil, fmt.Errorf("measuring %s: %w", t.Dir, err)
	}
	out.Took = time.Since(began)
	return out, nil
}

// service is the simulator a trial runs against, over httptest, with the
// key and the limiter of its client.
type service struct {
	clock *sim.Clock
	svc   *sim.Service
	srv   *httptest.Server
	key   extract.Key
	lim   *extract.Limiter
}

// startService starts the simulator of the trial's world, its clock at
// the world's start and frozen, schedule credits plenty and tracking ones
// the trial's. The caller closes srv.
func startService(t trial) (*service, error) {
	clock := sim.NewClock(t.World.Config().Start, 0, nil)
	schedule, tracking := int64(plentyCredits), t.Credits
	svc, err := sim.New(sim.Config{World: t.World, Clock: clock, Rate: sim.Rate{N: fast.N, Window: fast.Window},
		Keys: []sim.KeySpec{{Key: benchKey, Schedule: &schedule, Tracking: &tracking}}})
	if err != nil {
		return nil, err
	}
	key, err := extract.NewKey(benchKey)
	if err != nil {
		return nil, err
	}
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: fast})
	if err != nil {
		return nil, err
	}
	return &service{clock: clock, svc: svc, srv: httptest.NewServer(svc), key: key, lim: lim}, nil
}

// night runs the nightly job of one night with the policy's refresh,
// tracking the shipments booked since the last, and adds what it did to
// out; with deferPublish the publish waits for a later night.
func (s *service) night(ctx context.Context, t trial, wh *load.Warehouse, night time.Time, deferPublish bool, out *outcome) error {
	booked := newlyBooked(t.World, night, out.TrackedAt)
	client, err := extract.NewClient(extract.Config{TrackingURL: s.srv.URL + sim.TrackingPrefix,
		ScheduleURL: s.srv.URL + s.svc.ScheduleBasePath(), Key: s.key, Limiter: s.lim, UserAgent: "etalake-bench-pacing"})
	if err != nil {
		return err
	}
	refresh := t.Policy.Refresh
	r, err := jobs.RunJob(ctx, client, wh, jobs.RunOptions{
		Job: "run", LogicalDate: night, Selection: jobs.Selection{Shipments: booked}, Track: true,
		CapSchedule: extract.Unlimited, CapTracking: extract.Unlimited, Refresh: &refresh,
		Night: deferPublish, Log: t.Log,
	})
	if err != nil {
		return err
	}
	out.Nights = append(out.Nights, night)
	out.Calls += r.Run.CallsTracking
	out.Deferred += len(r.Plan.Refresh.Deferred)
	out.Beyond += r.Plan.Refresh.Beyond
	if r.Run.Status != load.StatusOK {
		out.Partial++
		t.Log.Warn("pacing: a night's run was not ok", "night", night.Format(time.DateOnly), "status", r.Run.Status,
			"policy", t.Policy.Name, "seed", t.Seed)
	}
	return nil
}

// pushes is the vendor's side of the webhooks and our receiver: the
// simulator's Pusher posting to a webhook.Receiver over httptest, which
// lands each verified body in the warehouse's push landing, as `etalake
// webhook serve` does.
type pushes struct {
	pusher  *sim.Pusher
	landing *jobs.PushLanding
	srv     *httptest.Server
}

func startPushes(svc *sim.Service, dir string) (*pushes, error) {
	landing, err := jobs.OpenPushLanding(dir, jobs.PushOptions{})
	if err != nil {
		return nil, err
	}
	secret, err := webhook.ParseSecret(sim.FormatWebhookSecret(pushKey))
	if err != nil {
		return nil, errors.Join(err, landing.Close())
	}
	cfg := webhook.DefaultConfig()
	cfg.Secret = secret
	rcv, err := webhook.New(cfg, landing.Deliver)
	if err != nil {
		return nil, errors.Join(err, landing.Close())
	}
	srv := httptest.NewServer(rcv)
	p, err := sim.NewPusher(svc, sim.PushConfig{URL: srv.URL, Secrets: [][]byte{pushKey}})
	if err != nil {
		srv.Close()
		return nil, errors.Join(err, landing.Close())
	}
	return &pushes{pusher: p, landing: landing, srv: srv}, nil
}

// flush sends the pushes of the events up to the virtual clock's now and
// hands the receiver's journal to the next writer; it returns how many
// were delivered. A push that fails is an error: the benchmark's
// receiver is never down.
func (p *pushes) flush(ctx context.Context) (int, error) {
	n := 0
	for _, a := range p.pusher.Flush(ctx) {
		if a.Err != nil {
			return n, fmt.Errorf("push %s (%s of %s): %d %w", a.Push.ID, a.Push.Type, a.Push.Ref.Number, a.Status, a.Err)
		}
		n++
	}
	if _, err := p.landing.Rotate(0); err != nil {
		return n, err
	}
	return n, nil
}

func (p *pushes) close() {
	p.srv.Close()
	_ = p.landing.Close()
}

// newlyBooked is the shipments the service shows at night, not
// delivered, that are not tracked yet, as an operations team adds each
// new booking (on the first night: every shipment on its way); it
// records the night in trackedAt. The demo tracks the same.
func newlyBooked(w *sim.World, night time.Time, trackedAt map[wire.ShipmentRef]time.Time) []wire.ShipmentRef {
	var out []wire.ShipmentRef
	for _, ref := range w.Shipments() {
		if _, ok := trackedAt[ref]; ok {
			continue
		}
		s, err := w.Shipment(ref, night)
		if err != nil || s.Delivered() {
			continue
		}
		trackedAt[ref] = night
		out = append(out, ref)
	}
	return out
}
