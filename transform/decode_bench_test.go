package transform_test

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// decodeAnswers is one endpoint's answers as a job receives them, with the
// decoder the client ran on each before issue 32 (extract.get), whose
// values the job threw away.
type decodeAnswers struct {
	name      string
	answers   []response.Landed
	oldClient func([]byte) error
}

// decodeWith is a wire decoder that returns only its error.
func decodeWith[T any](decode func([]byte) (T, error)) func([]byte) error {
	return func(b []byte) error {
		_, err := decode(b)
		return err
	}
}

// BenchmarkDecodePerResponse is the decode time a job spends on each
// response it receives, per endpoint, over the simulator's answers as the
// real client receives them (both schedule profiles; every page). "twice"
// is the path before issue 32: the client decoded each answer into wire
// values (its endpoint's decoder, as extract.get did), the job threw them
// away, and the transform decoded the body again (Batch.Add). "once" is
// the path now: Batch.Add alone. ns/response is per answer; the ratio of
// the two is the time saved.
func BenchmarkDecodePerResponse(b *testing.B) {
	sets := append(scheduleAnswers(b, ""), scheduleAnswers(b, sim.ScheduleAPIDCSA)...)
	sets = append(sets, trackingAnswers(b))
	for _, set := range sets {
		size := 0
		for _, r := range set.answers {
			size += len(r.Body)
		}
		b.Logf("%s: %d answers, %d bytes", set.name, len(set.answers), size)
		for _, path := range []string{"twice", "once"} {
			b.Run(set.name+"/"+path, func(b *testing.B) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(b, 0)
				batch := transform.NewBatch(mem)
				defer batch.Release()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for _, r := range set.answers {
						if path == "twice" {
							if err := set.oldClient(r.Body); err != nil {
								b.Fatalf("%s %s: %v", set.name, r.Request, err)
							}
						}
						if res := batch.Add(r); res.DeadLetters > 0 || res.Skipped {
							b.Fatalf("%s %s: %+v: want rows", set.name, r.Request, res)
						}
						if batch.Rows() >= flushRows {
							release(batch.Records())
						}
					}
					release(batch.Records())
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(set.answers)), "ns/response")
			})
		}
	}
}

// answersOf runs calls with the real client against a simulator of the
// schedule profile api (sim.ScheduleAPIService when ""), with the virtual
// clock 36 hours after the world's start and time faked on both sides,
// and returns the 2xx answers each endpoint's calls received, every page.
func answersOf(b *testing.B, api string, calls func(w *sim.World, c *extract.Client, ask func(extract.Responses))) map[wire.Endpoint][]response.Landed {
	b.Helper()
	clock := fakeclock.New(time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC))
	at := sim.DefaultStart.Add(36 * time.Hour)
	env := simtest.Start(b, simtest.Options{ScheduleAPI: api, Now: clock.Now, Clock: sim.NewClock(at, 0, clock.Now),
		Keys: []sim.KeySpec{{Key: "bench", Schedule: simtest.Credits(1 << 20), Tracking: simtest.Credits(1 << 20)}}})
	cfg := env.Config(b, "bench")
	cfg.Clock = clock
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.DefaultRate, Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	cfg.Limiter = lim
	if api != "" {
		cfg.ScheduleAPI = wire.ScheduleAPI(api)
	}
	c, err := extract.NewClient(cfg)
	if err != nil {
		b.Fatal(err)
	}
	out := map[wire.Endpoint][]response.Landed{}
	calls(env.Service.World(), c, func(rs extract.Responses) {
		for rec, err := range rs {
			if err != nil {
				return // a resource without an answer now: not one to decode
			}
			if rec.OK() && rec.Broken == "" {
				out[rec.Endpoint] = append(out[rec.Endpoint], response.Landed{Received: *rec, ID: rec.Request, ObservedAt: rec.DateOrFetched()})
			}
		}
	})
	return out
}

// perEndpoint bounds the calls made of each endpoint.
const perEndpoint = 40

// scheduleAnswers are the schedule answers of the profile api: ports,
// lanes and vessels of the default world, perEndpoint of each.
func scheduleAnswers(b *testing.B, api string) []decodeAnswers {
	ctx := context.Background()
	got := answersOf(b, api, func(w *sim.World, c *extract.Client, ask func(extract.Responses)) {
		for i, p := range w.Ports() {
			if i < perEndpoint {
				ask(c.PortSchedule(ctx, p.Locode))
			}
		}
		for i, l := range w.Lanes() {
			if i < perEndpoint {
				ask(c.PointToPoint(ctx, l.POL, l.POD, extract.P2POptions{}))
			}
		}
		for i, v := range w.Vessels() {
			if i < perEndpoint {
				ask(c.VesselSchedule(ctx, v.IMO))
			}
		}
	})
	profile := "service"
	if api == sim.ScheduleAPIDCSA {
		profile = "dcsa"
	}
	return []decodeAnswers{
		{profile + "_" + string(wire.EndpointPortSchedule), got[wire.EndpointPortSchedule], decodeWith(wire.DecodePortSchedules)},
		{profile + "_" + string(wire.EndpointP2PSchedule), got[wire.EndpointP2PSchedule], decodeWith(wire.DecodePointToPoints)},
		{profile + "_" + string(wire.EndpointVesselSchedule), got[wire.EndpointVesselSchedule], decodeWith(wire.DecodeVesselSchedules)},
	}
}

// trackingAnswers are the tracking answers of perEndpoint×5 shipments of
// the default world.
func trackingAnswers(b *testing.B) decodeAnswers {
	ctx := context.Background()
	got := answersOf(b, "", func(w *sim.World, c *extract.Client, ask func(extract.Responses)) {
		for i, ref := range w.Shipments() {
			if i < 5*perEndpoint {
				ask(c.Shipment(ctx, ref))
			}
		}
	})
	return decodeAnswers{string(wire.EndpointShipment), got[wire.EndpointShipment], decodeWith(wire.DecodeShipment)}
}
