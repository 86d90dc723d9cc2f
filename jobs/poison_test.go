package jobs_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// oversize answers the first request for the shipment number with the
// simulator's answer grown past size by a string member the service does
// not document (a fault of the provider's), and every other request as the
// simulator does.
func oversize(number string, size int) func(http.Handler) http.Handler {
	var served atomic.Bool
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("shipmentNumber") != number || served.Swap(true) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			if rec.Code == http.StatusOK {
				pad := `{"debug":"` + strings.Repeat("x", size) + `",`
				body = append([]byte(pad), bytes.TrimPrefix(body, []byte("{"))...)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
}

// A paid answer larger than --max-body is kept — it was paid for, and is
// streamed to the body store, never held whole — and dead-lettered
// undecoded: the run goes on with the rest and ends partial;
// the next night's run, for another date, fetches as usual and ends ok,
// never stumbling on it; a replay with a larger --max-body derives it.
func TestOversizedBodyIsKeptDeadLetteredAndNeverStopsALaterJob(t *testing.T) {
	slowtest.Long(t)
	oversized(t, 2<<20, 1<<20)
}

// The same with a 120 MB answer at the default --max-body.
func TestOversizedBodyOf120MBAtTheDefaults(t *testing.T) {
	slowtest.Require(t, "large input: a 120 MB answer, decoded once")
	oversized(t, 120_000_000, 0)
}

// oversized runs the nightly job against a server whose first answer for
// a shipment has size bytes, with --max-body maxBody (0: the default).
func oversized(t *testing.T, size int, maxBody int64) {
	b := newBench(t, 1000, 1000)
	w := b.env.Service.World()
	ships := visible(t, w, 4)
	b.wrap(t, oversize(ships[1].Number, size))
	limit := cmp.Or(maxBody, jobs.DefaultMaxBody)

	first := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: ships}, MaxBody: maxBody})
	if first.Run.Status != load.StatusPartial || first.Quarantined != 1 || !strings.Contains(first.Run.StopReason, "dead letters") {
		t.Fatalf("first run: %s (%q), %d quarantined; want partial, the oversized body quarantined", first.Run.Status, first.Run.StopReason, first.Quarantined)
	}
	if first.Run.CallsTracking != 4 {
		t.Errorf("first run: %d tracking calls; want all 4 made", first.Run.CallsTracking)
	}
	if n := queryCount(t, b.wh, fmt.Sprintf("SELECT count(*) FROM raw_responses WHERE body_bytes > %d AND status = 200", size)); n != 1 {
		t.Errorf("%d oversized bodies in the raw landing; want it kept", n)
	}
	// Never held whole: streamed to the body store, nothing left behind.
	if n := queryCount(t, b.wh, fmt.Sprintf("SELECT count(*) FROM raw_responses WHERE body_bytes > %d AND body IS NULL AND body_file IS NOT NULL", size)); n != 1 {
		t.Errorf("%d oversized bodies in the body store; want it there", n)
	}
	if left, _ := os.ReadDir(b.wh.SpillDir()); len(left) != 0 {
		t.Errorf("%d files left in the landing directory after the job", len(left))
	}
	if n := queryCount(t, b.wh, fmt.Sprintf("SELECT count(*) FROM dead_letters WHERE record = '' AND reason LIKE '%%larger than %s (--max-body)%%'", bytesize.Format(limit))); n != 1 {
		t.Errorf("%d dead letters saying the body is larger than --max-body; want 1", n)
	}
	if n := queryCount(t, b.wh, "SELECT count(*) FROM shipments"); n != 3 {
		t.Errorf("%d shipments derived; want the other 3", n)
	}

	b.env.Service.Clock().Advance(24 * time.Hour)
	nightly := jobs.NightlyRefresh() // every shipment, each night
	next := b.run(t, jobs.RunOptions{MaxBody: maxBody, Refresh: &nightly})
	if next.Run.Status != load.StatusOK || next.Run.CallsTracking != 4 {
		t.Fatalf("next night: %s (%q), %d calls; want ok, all 4 fetched", next.Run.Status, next.Run.StopReason, next.Run.CallsTracking)
	}

	st, err := jobs.Replay(context.Background(), b.wh, jobs.ReplayOptions{MaxBody: maxBody})
	if err != nil || st.Status != load.StatusPartial || st.Quarantined != 1 {
		t.Fatalf("replay with the same --max-body: %+v, %v; want partial, the body quarantined again and the rest derived", st, err)
	}
	st, err = jobs.Replay(context.Background(), b.wh, jobs.ReplayOptions{MaxBody: 2 * int64(size)})
	if err != nil || st.Status != load.StatusOK || st.Quarantined != 0 {
		t.Fatalf("replay with a larger --max-body: %+v, %v; want ok, nothing quarantined", st, err)
	}
	if n := queryCount(t, b.wh, "SELECT count(*) FROM dead_letters"); n != 0 {
		t.Errorf("%d dead letters after the replay derived the body; want none", n)
	}
}
