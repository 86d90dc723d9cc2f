package extract_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sourcegraph/conc/pool"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// wrongHost answers every request with status and body, as a web server,
// a gateway or a provider of another contract does at a URL that is not
// the product's.
type wrongHost struct {
	status      int
	contentType string
	body        string
	asked       atomic.Int64
}

func (h *wrongHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.asked.Add(1)
	w.Header().Set("Content-Type", h.contentType)
	w.WriteHeader(h.status)
	_, _ = w.Write([]byte(h.body))
}

const webPage404 = "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"

// askPorts asks n port schedules at once, as a job's workers do, keeping
// every response in raws.
func askPorts(c *extract.Client, n int, raws *[]*response.Received) []error {
	var mu sync.Mutex
	var errs []error
	p := pool.New().WithMaxGoroutines(n)
	for i := 0; i < n; i++ {
		p.Go(func() {
			got, err := simtest.Drain(c.PortSchedule(context.Background(), "NLRTM"))
			mu.Lock()
			*raws = append(*raws, got...)
			errs = append(errs, err)
			mu.Unlock()
		})
	}
	p.Wait()
	return errs
}

func TestAWrongDCSAURLStopsTheScheduleProductAfterOneRequest(t *testing.T) {
	// "DCSA defines 200, 400 and 500 only; an empty answer is 200 []":
	// a 404, whatever its body, is a wrong URL, not "no data".
	for _, h := range []*wrongHost{
		{status: 404, contentType: "text/html", body: webPage404},
		{status: 404, contentType: "application/json", body: `{"errorCode":404,"message":"no data"}`},
		{status: 404, contentType: "text/plain", body: ""},
	} {
		c, raws := pagedClient(t, h, extract.Unlimited, nil)
		errs := askPorts(c, 10, raws)
		if n := h.asked.Load(); n != 1 {
			t.Errorf("%q: %d requests reached the server, want 1: the first answer stops the product", h.body, n)
		}
		for _, err := range errs {
			var me *extract.MisconfigError
			if !errors.As(err, &me) || errors.Is(err, extract.ErrNotFound) {
				t.Fatalf("err = %v, want a MisconfigError and not ErrNotFound", err)
			}
			if !strings.Contains(err.Error(), "/cs/v1/port-schedules?UNLocationCode=NLRTM") || !strings.Contains(err.Error(), "http://127.0.0.1") ||
				!strings.Contains(err.Error(), "dcsa-cs-1.0") || !strings.Contains(err.Error(), "never 404") {
				t.Errorf("the error does not name the URL asked, the profile and why: %v", err)
			}
		}
		if s := c.Budget(wire.ProductSchedule).State(); s.Spent+s.Uncertain != 0 || len(*raws) != 1 {
			t.Errorf("spent %+v, landed %d: want nothing spent and the one answer landed", s, len(*raws))
		}
	}
}

func TestAWebPageWhereTheServiceAnswersIsAWrongURL(t *testing.T) {
	cases := []struct {
		name string
		h    *wrongHost
		want error
	}{
		{"an HTML 404", &wrongHost{status: 404, contentType: "text/html; charset=utf-8", body: webPage404}, extract.ErrMisconfigured},
		{"a gateway's 404", &wrongHost{status: 404, contentType: "application/json", body: `{"message":"Missing Authentication Token"}`}, extract.ErrMisconfigured},
		{"an HTML 200", &wrongHost{status: 200, contentType: "text/html", body: webPage404}, extract.ErrMisconfigured},
		// service.md §4 lists GET /consumption/current-period, answering
		// the consumption period object, with no 404: the service's own
		// 404 body there is a base path that is not the product's.
		{"the service's 404 everywhere", &wrongHost{status: 404, contentType: "application/json", body: serviceNoData}, extract.ErrMisconfigured},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := pagedClient(t, tc.h, extract.Unlimited, func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIService; cfg.Paths = wire.Paths{} })
			_, err := simtest.Drain(c.CurrentPeriod(context.Background(), wire.ProductSchedule))
			if !errors.Is(err, tc.want) {
				t.Fatalf("balance: err = %v, want %v", err, tc.want)
			}
			_, err = simtest.Drain(c.PortSchedule(context.Background(), "NLRTM"))
			if !errors.Is(err, tc.want) {
				t.Fatalf("port schedule: err = %v, want %v", err, tc.want)
			}
			// The free balance call showed it: nothing paid is asked.
			if n := tc.h.asked.Load(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			// The tracking product has its own URL: it is asked.
			before := tc.h.asked.Load()
			_, _ = simtest.Drain(c.CurrentPeriod(context.Background(), wire.ProductTracking))
			if tc.h.asked.Load() != before+1 {
				t.Errorf("the tracking product was not asked: one product's wrong URL stops only that product")
			}
		})
	}
}
