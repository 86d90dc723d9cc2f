package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/wire"
)

// truthKeysBeforeJumps are the keys the ground truth had before the world
// had jumps: what a world without jumps must still say, byte for byte.
var truthKeysBeforeJumps = map[string][]string{
	"": {"seed", "start", "days", "carriers", "predictive", "horizon_scale", "schedule_weight", "estimate_horizon_days",
		"shipment_counts", "shipments"},
	"carriers": {"scac", "name", "eta_bias_hours", "eta_spread_hours", "eta_bias_3d_hours", "revision_time_utc", "on_time_share",
		"realised_on_time_share", "realised_calls", "on_time_draw_probability", "late_mean_days", "realised_late_mean_days",
		"mean_arrival_delay_hours", "supports", "services", "vessels"},
	"predictive": {"spread_hours", "spread_3d_hours", "bias_hours", "window_hours", "revision_every_hours", "after_arrival"},
	"shipments":  {"number", "type", "sealine", "containers", "booked_at", "prepol", "pol", "hub", "pod", "postpod", "legs"},
	"legs": {"service", "vessel_imo", "voyage", "from", "to", "planned_departure", "actual_departure", "planned_arrival",
		"actual_arrival"},
}

// keepKeys drops, from decoded JSON, the keys of the objects under name
// that keys does not list.
func keepKeys(v any, name string) any {
	switch x := v.(type) {
	case map[string]any:
		if allowed, ok := truthKeysBeforeJumps[name]; ok {
			out := map[string]any{}
			for _, k := range allowed {
				if e, ok := x[k]; ok {
					out[k] = keepKeys(e, k)
				}
			}
			return out
		}
		return x
	case []any:
		for i := range x {
			x[i] = keepKeys(x[i], name)
		}
		return x
	}
	return v
}

// answersDigest renders a broad sample of every answer of a world — every
// third shipment at six times, every port's schedule, the busiest lanes,
// every fifth vessel, the same through the DCSA profile, the ground truth's
// keys from before jumps, the lists — and returns its SHA-256.
func answersDigest(t *testing.T, w *World) string {
	t.Helper()
	h := sha256.New()
	add := func(v any, err error) {
		b, jerr := json.Marshal(v)
		if jerr != nil {
			t.Fatal(jerr)
		}
		h.Write(b)
		fmt.Fprintln(h, err)
	}
	start := w.Config().Start
	refs := w.Shipments()
	for i, at := range []time.Time{start, start.Add(53 * time.Hour), start.AddDate(0, 0, 9), start.AddDate(0, 0, 20).Add(7 * time.Hour),
		start.AddDate(0, 0, 31), start.AddDate(0, 0, 39).Add(22 * time.Hour)} {
		for j := i % 3; j < len(refs); j += 3 {
			add(w.Shipment(refs[j], at))
		}
		if i%2 == 1 {
			continue
		}
		for _, p := range w.Ports() {
			add(w.PortSchedule(p.Locode, at))
		}
		for k, l := range w.Lanes() {
			if k%4 == i%4 {
				add(w.PointToPoint(l.POL, l.POD, P2PQuery{MaxTranshipment: -1}, at))
			}
		}
		for k, v := range w.Vessels() {
			if k%5 == i%5 {
				add(w.VesselSchedule(v.IMO, at))
			}
		}
		for _, q := range []struct {
			e wire.Endpoint
			q string
		}{
			{wire.EndpointPortSchedule, "UNLocationCode=NLRTM&date=" + at.Format(time.DateOnly)},
			{wire.EndpointPortSchedule, "UNLocationCode=SGSIN&date=" + at.Format(time.DateOnly)},
			{wire.EndpointVesselSchedule, "carrierServiceCode=AE1"},
			{wire.EndpointVesselSchedule, "UNLocationCode=DEHAM&startDate=" + at.Format(time.DateOnly)},
			{wire.EndpointP2PSchedule, "placeOfReceipt=CNSHA&placeOfDelivery=NLRTM"},
			{wire.EndpointP2PSchedule, "placeOfReceipt=VNSGN&placeOfDelivery=DEHAM"},
		} {
			vals, err := url.ParseQuery(q.q)
			if err != nil {
				t.Fatal(err)
			}
			cq, bad := parseCSQuery(q.e, vals, nil, DefaultDCSAVersion)
			if bad != nil {
				t.Fatalf("%s: %s", q.q, bad.message)
			}
			add(w.csAnswer(q.e, cq, at))
		}
	}
	b, err := json.Marshal(w.Truth())
	if err != nil {
		t.Fatal(err)
	}
	var tr any
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	add(keepKeys(tr, ""), nil)
	add(w.Lanes(), nil)
	add(w.Ports(), nil)
	add(w.Vessels(), nil)
	for _, scac := range []string{"MAEU", "ZIMU"} {
		add(w.HorizonErrors(scac, SourceCarrier, 0, 20*24*time.Hour), nil)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// beforeJumps are worlds and the digest of their answers before the world
// had jumps, recorded on the commit that added them (a3e454e's world); the
// zero ETAErrors is the ETA model of then, answer for answer.
var beforeJumps = []struct {
	cfg    WorldConfig
	digest string
}{
	{WorldConfig{Seed: 7, Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Days: 40, Shipments: 150, NoJumps: true, Errors: &ETAErrors{}}, "42847524989ad08eb7487eea871952058f84f2feaea9a727a0270c13efa0c49f"},
	{WorldConfig{Seed: 1, NoJumps: true, Errors: &ETAErrors{}}, "69356125eecc0b8cab1b6ea38ef0ffe9247c383afa82ad098f3f0003a4f42b00"},
}

func TestWithoutJumpsTheWorldIsTheWorldBeforeJumps(t *testing.T) {
	slowtest.Long(t)
	for _, c := range beforeJumps {
		got := answersDigest(t, NewWorld(c.cfg))
		t.Logf("seed %d: %s", c.cfg.Seed, got)
		if got != c.digest {
			t.Errorf("seed %d: answers digest %s, before jumps %s", c.cfg.Seed, got, c.digest)
		}
	}
}

// Port to port, a sailing that no longer calls where it would load or
// discharge (its omission announced) is not offered; until then it is.
func TestPointToPointDropsOmittedCalls(t *testing.T) {
	w := NewWorld(WorldConfig{Seed: 3, Shipments: 10})
	offered := 0
	for ci := range w.calls {
		j := w.jumpOf(ci)
		c := &w.calls[ci]
		if !j.omitted || j.omitAt < w.start.Unix() || j.omitAt > w.start.Unix()+60*day {
			continue
		}
		s := &w.services[c.svc]
		for pos := 0; pos < int(c.pos); pos++ {
			from := w.callIndex(int(c.svc), int(c.k), pos)
			pol := w.places[s.ports[pos]].Locode
			q := P2PQuery{DepartureStart: unixUTC(w.calls[from].plnDep - day), DepartureEnd: unixUTC(w.calls[from].plnDep + day), MaxTranshipment: 1}
			for _, at := range []int64{j.omitAt - 60, j.omitAt} {
				_, _, routes, err := w.routings(pol, w.places[c.port].Locode, q, unixUTC(at))
				if err != nil && !errors.Is(err, ErrNoData) {
					t.Fatal(err)
				}
				for _, r := range routes {
					for _, l := range r.legs {
						if l.from != ci && l.to != ci {
							continue
						}
						if at >= j.omitAt {
							t.Errorf("%s → %s at %s: offers the call at %s omitted since %s", pol, w.places[c.port].Locode, unixUTC(at), w.places[c.port].Locode, unixUTC(j.omitAt))
						}
						offered++
					}
				}
			}
		}
	}
	if offered == 0 {
		t.Fatal("no omitted call was ever offered: the test proves nothing")
	}
	t.Logf("%d offers of calls before their omission", offered)
}
