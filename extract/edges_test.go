package extract_test

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// unavailable answers 503 with Retry-After, noting on clock when each
// request came.
type unavailable struct {
	clock *fakeclock.Clock
	mu    sync.Mutex
	at    []time.Time
}

func (h *unavailable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.at = append(h.at, h.clock.Now())
	h.mu.Unlock()
	w.Header().Set("Retry-After", "60")
	w.WriteHeader(http.StatusServiceUnavailable)
}

// RFC 9110 §10.2.3: "Servers send the "Retry-After" header field to
// indicate how long the user agent ought to wait before making a
// follow-up request. When sent with a 503 (Service Unavailable) response,
// Retry-After indicates how long the service is expected to be
// unavailable to the client." Each retry waits for it, within the same
// bound of time (RetryPolicy.MaxElapsed, 2 minutes) as after a 429.
func TestRetryAfterOfA503IsHonoured(t *testing.T) {
	clock := fakeclock.New(time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC))
	h := &unavailable{clock: clock}
	c, raws := pagedClient(t, h, extract.Unlimited, func(cfg *extract.Config) {
		lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.DefaultRate, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Clock, cfg.Limiter = clock, lim
	})
	err := keep(raws, c.PortSchedule(t.Context(), "NLRTM"))
	if !errors.Is(err, extract.ErrServer) {
		t.Fatalf("err = %v, want ErrServer", err)
	}
	if len(h.at) != 3 {
		t.Errorf("%d attempts at %v: want 3, 60 s apart, within the 2 minutes a call may retry", len(h.at), h.at)
	}
	for i := 1; i < len(h.at); i++ {
		if gap := h.at[i].Sub(h.at[i-1]); gap < 60*time.Second {
			t.Errorf("attempt %d came %v after the one before: want Retry-After's 60 s", i+1, gap)
		}
	}
}

// quotaHost answers the balance read and every schedule request 403,
// saying the usage limit is reached, as service.md §7 has it: "403
// Forbidden | usage limit (credit quota) reached, or key without access
// to the product".
type quotaHost struct{ schedules atomic.Int64 }

func (h *quotaHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(r.URL.Path, "consumption") {
		h.schedules.Add(1)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte(`{"errorCode":403,"message":"usage limit reached","details":[],"time":"2026-01-05T03:00:00Z"}`))
}

// A balance read answered "usage limit reached" stops the schedule
// requests of the key: none is sent, each fails with ErrQuotaExhausted.
func TestAUsageLimitOnTheBalanceReadAsksNoSchedule(t *testing.T) {
	h := &quotaHost{}
	c, _ := pagedClient(t, h, extract.Unlimited, func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIService; cfg.Paths = wire.Paths{} })
	if err := keep(new([]*response.Received), c.CurrentPeriod(t.Context(), wire.ProductSchedule)); !errors.Is(err, extract.ErrForbidden) {
		t.Fatalf("balance: err = %v, want ErrForbidden", err)
	}
	for i := 0; i < 10; i++ {
		if err := keep(new([]*response.Received), c.PortSchedule(t.Context(), "NLRTM")); !errors.Is(err, extract.ErrQuotaExhausted) {
			t.Fatalf("schedule %d: err = %v, want ErrQuotaExhausted", i, err)
		}
	}
	if n := h.schedules.Load(); n != 0 {
		t.Errorf("%d schedule requests sent after the balance read said the usage limit is reached, want 0", n)
	}
}
