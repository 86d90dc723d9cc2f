package extract_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// recorder keeps every request URI a handler is sent.
type recorder struct {
	h  http.Handler
	mu sync.Mutex
	// uris asked, in order
	uris []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.uris = append(r.uris, req.URL.RequestURI())
	r.mu.Unlock()
	r.h.ServeHTTP(w, req)
}

// TestTheClientPagesAsEachVersionOfTheStandardSays walks a port's
// schedule, a vessel's and a lane's, in pages of 2, against the
// simulator serving each version of DCSA Commercial Schedules 1.0: every
// page is bought once, none is refused, and to a 1.0.0 or 1.0.1 provider
// a next page is asked "with only ?cursor=… as query parameter" (the
// simulator refuses anything else with a 400, as the standard says it
// should; TestDCSACursorRules in package sim checks that from the text).
func TestTheClientPagesAsEachVersionOfTheStandardSays(t *testing.T) {
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	w := simtest.World(sim.WorldConfig{})
	port, vessel := simtest.Port(t, w, day), simtest.Vessel(t, w, day)
	for _, version := range sim.DCSAVersions {
		t.Run(version, func(t *testing.T) {
			r := newRig(t, simtest.Options{ScheduleAPI: sim.ScheduleAPIDCSA, DCSAVersion: version, PageSize: 2},
				"test", func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIDCSA })
			env := r.env
			rec := &recorder{h: env.Service}
			env.Server.Config.Handler = rec
			c := r.client.WithLogicalDate(day)
			ctx := t.Context()
			if _, err := r.do(c.PortSchedule(ctx, port)); err != nil {
				t.Fatalf("port %s: %v", port, err)
			}
			if _, err := r.do(c.VesselSchedule(ctx, vessel)); err != nil {
				t.Fatalf("vessel %d: %v", vessel, err)
			}
			if _, err := r.do(c.PointToPoint(ctx, "CNSHA", "NLRTM", extract.P2POptions{DepartureStart: day})); err != nil {
				t.Fatalf("lane: %v", err)
			}
			st := env.Service.Stats()
			if st.Requests <= 3 {
				t.Fatalf("%d requests for 3 answers: want some in several pages", st.Requests)
			}
			landed := len(r.raws)
			if st.ByStatus[http.StatusBadRequest] != 0 || st.ByStatus[http.StatusOK] != st.Requests {
				t.Errorf("statuses %v: want every request answered 200", st.ByStatus)
			}
			if s := c.Budget(wire.ProductSchedule).State(); s.Spent != st.Requests || int64(landed) != st.Requests || st.Charged["schedule"] != st.Requests {
				t.Errorf("%d requests, %d charged, %d spent, %d landed: want one credit a page, each page once", st.Requests, st.Charged["schedule"], s.Spent, landed)
			}
			seen := map[string]bool{}
			for _, uri := range rec.uris {
				if seen[uri] {
					t.Errorf("asked twice: %s", uri)
				}
				seen[uri] = true
				u, _ := url.Parse(uri)
				q := u.Query()
				if !q.Has("cursor") {
					continue
				}
				alone := len(q) == 1
				if want := version == "1.0.0" || version == "1.0.1"; alone != want {
					t.Errorf("asked %s: cursor alone = %v, want %v", uri, alone, want)
				}
			}
			if !strings.Contains(strings.Join(rec.uris, " "), "cursor=") {
				t.Error("no next page was asked: the test asks nothing of the paging")
			}
		})
	}
}
