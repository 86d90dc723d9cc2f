package extract_test

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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

// serviceNoData is the service's own 404 (service.md §7's error body),
// which a server of the service answers to a port without schedule and,
// as well, to a path it does not serve.
const serviceNoData = `{"errorCode":404,"message":"no data found","details":[],"time":"2026-01-05T03:00:00Z"}`

// setupClient is a client of both products at base (schedule under
// /schedule/api/v1, tracking under /container-tracking/api/v2, the
// service's profile), with the default retry policy on a fake clock, so
// that what is retried is retried without waiting.
func setupClient(t *testing.T, base string, hc *http.Client) *extract.Client {
	t.Helper()
	clock := fakeclock.New(time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC))
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.DefaultRate, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := extract.NewKey("setup-secret-key")
	c, err := extract.NewClient(extract.Config{ScheduleURL: base + sim.SchedulePrefix, TrackingURL: base + sim.TrackingPrefix, Key: key,
		Clock: clock, Limiter: lim, HTTP: hc, ScheduleBudget: extract.NewBudget(wire.ProductSchedule, 100)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A server of the service answers its own 404 to a base path that is not
// the product's (…/schedule/api/v2, the host's root) as to a port
// without schedule. A product no answer has proven that answers 404 is
// checked once with its current period — service.md §4 lists
// "GET /consumption/current-period … consumption period object (2.1)",
// with no 404 — and stopped when that answers 404 too: two requests,
// whatever the number of workers, not one "not found" per port.
func TestTheService404EverywhereStopsTheProductAfterTwoRequests(t *testing.T) {
	h := &wrongHost{status: 404, contentType: "application/json", body: serviceNoData}
	c, raws := pagedClient(t, h, extract.Unlimited, func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIService; cfg.Paths = wire.Paths{} })
	errs := askPorts(c, 10, raws)
	if n := h.asked.Load(); n != 2 {
		t.Errorf("%d requests reached the server, want 2: the port's 404 and the current period's", n)
	}
	for _, err := range errs {
		var me *extract.MisconfigError
		if !errors.As(err, &me) || !errors.Is(err, extract.ErrMisconfigured) {
			t.Fatalf("err = %v, want a MisconfigError", err)
		}
		if !strings.Contains(err.Error(), "/cs/consumption/current-period") || !strings.Contains(err.Error(), "answered 404 too") {
			t.Errorf("the error does not name the check that showed the URL wrong: %v", err)
		}
	}
	if len(*raws) != 1 {
		t.Errorf("%d responses handed over, want the port's one", len(*raws))
	}
	// The tracking product is stopped the same way, on its own.
	before := h.asked.Load()
	_, err := simtest.Drain(c.Shipment(context.Background(), wire.ShipmentRef{Number: "CSQU3054383", Type: wire.ShipmentContainer}))
	if !errors.Is(err, extract.ErrMisconfigured) || h.asked.Load() != before+2 {
		t.Errorf("tracking: %v after %d requests; want misconfigured after 2", err, h.asked.Load()-before)
	}
}

// A port without schedule ("404 when no schedule data exists", service.md
// §4) stays "not found" once the URL has proved right: the first 404 is
// checked once, a later one is not.
func TestAPortWithoutScheduleStaysNotFoundUnderARightURL(t *testing.T) {
	r := newRig(t, simtest.Options{Keys: []sim.KeySpec{{Key: "good", Schedule: simtest.Credits(10), Tracking: simtest.Credits(10)}}}, "good", nil)
	for i, want := range []int{2, 3, 4} {
		_, err := r.do(r.client.PortSchedule(context.Background(), "ZZ999"))
		if !errors.Is(err, extract.ErrNotFound) || errors.Is(err, extract.ErrMisconfigured) {
			t.Fatalf("ask %d: err = %v, want not found", i+1, err)
		}
		if n := len(r.ledger()); n != want {
			t.Errorf("after ask %d the server saw %d requests, want %d (the first 404 checked with the free current period)", i+1, n, want)
		}
	}
	// A product proven by its balance is not checked at all.
	r = newRig(t, simtest.Options{Keys: []sim.KeySpec{{Key: "good", Schedule: simtest.Credits(10), Tracking: simtest.Credits(10)}}}, "good", nil)
	if _, err := r.do(r.client.CurrentPeriod(context.Background(), wire.ProductSchedule)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.do(r.client.PortSchedule(context.Background(), "ZZ999")); !errors.Is(err, extract.ErrNotFound) || len(r.ledger()) != 2 {
		t.Errorf("after the balance: %v, %d requests; want not found, 2 requests", err, len(r.ledger()))
	}
}

// A redirect the client refuses (to another host, from https to http) is
// the URL's fault, not the network's: the product stops after its first
// request, nothing counted as possibly charged.
func TestARefusedRedirectStopsTheProductAtOnce(t *testing.T) {
	var asked atomic.Int64
	redirect := func(to func(r *http.Request) string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			http.Redirect(w, r, to(r), http.StatusMovedPermanently)
		})
	}
	cases := []struct {
		name string
		srv  *httptest.Server
		want string
	}{
		{"another host", httptest.NewServer(redirect(func(r *http.Request) string {
			return "http://api.elsewhere.example" + r.URL.RequestURI()
		})), "to another host, api.elsewhere.example"},
		{"https to http", httptest.NewTLSServer(redirect(func(r *http.Request) string {
			return "http://" + r.Host + r.URL.RequestURI()
		})), "from https to http"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.srv.Close()
			asked.Store(0)
			c := setupClient(t, tc.srv.URL, tc.srv.Client())
			var raws []*response.Received
			errs := askPorts(c, 10, &raws)
			if n := asked.Load(); n != 1 {
				t.Errorf("%d requests reached the server, want 1", n)
			}
			for _, err := range errs {
				if !errors.Is(err, extract.ErrMisconfigured) || !errors.Is(err, extract.ErrRedirectRefused) || extract.Retryable(err) {
					t.Fatalf("err = %v, want a refused redirect, misconfigured and not retryable", err)
				}
				if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "/schedule/api/v1/schedule/NLRTM") {
					t.Errorf("the error does not say which redirect or which request: %v", err)
				}
			}
			if s := c.Budget(wire.ProductSchedule).State(); s.Spent+s.Uncertain != 0 {
				t.Errorf("budget %+v: a redirect is no success, nothing is charged", s)
			}
		})
	}
}

// A server whose certificate the machine does not trust is not asked six
// times: the handshake fails the same way every time. The product stops
// after the first, saying how to trust a CA.
func TestAnUntrustedCertificateStopsTheProductAtOnce(t *testing.T) {
	var hellos atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a request got through an untrusted handshake: %s", r.URL)
	}))
	srv.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		hellos.Add(1)
		return nil, nil
	}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused
	srv.StartTLS()
	defer srv.Close()
	c := setupClient(t, srv.URL, nil) // the system's CAs: not the test server's
	var raws []*response.Received
	errs := askPorts(c, 10, &raws)
	if n := hellos.Load(); n != 1 {
		t.Errorf("%d handshakes, want 1", n)
	}
	for _, err := range errs {
		if !errors.Is(err, extract.ErrMisconfigured) || !errors.Is(err, extract.ErrUntrusted) || extract.Retryable(err) {
			t.Fatalf("err = %v, want an untrusted certificate, misconfigured and not retryable", err)
		}
		if !strings.Contains(err.Error(), "SSL_CERT_FILE") {
			t.Errorf("the error does not say how to trust a CA: %v", err)
		}
	}
	if s := c.Budget(wire.ProductSchedule).State(); s.Spent+s.Uncertain != 0 {
		t.Errorf("budget %+v: a failed handshake sent nothing", s)
	}
}

// Plain http:// to another machine sends the key in clear with every
// request: refused unless AllowInsecureHTTP says so. This machine
// (localhost, 127.0.0.0/8, ::1) crosses no network and is taken.
func TestPlainHTTPToAnotherHostIsRefusedUnlessAllowed(t *testing.T) {
	k, _ := extract.NewKey("setup-secret-key")
	for _, tc := range []struct {
		cfg   extract.Config
		field string // "" when taken
	}{
		{extract.Config{ScheduleURL: "http://api.example.com/schedule/api/v1"}, "ScheduleURL"},
		{extract.Config{TrackingURL: "http://10.0.0.7:8089/container-tracking/api/v2"}, "TrackingURL"},
		{extract.Config{ScheduleURL: "https://api.example.com/schedule/api/v1", TrackingURL: "http://sim:8089/container-tracking/api/v2"}, "TrackingURL"},
		{extract.Config{ScheduleURL: "http://api.example.com/schedule/api/v1", AllowInsecureHTTP: true}, ""},
		{extract.Config{ScheduleURL: "https://api.example.com/schedule/api/v1"}, ""},
		{extract.Config{ScheduleURL: "http://127.0.0.1:8089/schedule/api/v1"}, ""},
		{extract.Config{ScheduleURL: "http://127.8.9.10/schedule/api/v1"}, ""},
		{extract.Config{ScheduleURL: "http://localhost:8089/schedule/api/v1"}, ""},
		{extract.Config{ScheduleURL: "http://[::1]:8089/schedule/api/v1"}, ""},
	} {
		tc.cfg.Key = k
		_, err := extract.NewClient(tc.cfg)
		var se *setting.Error
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s %s: %v; want it taken", tc.cfg.ScheduleURL, tc.cfg.TrackingURL, err)
		case tc.field != "" && (!errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), "sends the API key in clear") ||
			!strings.Contains(err.Error(), "AllowInsecureHTTP")):
			t.Errorf("%s %s: %v; want %s refused, saying why and what allows it", tc.cfg.ScheduleURL, tc.cfg.TrackingURL, err, tc.field)
		}
	}
}
