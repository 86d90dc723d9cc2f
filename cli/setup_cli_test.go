package cli

import (
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// serviceHost serves the simulator's products under their base paths
// and, as a server of the service does, its own 404 error body (service.md
// §7: errorCode, message) to every other path; it counts what it is asked.
type serviceHost struct {
	env   *simtest.Env
	asked atomic.Int64
}

func (h *serviceHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.asked.Add(1)
	if strings.HasPrefix(r.URL.Path, h.env.Service.ScheduleBasePath()+"/") || strings.HasPrefix(r.URL.Path, sim.TrackingPrefix+"/") {
		h.env.Service.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	_, _ = io.WriteString(w, `{"errorCode":404,"message":"no data found for the requested resource","details":[],"time":"2026-01-05T03:00:00Z"}`)
}

// A base path that is not the product's (…/schedule/api/v2, the host's
// root, …/container-tracking/api/v1) is answered with the service's own
// 404 everywhere: the job exits 2 after at most 2 requests, naming the
// setting, instead of "ok" with every port "not found" every night.
func TestCLIAWrongBasePathExitsTwoNamingTheSetting(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	h := &serviceHost{env: env}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	w := env.Service.World()
	ship := simtest.Shipment(t, w, w.Config().Start)
	csv := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(csv, []byte("shipment_number,shipment_type,sealine\n"+ship.Number+","+string(ship.Type)+","+ship.Sealine+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ports := "NLRTM,DEHAM,SGSIN,CNSHA,USNYC"
	for _, tc := range []struct {
		name, setting, url string
		args               []string
	}{
		{"schedule v2", "ETALAKE_SCHEDULE_URL", srv.URL + "/schedule/api/v2", []string{"--ports", ports}},
		{"schedule at the host's root", "ETALAKE_SCHEDULE_URL", srv.URL, []string{"--ports", ports}},
		{"tracking v1", "ETALAKE_TRACKING_URL", srv.URL + "/container-tracking/api/v1", []string{"--shipments", csv}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"ETALAKE_SCHEDULE_URL": srv.URL + env.Service.ScheduleBasePath(), "ETALAKE_TRACKING_URL": srv.URL + sim.TrackingPrefix,
				"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": filepath.Join(t.TempDir(), "wh")}
			vars[tc.setting] = tc.url
			h.asked.Store(0)
			code, stdout, stderr := run(t, vars, append([]string{"backfill", "--yes", "--date", "2026-01-05"}, tc.args...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s%s", code, exitUsage, stdout, stderr)
			}
			if !strings.Contains(stderr, "check "+tc.setting) || !strings.Contains(stdout+stderr, "/consumption/current-period") {
				t.Errorf("the error does not name %s and the answer that showed it wrong:\n%s%s", tc.setting, stdout, stderr)
			}
			if n := h.asked.Load(); n > 2 {
				t.Errorf("%d requests, want at most 2", n)
			}
		})
	}
}

// A redirect the client refuses and a certificate it does not trust end
// the job at once with exit 2 — not 3, which the README's recipes retry —
// naming the setting to fix, after one request, nothing counted as
// possibly charged.
func TestCLIARefusedRedirectOrAnUntrustedCertificateExitsTwo(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	var asked atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.Redirect(w, r, "http://api.elsewhere.example"+r.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(elsewhere.Close)
	untrusted := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		env.Service.ServeHTTP(w, r)
	}))
	untrusted.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused
	untrusted.StartTLS()
	t.Cleanup(untrusted.Close)
	for _, tc := range []struct {
		name, base string
		words      []string
		want       int64
	}{
		{"redirect to another host", elsewhere.URL, []string{"redirect refused", "api.elsewhere.example", "check ETALAKE_SCHEDULE_URL"}, 1},
		{"untrusted certificate", untrusted.URL, []string{"certificate", "SSL_CERT_FILE", "ETALAKE_SCHEDULE_URL"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked.Store(0)
			vars := map[string]string{"ETALAKE_SCHEDULE_URL": tc.base + env.Service.ScheduleBasePath(), "ETALAKE_API_KEY": cliKey,
				"ETALAKE_RATE": "1000/1s", "ETALAKE_WAREHOUSE": filepath.Join(t.TempDir(), "wh")}
			code, stdout, stderr := run(t, vars, "backfill", "--yes", "--date", "2026-01-05", "--ports", "NLRTM,DEHAM,SGSIN,CNSHA,USNYC")
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s%s", code, exitUsage, stdout, stderr)
			}
			for _, w := range tc.words {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("the output does not say %q:\n%s%s", w, stdout, stderr)
				}
			}
			if n := asked.Load(); n != tc.want {
				t.Errorf("%d requests answered, want %d", n, tc.want)
			}
			if strings.Contains(stdout+stderr, "possibly charged") {
				t.Errorf("credits counted as possibly charged:\n%s%s", stdout, stderr)
			}
		})
	}
}

// Plain http:// to another machine would send the key in clear: refused
// before any request, naming the setting that allows it; allowed, it is
// asked. The simulator is served on this machine's own non-loopback
// address, which is "another host" to the rule.
func TestCLIPlainHTTPToAnotherHostNeedsTheSetting(t *testing.T) {
	ip := outwardIP(t)
	env := cliSim(t)
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	srv := httptest.NewUnstartedServer(env.Service)
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": srv.URL + env.Service.ScheduleBasePath(), "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	code, stdout, stderr := run(t, vars, "credits")
	if code != exitUsage || !strings.Contains(stderr, "ETALAKE_SCHEDULE_URL (--schedule-url)") || !strings.Contains(stderr, "ETALAKE_ALLOW_INSECURE_HTTP (--allow-insecure-http)") ||
		!strings.Contains(stderr, "in clear") {
		t.Fatalf("exit %d, want %d naming the URL's setting and the one that allows it\n%s%s", code, exitUsage, stdout, stderr)
	}
	if n := env.Service.Stats().Requests; n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
	vars["ETALAKE_ALLOW_INSECURE_HTTP"] = "1"
	if code, stdout, stderr := run(t, vars, "credits"); code != exitOK {
		t.Errorf("allowed: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
}

// outwardIP is an IPv4 address of this machine that is not loopback; the
// test skips on a machine without one.
func outwardIP(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("no address here but loopback")
	return ""
}

// A coordination database that does not exist is a setting to fix: exit
// 2 naming ETALAKE_COORDINATION, nothing asked, and not "coordinator
// lost", which a job that had one and lost it says.
func TestCLIAMissingCoordinationDatabaseExitsTwo(t *testing.T) {
	slowtest.Long(t)
	pg := pgtest.Start(t)
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(100)}}})
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_COORDINATION": strings.Replace(pg.URL, "/postgres?", "/etalake_nowhere?", 1)}
	code, stdout, stderr := run(t, vars, "credits")
	if code != exitUsage || !strings.Contains(stderr, "ETALAKE_COORDINATION (--coordination)") || !strings.Contains(stderr, "etalake_nowhere") ||
		strings.Contains(stderr, "lost") {
		t.Errorf("exit %d, want %d naming the setting and not a coordinator lost:\n%s%s", code, exitUsage, stdout, stderr)
	}
	if n := env.Service.Stats().Requests; n != 0 {
		t.Errorf("the service saw %d requests; want none", n)
	}
}
