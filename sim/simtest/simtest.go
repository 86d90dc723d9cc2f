// Package simtest starts the service simulator behind httptest for tests of
// the client and the jobs: the real client against the real handler over a
// real loopback connection, with no sleeping through rate windows.
package simtest

import (
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

// Options configure an Env; the zero value is a default world, the key
// "test" with 1000 credits of each product, the default rate and no faults.
type Options struct {
	World  sim.WorldConfig
	Keys   []sim.KeySpec
	Rate   sim.Rate
	Faults sim.Faults
	// Now is the real clock of the rate window (e.g. a fake clock's Now);
	// nil: time.Now.
	Now func() time.Time
	// Clock is the virtual clock; nil: frozen at the world's start.
	Clock *sim.Clock
	// ScheduleAPI and PageSize: the profile of the schedule product
	// (sim.ScheduleAPIService when empty, or sim.ScheduleAPIDCSA) and, in
	// the DCSA profile, the most root items per page (0: the client's limit).
	ScheduleAPI string
	PageSize    int
	// DCSAVersion is the DCSA version served (sim.DCSAVersions; "": the
	// default).
	DCSAVersion string
	// Auth is where the simulator wants the key (sim.Config.Auth); the
	// zero value is the API_KEY header.
	Auth sim.Auth
}

// Env is a running simulator.
type Env struct {
	Service *sim.Service
	Server  *httptest.Server
	// ScheduleURL is the schedule product's base URL in the profile served:
	// …/schedule/api/v1, or …/cs in the DCSA profile.
	ScheduleURL string
	TrackingURL string
}

var (
	worldsMu sync.Mutex
	worlds   = map[sim.WorldConfig]*sim.World{}
)

// World returns the world of cfg, built once per test binary: worlds are
// immutable and safe to share.
func World(cfg sim.WorldConfig) *sim.World {
	worldsMu.Lock()
	defer worldsMu.Unlock()
	w, ok := worlds[cfg]
	if !ok {
		w = sim.NewWorld(cfg)
		worlds[cfg] = w
	}
	return w
}

// Auth reads s as the simulator's authentication setting (sim.ParseAuth),
// for Options.Auth: pass it the setting a client is given, as a user
// gives one ETALAKE_AUTH to both.
func Auth(t testing.TB, s string) sim.Auth {
	t.Helper()
	a, err := sim.ParseAuth(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Credits returns a pointer to n, for KeySpec literals.
func Credits(n int64) *int64 { return &n }

// Start runs a simulator until the test ends.
func Start(t testing.TB, opt Options) *Env {
	t.Helper()
	keys := opt.Keys
	if keys == nil {
		keys = []sim.KeySpec{{Key: "test", Schedule: Credits(1000), Tracking: Credits(1000)}}
	}
	svc, err := sim.New(sim.Config{
		World:  World(opt.World),
		Keys:   keys,
		Rate:   opt.Rate,
		Clock:  opt.Clock,
		Faults: opt.Faults,
		Now:    opt.Now,

		ScheduleAPI: opt.ScheduleAPI,
		PageSize:    opt.PageSize,
		DCSAVersion: opt.DCSAVersion,
		Auth:        opt.Auth,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	t.Cleanup(srv.Close)
	return &Env{
		Service:     svc,
		Server:      srv,
		ScheduleURL: srv.URL + svc.ScheduleBasePath(),
		TrackingURL: srv.URL + sim.TrackingPrefix,
	}
}

// Config is a client configuration for this simulator and key, sending
// the key the way the simulator wants it: the client reads the
// simulator's setting as a user's ETALAKE_AUTH, with its own parser.
func (e *Env) Config(t testing.TB, key string) extract.Config {
	t.Helper()
	k, err := extract.NewKey(key)
	if err != nil {
		t.Fatal(err)
	}
	auth, err := extract.ParseAuth(e.Service.Auth().String())
	if err != nil {
		t.Fatalf("simtest: the client refuses the simulator's authentication %s: %v", e.Service.Auth(), err)
	}
	return extract.Config{ScheduleURL: e.ScheduleURL, TrackingURL: e.TrackingURL, Key: k, Auth: auth}
}

// Port returns a port that has a by-port schedule at time at.
func Port(t testing.TB, w *sim.World, at time.Time) string {
	t.Helper()
	for _, p := range w.Ports() {
		if _, err := w.PortSchedule(p.Locode, at); err == nil {
			return p.Locode
		}
	}
	t.Fatal("simtest: no port has a schedule")
	return ""
}

// Vessel returns a vessel that has a by-vessel schedule at time at.
func Vessel(t testing.TB, w *sim.World, at time.Time) int {
	t.Helper()
	for _, v := range w.Vessels() {
		if _, err := w.VesselSchedule(v.IMO, at); err == nil {
			return v.IMO
		}
	}
	t.Fatal("simtest: no vessel has a schedule")
	return 0
}

// Shipment returns a shipment that can be tracked at time at.
func Shipment(t testing.TB, w *sim.World, at time.Time) wire.ShipmentRef {
	t.Helper()
	for _, s := range w.Shipments() {
		if _, err := w.Shipment(s, at); err == nil {
			return s
		}
	}
	t.Fatal("simtest: no shipment is visible")
	return wire.ShipmentRef{}
}
