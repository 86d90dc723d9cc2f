package extract_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// rig is the real client against the simulator over loopback, both on one
// fake clock: the limiter's waits and the retry backoffs cost no real time.
type rig struct {
	env    *simtest.Env
	clock  *fakeclock.Clock
	client *extract.Client
	raws   []*response.Received // every response the client yielded to do
}

func newRig(t *testing.T, opt simtest.Options, key string, mod func(*extract.Config)) *rig {
	t.Helper()
	r := &rig{clock: fakeclock.New(time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC))}
	opt.Now = r.clock.Now
	r.env = simtest.Start(t, opt)
	cfg := r.env.Config(t, key)
	cfg.Clock = r.clock
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.DefaultRate, Clock: r.clock})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Limiter = lim
	cfg.Retry = extract.DefaultRetryPolicy()
	cfg.Retry.Rand = func() float64 { return 0.5 }
	if mod != nil {
		mod(&cfg)
	}
	if r.client, err = extract.NewClient(cfg); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) ledger() []sim.LedgerEntry { return r.env.Service.Ledger() }

// do runs a call to its end as a job does, landing nothing: every
// response it yielded (kept in r.raws too), and the error it ended with.
func (r *rig) do(responses extract.Responses) ([]*response.Received, error) {
	got, err := simtest.Drain(responses)
	r.raws = append(r.raws, got...)
	return got, err
}

// last is the last response of rs; nil when there is none.
func last(rs []*response.Received) *response.Received {
	if len(rs) == 0 {
		return nil
	}
	return rs[len(rs)-1]
}

// decoded decodes the 2xx bodies of rs whole with decode, as the
// transform would, and gathers their items: what a call asked.
func decoded[T any](t *testing.T, rs []*response.Received, decode func([]byte) (wire.Schedules[T], error)) wire.Schedules[T] {
	t.Helper()
	var all wire.Schedules[T]
	for _, rec := range rs {
		if !rec.OK() || rec.Broken != "" {
			continue
		}
		s, err := decode(rec.Body)
		if err != nil {
			t.Fatalf("%s: %v", rec.Request, err)
		}
		all.Items = append(all.Items, s.Items...)
		all.Bad = append(all.Bad, s.Bad...)
		all.DCSA = all.DCSA || s.DCSA
	}
	return all
}

func (r *rig) balance(t *testing.T, key string, p wire.Product) int64 {
	t.Helper()
	n, ok := r.env.Service.Balance(key, p)
	if !ok {
		t.Fatalf("no balance for %s", p)
	}
	return n
}

func TestClientEveryEndpointAgainstTheSimulator(t *testing.T) {
	r := newRig(t, simtest.Options{}, "test", nil)
	ctx := context.Background()
	w, at := r.env.Service.World(), r.env.Service.Clock().Now()

	port := simtest.Port(t, w, at)
	got, err := r.do(r.client.PortSchedule(ctx, strings.ToLower(port)))
	if err != nil {
		t.Fatal(err)
	}
	ps, raw := decoded(t, got, wire.DecodePortSchedules), last(got)
	if len(ps.Items) != 1 || ps.Items[0].Location == nil || ps.Items[0].Location.Locode != port || len(ps.Items[0].VesselSchedules) == 0 {
		t.Errorf("port schedule of %s = %+v", port, ps)
	}
	if raw.Request != sim.SchedulePrefix+"/schedule/"+port || raw.Status != 200 || raw.Product != wire.ProductSchedule || raw.Endpoint != wire.EndpointPortSchedule {
		t.Errorf("raw = %+v", raw)
	}
	if raw.DateHeader == nil || !raw.DateHeader.Equal(at.Truncate(time.Second)) || !raw.DateOrFetched().Equal(*raw.DateHeader) {
		t.Errorf("Date = %v, want the virtual clock %v", raw.DateHeader, at)
	}
	if !raw.FetchedAt.Equal(r.clock.Now()) {
		t.Errorf("FetchedAt = %v, want our clock %v", raw.FetchedAt, r.clock.Now())
	}

	lane := w.Lanes()[0]
	got, err = r.do(r.client.PointToPoint(ctx, lane.POL, lane.POD, extract.P2POptions{}))
	if err != nil {
		t.Fatalf("p2p %v: %v", lane, err)
	}
	p2p, raw := decoded(t, got, wire.DecodePointToPoints), last(got)
	if len(p2p.Items) != 1 || len(p2p.Items[0].Routes) == 0 || raw.Endpoint != wire.EndpointP2PSchedule {
		t.Errorf("p2p = %+v", p2p)
	}

	imo := simtest.Vessel(t, w, at)
	got, err = r.do(r.client.VesselSchedule(ctx, imo))
	if err != nil {
		t.Fatal(err)
	}
	vs := decoded(t, got, wire.DecodeVesselSchedules)
	if len(vs.Items) != 1 || vs.Items[0].Vessel == nil || *vs.Items[0].Vessel.IMO != imo || len(vs.Items[0].TransportCalls) == 0 {
		t.Errorf("vessel schedule = %+v", vs)
	}

	ref := simtest.Shipment(t, w, at)
	got, err = r.do(r.client.Shipment(ctx, ref))
	if err != nil {
		t.Fatal(err)
	}
	raw = last(got)
	sh, err := wire.DecodeShipment(raw.Body)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Metadata.ShipmentNumber != ref.Number || len(sh.Containers) == 0 || raw.Product != wire.ProductTracking {
		t.Errorf("shipment = %+v", sh.Metadata)
	}
	if !strings.HasPrefix(raw.Request, sim.TrackingPrefix+"/shipment?") || !strings.Contains(raw.Request, "shipmentNumber="+ref.Number) {
		t.Errorf("request = %q", raw.Request)
	}

	for _, p := range wire.Products {
		if _, err := r.do(r.client.CurrentPeriod(ctx, p)); err != nil {
			t.Fatal(err)
		}
		cur := r.client.Budget(p).Reported()
		got, err := r.do(r.client.Periods(ctx, p))
		if err != nil {
			t.Fatal(err)
		}
		periods, err := wire.DecodePeriods(last(got).Body)
		if err != nil {
			t.Fatal(err)
		}
		last := periods[len(periods)-1]
		if *cur.Credits != *last.Credits || !cur.PeriodStart.Equal(*last.PeriodStart) {
			t.Errorf("%s: current %+v disagrees with history %+v", p, cur, last)
		}
	}
	// Three schedule calls and one shipment call were charged; the rest free.
	if got := r.balance(t, "test", wire.ProductSchedule); got != 997 {
		t.Errorf("schedule balance = %d, want 997", got)
	}
	if got := r.balance(t, "test", wire.ProductTracking); got != 999 {
		t.Errorf("tracking balance = %d, want 999", got)
	}
	if st := r.client.Budget(wire.ProductSchedule).State(); st.Spent != 3 || st.Cap != 997+3 {
		t.Errorf("schedule budget = %+v, want 3 spent and the cap lowered to what the server reported", st)
	}
	if len(r.raws) != len(r.ledger()) {
		t.Errorf("yielded %d responses, the server saw %d requests", len(r.raws), len(r.ledger()))
	}
}

func TestClientStatuses(t *testing.T) {
	ctx := context.Background()
	zero, three := simtest.Credits(0), simtest.Credits(3)
	keys := []sim.KeySpec{
		{Key: "good", Schedule: three, Tracking: three},
		{Key: "broke", Schedule: zero, Tracking: three},
		{Key: "notrack", Schedule: three},
	}
	cases := []struct {
		name     string
		key      string
		call     func(c *extract.Client) error
		sentinel error
		requests int // as seen by the server: none of these is retried (a first 404 is checked, free)
	}{
		{"400 bad maxTranshipment", "good", func(c *extract.Client) error {
			n := 9
			_, err := simtest.Drain(c.PointToPoint(ctx, "CNSHA", "NLRTM", extract.P2POptions{MaxTranshipment: &n}))
			return err
		}, extract.ErrBadRequest, 1},
		{"401 unknown key", "stranger", func(c *extract.Client) error {
			_, err := simtest.Drain(c.CurrentPeriod(ctx, wire.ProductSchedule))
			return err
		}, extract.ErrUnauthorized, 1},
		{"403 quota", "broke", func(c *extract.Client) error {
			_, err := simtest.Drain(c.PortSchedule(ctx, "NLRTM"))
			return err
		}, extract.ErrForbidden, 1},
		{"403 no access to the product", "notrack", func(c *extract.Client) error {
			_, err := simtest.Drain(c.Shipment(ctx, wire.ShipmentRef{Number: "CSQU3054383", Type: "CT"}))
			return err
		}, extract.ErrForbidden, 1},
		{"404 no data", "good", func(c *extract.Client) error {
			_, err := simtest.Drain(c.PortSchedule(ctx, "ZZ999"))
			return err
		}, extract.ErrNotFound, 2},
		{"refused before sending: bad port", "good", func(c *extract.Client) error {
			_, err := simtest.Drain(c.PortSchedule(ctx, "NLRT"))
			return err
		}, extract.ErrInvalidInput, 0},
		{"refused before sending: bad IMO", "good", func(c *extract.Client) error {
			_, err := simtest.Drain(c.VesselSchedule(ctx, 9074728))
			return err
		}, extract.ErrInvalidInput, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, simtest.Options{Keys: keys}, tc.key, nil)
			err := tc.call(r.client)
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("err = %v, want %v", err, tc.sentinel)
			}
			var apiErr *extract.APIError
			if tc.requests > 0 && (!errors.As(err, &apiErr) || apiErr.Message == "" || apiErr.Time.IsZero()) {
				t.Errorf("err %v does not carry the error body", err)
			}
			if got := len(r.ledger()); got != tc.requests {
				t.Errorf("server saw %d requests, want %d", got, tc.requests)
			}
			for _, e := range r.ledger() {
				if e.Charged {
					t.Errorf("failed call charged: %+v", e)
				}
			}
		})
	}
}

func TestClientStopsAProductAfter403(t *testing.T) {
	r := newRig(t, simtest.Options{Keys: []sim.KeySpec{{Key: "k", Schedule: simtest.Credits(1), Tracking: simtest.Credits(5)}}}, "k", nil)
	ctx := context.Background()
	port := simtest.Port(t, r.env.Service.World(), r.env.Service.Clock().Now())
	if _, err := r.do(r.client.PortSchedule(ctx, port)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.do(r.client.PortSchedule(ctx, port)); !errors.Is(err, extract.ErrForbidden) {
		t.Fatalf("second call: %v, want 403", err)
	}
	seen := len(r.ledger())
	if _, err := r.do(r.client.PortSchedule(ctx, port)); !errors.Is(err, extract.ErrQuotaExhausted) {
		t.Fatalf("third call: %v, want ErrQuotaExhausted", err)
	}
	if len(r.ledger()) != seen {
		t.Errorf("a request was sent after the quota 403")
	}
	// The other product is unaffected, and free calls still go.
	if _, err := r.do(r.client.CurrentPeriod(ctx, wire.ProductTracking)); err != nil {
		t.Errorf("free call after 403: %v", err)
	}
}

func TestClientCapStopsBeforeSending(t *testing.T) {
	r := newRig(t, simtest.Options{}, "test", func(c *extract.Config) {
		c.ScheduleBudget = extract.NewBudget(wire.ProductSchedule, 2)
	})
	ctx := context.Background()
	port := simtest.Port(t, r.env.Service.World(), r.env.Service.Clock().Now())
	for i := 0; i < 2; i++ {
		if _, err := r.do(r.client.PortSchedule(ctx, port)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.do(r.client.PortSchedule(ctx, port)); !errors.Is(err, extract.ErrBudgetSpent) {
		t.Fatalf("third call: %v, want ErrBudgetSpent", err)
	}
	if n := len(r.ledger()); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestClientRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("5xx retried until the attempts run out, never charged", func(t *testing.T) {
		r := newRig(t, simtest.Options{Faults: sim.Faults{ErrorRate: 1}}, "test", nil)
		got, err := r.do(r.client.PortSchedule(ctx, "NLRTM"))
		raw := last(got)
		if !errors.Is(err, extract.ErrServer) || !strings.Contains(err.Error(), "gave up after 6 attempts") {
			t.Fatalf("err = %v", err)
		}
		if raw == nil || raw.Status < 500 || raw.Attempt != 6 {
			t.Errorf("final raw = %+v", raw)
		}
		if n := len(r.ledger()); n != 6 {
			t.Errorf("server saw %d requests, want 6", n)
		}
		if st := r.client.Budget(wire.ProductSchedule).State(); st.Spent != 0 || st.Reserved != 0 || st.Uncertain != 0 {
			t.Errorf("budget after free failures = %+v", st)
		}
		if len(r.raws) != 6 {
			t.Errorf("yielded %d responses, want every attempt (6)", len(r.raws))
		}
	})
	t.Run("429 bursts pause the key and succeed, honouring Retry-After", func(t *testing.T) {
		r := newRig(t, simtest.Options{Faults: sim.Faults{BurstRate: 1, BurstLength: 2, RetryAfter: true, Seed: 3}}, "test", nil)
		before := r.clock.Now()
		// BurstRate 1 starts a burst on every admitted request: two 429s,
		// then the dice start another. Free calls show the pause mechanics.
		_, err := r.do(r.client.CurrentPeriod(ctx, wire.ProductSchedule))
		if !errors.Is(err, extract.ErrRateLimited) {
			t.Fatalf("err = %v, want 429 after retries", err)
		}
		if waited := r.clock.Now().Sub(before); waited < 5*time.Second {
			t.Errorf("waited %v in total, want at least Retry-After (1 s) per 429", waited)
		}
	})
	t.Run("429 then success", func(t *testing.T) {
		r := newRig(t, simtest.Options{Faults: sim.Faults{BurstRate: 0.5, BurstLength: 1, Seed: 11}}, "test", nil)
		for i := 0; i < 20; i++ {
			if _, err := r.do(r.client.CurrentPeriod(ctx, wire.ProductSchedule)); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		limited := 0
		for _, e := range r.ledger() {
			if e.Status == http.StatusTooManyRequests {
				limited++
			}
		}
		if limited == 0 {
			t.Fatal("the fault never fired: the test proves nothing")
		}
	})
	t.Run("a truncated body is no answer: retried, each attempt possibly charged, the last one returned broken", func(t *testing.T) {
		r := newRig(t, simtest.Options{Faults: sim.Faults{TruncateRate: 1}}, "test", func(c *extract.Config) {
			c.Retry.MaxAttempts = 3
		})
		port := simtest.Port(t, r.env.Service.World(), r.env.Service.Clock().Now())
		seen, err := r.do(r.client.PortSchedule(ctx, port))
		raw := last(seen)
		if !errors.Is(err, extract.ErrBroken) || !strings.Contains(err.Error(), "is not JSON") {
			t.Fatalf("err = %v, want ErrBroken saying the body is not JSON", err)
		}
		if raw == nil || raw.Status != 200 || json.Valid(raw.Body) || raw.Broken == "" || raw.Retried {
			t.Errorf("raw = %+v, want the last cut 200 body, broken, not retried", raw)
		}
		if len(seen) != 3 || !seen[0].Retried || !seen[1].Retried || seen[2].Retried {
			t.Errorf("yielded %d attempts, want 3, the first two retried", len(seen))
		}
		if n := len(r.ledger()); n != 3 {
			t.Errorf("server saw %d requests, want 3", n)
		}
		if st := r.client.Budget(wire.ProductSchedule).State(); st.Spent+st.Uncertain != 3 || st.Uncertain != 3 {
			t.Errorf("budget = %+v, want the 3 credits counted as possibly charged", st)
		}
	})
}

func TestClientTimeoutCountsAsPossiblyCharged(t *testing.T) {
	// Real time, but short: the simulator answers after 300 ms, the client
	// gives up after 20 ms, twice.
	r := newRig(t, simtest.Options{Faults: sim.Faults{LatencyMedian: 300 * time.Millisecond}}, "test", func(c *extract.Config) {
		c.HTTP = &http.Client{Timeout: 20 * time.Millisecond} // below Config.Timeout's least, 1s
		c.Retry.MaxAttempts = 2
	})
	_, err := r.do(r.client.PortSchedule(context.Background(), "NLRTM"))
	if !errors.Is(err, extract.ErrTransport) {
		t.Fatalf("err = %v, want a transport error", err)
	}
	st := r.client.Budget(wire.ProductSchedule).State()
	if st.Uncertain != 2 || st.Reserved != 0 {
		t.Errorf("budget = %+v, want both timed-out attempts counted as possibly charged", st)
	}
}

func TestClientConfigErrorsNameTheSetting(t *testing.T) {
	k, _ := extract.NewKey("k")
	cases := []struct {
		cfg          extract.Config
		field, words string
	}{
		{extract.Config{Key: k}, "ScheduleURL", "neither ScheduleURL nor TrackingURL is set"},
		{extract.Config{ScheduleURL: " ", TrackingURL: "", Key: k}, "ScheduleURL", "neither ScheduleURL nor TrackingURL is set"},
		{extract.Config{ScheduleURL: "ftp://x", TrackingURL: "https://x", Key: k}, "ScheduleURL", `ScheduleURL "ftp://x": want an absolute http(s) URL`},
		{extract.Config{ScheduleURL: "https://x", TrackingURL: "x/y", Key: k}, "TrackingURL", `TrackingURL "x/y": want an absolute http(s) URL`},
		{extract.Config{ScheduleURL: "https://x", TrackingURL: "https://x"}, "Key", "no API key"},
		{extract.Config{ScheduleURL: "https://u:p@x", TrackingURL: "https://x", Key: k}, "ScheduleURL", "want no credentials, query or fragment"},
		{extract.Config{ScheduleURL: "https://x", Key: k, ScheduleAPI: "dcsa"}, "ScheduleAPI", `ScheduleAPI "dcsa": want service or dcsa-cs-1.0`},
		{extract.Config{ScheduleURL: "https://x", Key: k, PageSize: -1}, "PageSize", "PageSize -1: want 1 to 10000, or 0 for the default"},
		{extract.Config{ScheduleURL: "https://x", Key: k, PageSize: 10001}, "PageSize", "PageSize 10001"},
		{extract.Config{ScheduleURL: "https://x", Key: k, ScheduleDays: 367}, "ScheduleDays", "ScheduleDays 367: want 1 to 366"},
		{extract.Config{ScheduleURL: "https://x", Key: k, MaxPages: -1}, "MaxPages", "MaxPages -1: want 1 to 10000"},
		{extract.Config{ScheduleURL: "https://x", Key: k, Timeout: 10 * time.Millisecond}, "Timeout", "Timeout 10ms: want 1s to 1h"},
		{extract.Config{ScheduleURL: "https://x", Key: k, Paths: wire.Paths{PortSchedule: "schedule/{port}"}}, "Paths", "want a path starting with /"},
	}
	for _, tc := range cases {
		_, err := extract.NewClient(tc.cfg)
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("NewClient(%+v) err = %v, want a setting error of %s saying %q", tc.cfg, err, tc.field, tc.words)
		}
	}
	// Validate checks what it is given: a zero where NewClient would put
	// the default is refused, as a user's 0 is.
	cfg := extract.DefaultConfig()
	cfg.ScheduleURL, cfg.Key = "https://x", k
	if err := cfg.Validate(); err != nil {
		t.Fatalf("DefaultConfig with a URL and a key: %v", err)
	}
	cfg.ScheduleDays, cfg.MaxPages = 0, 0
	var se *setting.Error
	if err := cfg.Validate(); !errors.As(err, &se) || se.Field != "ScheduleDays" {
		t.Errorf("ScheduleDays 0: %v, want it refused", err)
	}
}

// The key appears in no error, no raw response, no request line and no
// next page, in any scheme, even when the server echoes back the header it
// received ("Bearer KEY" included) in any encoding: as sent, JSON-escaped,
// percent-encoded, base64 of the header line at any offset.
func TestClientNeverLeaksTheKey(t *testing.T) {
	const key = "sk-live-LEAKCHECK-0001"
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			a := mustAuth(t, scheme)
			echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				v := r.Header.Get(a.Header())
				line := a.Header() + ": " + v
				forms := []string{v, strings.ReplaceAll(v, " ", `\u0020`), strings.ReplaceAll(v, "-", "%2D"),
					base64.StdEncoding.EncodeToString([]byte(line)), base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte("x" + line))}
				all := strings.Join(forms, " | ")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"errorCode":400,"message":"bad key ` + all + `","details":["` + all + `"],"time":"2026-01-01T00:00:00Z"}`))
			}))
			defer echo.Close()
			var seen []string
			k, _ := extract.NewKey(key)
			c, err := extract.NewClient(extract.Config{ScheduleURL: echo.URL, TrackingURL: echo.URL, Key: k, Auth: a})
			if err != nil {
				t.Fatal(err)
			}
			got, err := simtest.Drain(c.PortSchedule(context.Background(), "NLRTM"))
			for _, raw := range got {
				seen = append(seen, string(raw.Body), raw.Request)
			}
			if len(got) == 0 || err == nil {
				t.Fatalf("yielded %d responses, error %v: want the 400 and its error", len(got), err)
			}
			seen = append(seen, err.Error())
			if !strings.Contains(err.Error(), "[REDACTED]") {
				t.Fatalf("nothing redacted in %v: the echo proves nothing", err)
			}

			r := newRig(t, simtest.Options{Keys: []sim.KeySpec{{Key: key, Schedule: simtest.Credits(0), Tracking: simtest.Credits(1)}}, Auth: simtest.Auth(t, a.String())}, key, nil)
			for _, call := range []func() error{
				func() error { _, err := r.do(r.client.PortSchedule(context.Background(), "NLRTM")); return err },
				func() error { _, err := r.do(r.client.PortSchedule(context.Background(), "bad")); return err },
				func() error {
					_, err := r.do(r.client.CurrentPeriod(context.Background(), wire.ProductTracking))
					return err
				},
			} {
				if err := call(); err != nil {
					seen = append(seen, err.Error())
				}
			}
			for _, raw := range r.raws {
				seen = append(seen, string(raw.Body), raw.Request)
			}
			b, _ := json.Marshal(r.ledger())
			seen = append(seen, string(b))
			for _, text := range seen {
				if k.RedactString(text) != text || strings.Contains(text, "LEAKCHECK") {
					t.Errorf("the key leaked:\n%s", text)
				}
			}
		})
	}
}

// On the injected clock, 250 requests through the client reach the server
// at the full rate and never more than N inside any of its windows.
func TestClientKeepsTheServerWithinItsWindow(t *testing.T) {
	r := newRig(t, simtest.Options{}, "test", nil)
	start := r.clock.Now()
	for i := 0; i < 250; i++ {
		if _, err := r.do(r.client.CurrentPeriod(context.Background(), wire.ProductSchedule)); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	st := r.env.Service.Stats()
	if st.RateLimited != 0 || st.Requests != 250 {
		t.Fatalf("server: %d requests, %d refused", st.Requests, st.RateLimited)
	}
	for _, peak := range st.PeakInWindow {
		if peak != extract.DefaultRate.N {
			t.Errorf("peak %d in a window, want exactly %d (full use, never more)", peak, extract.DefaultRate.N)
		}
	}
	// 25 windows of 10 requests, each slot held window + margin (10.1 s).
	if elapsed, want := r.clock.Now().Sub(start), 24*(10*time.Second+100*time.Millisecond); elapsed != want {
		t.Errorf("250 requests took %v of virtual time, want %v", elapsed, want)
	}
}

// A path template with a query sends that path and query, joined to the
// base once, its placeholders escaped as values and {date} the job's
// logical date; the call's own parameters go with it.
func TestClientSendsPathTemplatesWithQueries(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/consumption/current-period") {
			// The check of the URL after the first 404: it is right.
			_, _ = w.Write([]byte(`{"periodStart":"2026-01-01T00:00:00Z","periodEnd":"2026-02-01T00:00:00Z","credits":10}`))
			return
		}
		got = append(got, r.URL.RequestURI())
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"errorCode":404,"message":"no data","time":"2026-01-05T00:00:00Z"}`))
	}))
	defer srv.Close()
	paths := wire.DefaultPaths()
	for _, s := range []string{"port=/v1/port-schedules?UNLocationCode={port}&date={date}", "p2p=/v1/point-to-point-routes?placeOfReceipt={pol}&placeOfDelivery={pod}"} {
		if err := paths.Set(s); err != nil {
			t.Fatal(err)
		}
	}
	k, _ := extract.NewKey("path-template-key-1")
	c, err := extract.NewClient(extract.Config{ScheduleURL: srv.URL + "/schedule/api/v1", TrackingURL: srv.URL, Key: k, Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	c = c.WithLogicalDate(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
	_, _ = simtest.Drain(c.PortSchedule(context.Background(), "NLAMS"))
	_, _ = simtest.Drain(c.PointToPoint(context.Background(), "CNSHA", "NLRTM", extract.P2POptions{DepartureStart: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}))
	want := []string{
		"/schedule/api/v1/port-schedules?UNLocationCode=NLAMS&date=2026-01-05",
		"/schedule/api/v1/point-to-point-routes?departureStartDate=2026-01-05&placeOfDelivery=NLRTM&placeOfReceipt=CNSHA",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A schedule-only or tracking-only setup: a call to the product without a
// URL fails with ErrNoURL before the limiter and the budget (a cancelled
// context and a spent cap would otherwise answer first), and sends
// nothing; the other product is asked as ever.
func TestAProductWithoutURLFailsBeforeTheLimiterAndTheBudget(t *testing.T) {
	for _, missing := range wire.Products {
		t.Run(string(missing), func(t *testing.T) {
			r := newRig(t, simtest.Options{}, "test", func(c *extract.Config) {
				if missing == wire.ProductSchedule {
					c.ScheduleURL = ""
				} else {
					c.TrackingURL = "  "
				}
				c.ScheduleBudget = extract.NewBudget(wire.ProductSchedule, 0)
				c.TrackingBudget = extract.NewBudget(wire.ProductTracking, 0)
			})
			if r.client.HasURL(missing) {
				t.Errorf("HasURL(%s) with no URL", missing)
			}
			cancelled, cancel := context.WithCancel(context.Background())
			cancel()
			ref := wire.ShipmentRef{Number: "CSQU3054383", Type: wire.ShipmentContainer}
			calls := map[string]func() error{
				"current period": func() error { _, err := r.do(r.client.CurrentPeriod(cancelled, missing)); return err },
				"periods":        func() error { _, err := r.do(r.client.Periods(cancelled, missing)); return err },
			}
			if missing == wire.ProductSchedule {
				calls["port"] = func() error { _, err := r.do(r.client.PortSchedule(cancelled, "NLRTM")); return err }
				calls["p2p"] = func() error {
					_, err := r.do(r.client.PointToPoint(cancelled, "CNSHA", "NLRTM", extract.P2POptions{}))
					return err
				}
				calls["vessel"] = func() error { _, err := r.do(r.client.VesselSchedule(cancelled, 9321483)); return err }
			} else {
				calls["shipment"] = func() error { _, err := r.do(r.client.Shipment(cancelled, ref)); return err }
			}
			for name, call := range calls {
				if err := call(); !errors.Is(err, extract.ErrNoURL) {
					t.Errorf("%s: %v, want ErrNoURL", name, err)
				}
			}
			if n := len(r.ledger()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
			if st := r.client.Budget(missing).State(); st.Reserved != 0 || st.Spent != 0 {
				t.Errorf("budget touched: %+v", st)
			}
			// The configured product answers.
			other := wire.ProductTracking
			if missing == wire.ProductTracking {
				other = wire.ProductSchedule
			}
			if !r.client.HasURL(other) {
				t.Errorf("HasURL(%s) = false", other)
			}
			if _, err := r.do(r.client.CurrentPeriod(context.Background(), other)); err != nil {
				t.Errorf("%s: %v", other, err)
			}
		})
	}
}

// A 2xx answer that never arrives whole costs at most 3 paid asks — the
// first and 2 more — however many attempts the policy gives a 5xx, each
// counted as possibly charged.
func TestAnAnswerBrokenForeverCostsAtMostThreeAsks(t *testing.T) {
	r := newRig(t, simtest.Options{Faults: sim.Faults{TruncateRate: 1}}, "test", nil) // MaxAttempts 6
	port := simtest.Port(t, r.env.Service.World(), r.env.Service.Clock().Now())
	got, err := r.do(r.client.PortSchedule(context.Background(), port))
	raw := last(got)
	if !errors.Is(err, extract.ErrBroken) || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Fatalf("err = %v, want ErrBroken after 3 attempts", err)
	}
	if raw == nil || raw.Attempt != 3 || raw.Retried {
		t.Fatalf("raw = %+v, want the third attempt, not retried", raw)
	}
	var be *extract.BrokenError
	if !errors.As(err, &be) || be.Reason != raw.Broken || be.Request != raw.Request {
		t.Errorf("err = %#v, want a *BrokenError saying why the last attempt broke", err)
	}
	if n := len(r.ledger()); n != 3 {
		t.Errorf("the server saw %d requests, want 3", n)
	}
	if st := r.client.Budget(wire.ProductSchedule).State(); st.Uncertain != 3 || st.Spent != 0 {
		t.Errorf("budget = %+v, want the 3 asks counted as possibly charged", st)
	}
}

// The pages of one answer share the bound: 2 extra paid asks for broken
// answers in the whole walk, not 2 a page.
func TestTheBrokenAnswersOfAWalkShareTheirBound(t *testing.T) {
	r := newRig(t, simtest.Options{ScheduleAPI: sim.ScheduleAPIDCSA, PageSize: 1}, "test", func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIDCSA })
	day := r.env.Service.Clock().Now()
	// Each page's first two answers break: page 1 is asked three times
	// (two broken, one whole), page 2's first answer is the walk's third
	// broken one, kept broken.
	var mu sync.Mutex
	asked := map[string]int{}
	var requests int
	next := r.env.Server.Config.Handler
	r.env.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		requests++
		asked[req.URL.RequestURI()]++
		n := asked[req.URL.RequestURI()]
		mu.Unlock()
		if n > 2 || !strings.Contains(req.URL.Path, "point-to-point-routes") {
			next.ServeHTTP(w, req)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, req)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes()[:rec.Body.Len()/2])
	})
	_, err := r.do(r.client.WithLogicalDate(day).PointToPoint(context.Background(), "CNSHA", "NLRTM", extract.P2POptions{DepartureStart: day}))
	if !errors.Is(err, extract.ErrBroken) {
		t.Fatalf("err = %v, want ErrBroken on page 2", err)
	}
	if requests != 4 {
		t.Errorf("%d requests, want 4: page 1 three times, page 2 once", requests)
	}
	if st := r.client.Budget(wire.ProductSchedule).State(); st.Uncertain != 3 || st.Spent != 1 {
		t.Errorf("budget = %+v, want 1 page charged and 3 broken asks possibly charged", st)
	}
}
