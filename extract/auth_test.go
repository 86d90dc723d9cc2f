package extract_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// schemes are the ways a provider may want the key: the service's API_KEY
// header, a bearer token, a header of its own name, and the bare key in
// Authorization (no scheme word).
var schemes = []string{"api-key", "bearer", "header:X-API-Key", "header:Authorization"}

func mustAuth(t testing.TB, s string) extract.Auth {
	t.Helper()
	a, err := extract.ParseAuth(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// RFC 9110 §5.1: "field-name = token"; §5.6.2: "tchar = "!" / "#" / "$" /
// "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" /
// DIGIT / ALPHA". A header:NAME whose NAME is not a token is refused, as
// is a header the HTTP client writes itself.
func TestParseAuth(t *testing.T) {
	for _, tc := range []struct{ in, str, header string }{
		{"", "api-key", "API_KEY"},
		{"api-key", "api-key", "API_KEY"},
		{" API-KEY ", "api-key", "API_KEY"},
		{"bearer", "bearer", "Authorization"},
		{"Bearer", "bearer", "Authorization"},
		{"header:X-API-Key", "header:X-API-Key", "X-API-Key"},
		{"HEADER: x-api-key", "header:x-api-key", "x-api-key"},
		{"header:API_KEY", "header:API_KEY", "API_KEY"},
		{"header:Authorization", "header:Authorization", "Authorization"},
		{"header:!#$%&'*+-.^_`|~09azAZ", "header:!#$%&'*+-.^_`|~09azAZ", "!#$%&'*+-.^_`|~09azAZ"},
	} {
		a, err := extract.ParseAuth(tc.in)
		if err != nil || a.String() != tc.str || a.Header() != tc.header {
			t.Errorf("ParseAuth(%q) = %q (header %q), %v; want %q (header %q)", tc.in, a, a.Header(), err, tc.str, tc.header)
			continue
		}
		if again, err := extract.ParseAuth(a.String()); err != nil || again != a {
			t.Errorf("ParseAuth(%q) = %v, %v: String does not read back", a.String(), again, err)
		}
	}
	for _, tc := range []struct{ in, mention string }{
		{"basic", "want api-key"},
		{"token", "want api-key"},
		{"bearer:x", "want api-key"},
		{"api-key:X", "want api-key"},
		{"header", "name the header"},
		{"header:", "empty NAME"},
		{"header:X API", `" " is not allowed`},
		{"header:X:Y", `":" is not allowed`},
		{"header:X-Key\r\nEvil: 1", `"\r" is not allowed`},
		{"header:Schlüssel", "is not allowed in a header name"},
		{"header:(key)", `"(" is not allowed`},
		{"header:Content-Length", "the HTTP client sets it itself"},
		{"header:host", "Host is not a header a key can go in"},
		{"header:user-agent", "User-Agent"},
		{"header:Proxy-Authorization", "Proxy-Authorization"},
	} {
		if a, err := extract.ParseAuth(tc.in); err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("ParseAuth(%q) = %v, %v; want an error mentioning %q", tc.in, a, err, tc.mention)
		}
	}
}

// Each scheme, against a simulator that wants it: the real client is
// answered; a client sending the key any other way is refused 401 with a
// message saying how the key is wanted, in the service's error body and,
// for the schedule product of the DCSA profile, in a DCSA ErrorResponse.
func TestEverySchemeAgainstTheSimulator(t *testing.T) {
	for _, want := range schemes {
		for _, profile := range []string{sim.ScheduleAPIService, sim.ScheduleAPIDCSA} {
			t.Run(want+"/"+profile, func(t *testing.T) {
				ctx := context.Background()
				r := newRig(t, simtest.Options{Auth: simtest.Auth(t, want), ScheduleAPI: profile}, "test", func(c *extract.Config) {
					c.ScheduleAPI = wire.ScheduleAPI(profile)
				})
				w, at := r.env.Service.World(), r.env.Service.Clock().Now()
				if _, err := r.do(r.client.PortSchedule(ctx, simtest.Port(t, w, at))); err != nil {
					t.Fatalf("port schedule: %v", err)
				}
				if _, err := r.do(r.client.Shipment(ctx, simtest.Shipment(t, w, at))); err != nil {
					t.Fatalf("shipment: %v", err)
				}
				if _, err := r.do(r.client.CurrentPeriod(ctx, wire.ProductTracking)); err != nil {
					t.Fatalf("current period: %v", err)
				}
				how := "as Authorization: Bearer <key>"
				if a := mustAuth(t, want); !a.Bearer() {
					how = "in the " + a.Header() + " header"
				}
				for _, other := range schemes {
					if other == want {
						continue
					}
					cfg := r.env.Config(t, "test")
					cfg.Auth, cfg.ScheduleAPI = mustAuth(t, other), wire.ScheduleAPI(profile)
					c, err := extract.NewClient(cfg)
					if err != nil {
						t.Fatal(err)
					}
					_, err = simtest.Drain(c.PortSchedule(ctx, "NLRTM"))
					var apiErr *extract.APIError
					if !errors.Is(err, extract.ErrUnauthorized) || !errors.As(err, &apiErr) || !strings.Contains(apiErr.Message, "send it "+how) {
						t.Errorf("sent as %s: %v; want a 401 saying to send it %s", other, err, how)
					}
					if other == "api-key" && !strings.Contains(apiErr.Message, "not in the API_KEY header") {
						t.Errorf("sent as %s: %q does not say where the key came", other, apiErr.Message)
					}
					if strings.Contains(err.Error(), "test") {
						t.Errorf("the 401 echoes the key: %v", err)
					}
				}
			})
		}
	}
}

// headerLog records the headers of every request a server receives.
type headerLog struct {
	mu   sync.Mutex
	seen []http.Header
}

func (l *headerLog) handler(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Clone())
		l.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// The key goes in the chosen header, as that scheme spells it, and in no
// other: bearer sends no API_KEY header, API_KEY no Authorization.
func TestTheKeyGoesOnlyInTheChosenHeader(t *testing.T) {
	const key = "only-HERE-key-3141"
	k, _ := extract.NewKey(key)
	for _, scheme := range schemes {
		t.Run(scheme, func(t *testing.T) {
			var log headerLog
			srv := httptest.NewServer(log.handler(http.StatusNotFound, `{"errorCode":404,"message":"no data","details":[],"time":"2026-01-05T00:00:00Z"}`))
			defer srv.Close()
			a := mustAuth(t, scheme)
			c, err := extract.NewClient(extract.Config{ScheduleURL: srv.URL + sim.SchedulePrefix, TrackingURL: srv.URL + sim.TrackingPrefix, Key: k, Auth: a})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			_, _ = simtest.Drain(c.PortSchedule(ctx, "NLRTM"))
			_, _ = simtest.Drain(c.Shipment(ctx, wire.ShipmentRef{Number: "CSQU3054383", Type: wire.ShipmentContainer}))
			_, _ = simtest.Drain(c.CurrentPeriod(ctx, wire.ProductTracking))
			// Each product: its 404, then the current period that checks
			// its URL (404 too: the product stops, the balance is not
			// asked).
			if len(log.seen) != 4 {
				t.Fatalf("%d requests, want 4", len(log.seen))
			}
			value := key
			if a.Bearer() {
				value = "Bearer " + key
			}
			for i, h := range log.seen {
				carriers := 0
				for name, vs := range h {
					for _, v := range vs {
						if k.RedactString(v) == v {
							continue
						}
						carriers++
						if !strings.EqualFold(name, a.Header()) || v != value {
							t.Errorf("request %d: %s: %q carries the key, want only %s: %q", i, name, v, a.Header(), value)
						}
					}
				}
				if carriers != 1 {
					t.Errorf("request %d: %d headers carry the key, want exactly 1: %v", i, carriers, h)
				}
				if _, ok := h["Api_key"]; ok && !strings.EqualFold(a.Header(), "API_KEY") {
					t.Errorf("request %d: an API_KEY header was sent in %s mode", i, scheme)
				}
			}
		})
	}
}

// A redirect to another host, or from https to http, is refused in every
// scheme, whatever HTTP client the caller gave: Go's client drops
// Authorization for another domain, but sends API_KEY and any header of a
// provider's own name along. A redirect on the same host is followed, the
// key with it.
func TestEverySchemeRefusesRedirectsThatWouldCarryTheKeyAway(t *testing.T) {
	const key = "redirect-secret-1"
	k, _ := extract.NewKey(key)
	for _, scheme := range schemes {
		for _, hc := range []struct {
			name string
			http *http.Client
		}{{"own client", nil}, {"caller's client", &http.Client{}}, {"caller's lax policy", &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}}} {
			t.Run(scheme+"/"+hc.name, func(t *testing.T) {
				stranger := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					for name, vs := range r.Header {
						if k.RedactString(strings.Join(vs, " ")) != strings.Join(vs, " ") {
							t.Errorf("the stranger received the key in %s", name)
						}
					}
					t.Errorf("the stranger received a request")
				}))
				defer stranger.Close()
				var log headerLog
				home := httptest.NewServer(log.handler(http.StatusOK, `{"creditsInitial":5,"credits":5}`))
				defer home.Close()
				redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, stranger.URL+r.URL.Path, http.StatusFound)
				}))
				defer redirector.Close()
				samehost := http.NewServeMux()
				samehost.HandleFunc("/moved/", func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, "/here"+strings.TrimPrefix(r.URL.Path, "/moved"), http.StatusMovedPermanently)
				})
				samehost.Handle("/here/", log.handler(http.StatusOK, `{"creditsInitial":5,"credits":5}`))
				same := httptest.NewServer(samehost)
				defer same.Close()

				a := mustAuth(t, scheme)
				c, err := extract.NewClient(extract.Config{ScheduleURL: redirector.URL + sim.SchedulePrefix, TrackingURL: same.URL + "/moved", Key: k, Auth: a, HTTP: hc.http,
					Retry: extract.RetryPolicy{MaxAttempts: 1, MaxElapsed: time.Second, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}})
				if err != nil {
					t.Fatal(err)
				}
				_, err = simtest.Drain(c.CurrentPeriod(context.Background(), wire.ProductSchedule))
				if err == nil || !strings.Contains(err.Error(), "another host") || strings.Contains(err.Error(), key) {
					t.Fatalf("err = %v, want the redirect to another host refused", err)
				}
				if _, err := simtest.Drain(c.CurrentPeriod(context.Background(), wire.ProductTracking)); err != nil {
					t.Fatalf("a redirect on the same host: %v", err)
				}
				if len(log.seen) != 1 || log.seen[0].Get(a.Header()) == "" {
					t.Errorf("the same host's redirect target saw %v, want the key in %s", log.seen, a.Header())
				}
			})
		}
	}
}

func TestARedirectFromHTTPSToHTTPIsRefused(t *testing.T) {
	req := func(u string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	check := extract.SameHostRedirects
	if err := check(req("http://api.example.com/b"), []*http.Request{req("https://api.example.com/a")}); err == nil || !strings.Contains(err.Error(), "unencrypted") {
		t.Errorf("https to http: %v, want refused", err)
	}
	for _, tc := range [][2]string{{"http://api.example.com/a", "https://api.example.com/b"}, {"https://api.example.com/a", "https://api.example.com/b"}} {
		if err := check(req(tc[1]), []*http.Request{req(tc[0])}); err != nil {
			t.Errorf("%s to %s: %v, want followed", tc[0], tc[1], err)
		}
	}
}
