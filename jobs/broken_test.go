package jobs_test

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
)

// breaker is a server in front of the simulator that, while on, breaks
// the 2xx answers of the paid requests broken picks: half the body under
// a Content-Length that says so (JSON cut short), or under the whole
// body's Content-Length (the transfer stops early).
type breaker struct {
	on     atomic.Bool
	broken func(r *http.Request) bool
	hits   atomic.Int64
}

func (k *breaker) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paid := !strings.Contains(r.URL.Path, "/consumption/")
		if !k.on.Load() || !paid || !k.broken(r) {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for name, v := range rec.Header() {
			w.Header()[name] = v
		}
		if rec.Code != http.StatusOK || len(body) < 2 {
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
			return
		}
		k.hits.Add(1)
		cut := body[:len(body)/2]
		length := len(cut)
		if len(r.URL.RawQuery)%2 == 0 { // the transfer stops early
			length = len(body)
		}
		w.Header().Set("Content-Length", strconv.Itoa(length))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(cut)
	})
}

// everyThird picks about a third of the requests, always the same ones.
func everyThird(r *http.Request) bool {
	h := fnv.New32a()
	h.Write([]byte(r.URL.RequestURI()))
	return h.Sum32()%3 == 0
}

// exitCodes are the command line's exit codes (main.go), which the jobs
// record in etl_runs.exit_code.
var exitCodes = jobs.ExitCodes{jobs.VerdictOK: 0, jobs.VerdictFailed: 1, jobs.VerdictRefused: 2, jobs.VerdictPartial: 3, jobs.VerdictBusy: 75}

// shortfalls reads etl_runs.shortfalls of run id.
func shortfalls(t *testing.T, wh *load.Warehouse, id string) map[string]int64 {
	t.Helper()
	var text *string
	if err := wh.DB().QueryRowContext(context.Background(), "SELECT CAST(shortfalls AS VARCHAR) FROM etl_runs WHERE run_id = ?", id).Scan(&text); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	if text != nil {
		if err := json.Unmarshal([]byte(*text), &out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// An answer that arrives broken (JSON cut short, or a body shorter than
// its Content-Length) is no answer: the run retries it, keeps the last
// attempt and dead-letters it, ends partial with exit code 3 and
// etl_runs.shortfalls saying so; after the faults stop, the next run of
// the same date asks for exactly those again, ends ok, and the warehouse
// holds what a run without faults gives.
func TestAnswersBrokenInTransferAreAskedAgainUntilTheyArriveWhole(t *testing.T) {
	slowtest.Long(t)
	fast := extract.RetryPolicy{MaxAttempts: 3, MaxElapsed: time.Minute, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	k := &breaker{broken: everyThird}
	chaos := newBench(t, 1000, 1000)
	chaos.retry = fast
	chaos.wrap(t, k.wrap)
	clean := newBench(t, 1000, 1000)
	w := chaos.env.Service.World()
	sel := jobs.Selection{Ports: portsOf(t, w, 6), Shipments: visible(t, w, 30)}

	k.on.Store(true)
	first := chaos.run(t, jobs.RunOptions{Selection: sel, ExitCodes: exitCodes})
	if len(first.Broken) == 0 || k.hits.Load() < int64(3*len(first.Broken)) {
		t.Fatalf("%d answers broken of %d broken sent: want some, each tried 3 times", len(first.Broken), k.hits.Load())
	}
	if first.Run.Status != load.StatusPartial || first.Run.ExitCode == nil || *first.Run.ExitCode != 3 {
		t.Fatalf("run with broken answers: %s, exit %v: want partial, 3", first.Run.Status, first.Run.ExitCode)
	}
	sf := shortfalls(t, chaos.wh, first.Run.ID)
	dead := int64(queryCount(t, chaos.wh, "SELECT count(*) FROM dead_letters"))
	if sf[jobs.ShortBroken] != int64(len(first.Broken)) || sf[jobs.ShortDeadLetters] != dead || dead != int64(len(first.Broken)) {
		t.Fatalf("etl_runs.shortfalls %v, %d dead letters: want %d broken answers, each one dead letter", sf, dead, len(first.Broken))
	}
	if n := queryCount(t, chaos.wh, "SELECT count(*) FROM raw_responses WHERE broken IS NOT NULL"); n != len(first.Broken) {
		t.Fatalf("%d broken answers landed, want the last attempt of each of %d", n, len(first.Broken))
	}
	if end := endLine(chaos.logs.String()); !strings.Contains(end, `"status":"partial"`) || !strings.Contains(end, `"exit_code":3`) ||
		!strings.Contains(end, `"shortfalls":{"broken_answers":`) {
		t.Fatalf("the run's end in the log does not say partial with the shortfalls:\n%s", end)
	}

	k.on.Store(false)
	second := chaos.run(t, jobs.RunOptions{ExitCodes: exitCodes})
	if second.Plan.Reasked != len(first.Broken) {
		t.Fatalf("second run of the date asked %d again, want the %d broken", second.Plan.Reasked, len(first.Broken))
	}
	if second.Run.Status != load.StatusOK || *second.Run.ExitCode != 0 || len(second.Run.Shortfalls) != 0 {
		t.Fatalf("second run: %s, exit %d, shortfalls %v: want ok", second.Run.Status, *second.Run.ExitCode, second.Run.Shortfalls)
	}
	if asked := second.Plan.Ports + second.Plan.Shipments; asked != len(first.Broken) {
		t.Fatalf("second run asked %d, want only the %d broken", asked, len(first.Broken))
	}

	clean.run(t, jobs.RunOptions{Selection: sel})
	got, want := snapshot(t, chaos.wh.DB()), snapshot(t, clean.wh.DB())
	for table, rows := range want {
		if table == "dead_letters" {
			continue
		}
		if strings.Join(got[table], "\n") != strings.Join(rows, "\n") {
			t.Errorf("%s after the broken answers were asked again differs from a run without faults (%d rows, want %d)", table, len(got[table]), len(rows))
		}
	}
}

// An answer that stays broken is asked by at most --max-reasks jobs of
// the date: the next one leaves it, lists it in its plan, and ends
// partial, spending nothing on it.
func TestAnAnswerThatStaysBrokenIsLeftAfterMaxReasksJobs(t *testing.T) {
	slowtest.Long(t)
	k := &breaker{broken: everyThird}
	b := newBench(t, 1000, 1000)
	b.retry = extract.RetryPolicy{MaxAttempts: 2, MaxElapsed: time.Minute, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	b.wrap(t, k.wrap)
	w := b.env.Service.World()
	sel := jobs.Selection{Ports: portsOf(t, w, 6), Shipments: visible(t, w, 12)}
	k.on.Store(true)
	var broken []string
	for job := 1; job <= 2; job++ {
		res := b.run(t, jobs.RunOptions{Selection: sel, MaxReasks: 2, ExitCodes: exitCodes})
		if len(res.Broken) == 0 || len(res.Plan.GivenUp) != 0 {
			t.Fatalf("job %d: broken %v, given up %v", job, res.Broken, res.Plan.GivenUp)
		}
		broken = res.Broken
	}
	before := k.hits.Load()
	third := b.run(t, jobs.RunOptions{MaxReasks: 2, ExitCodes: exitCodes})
	if strings.Join(third.Plan.GivenUp, ",") != strings.Join(broken, ",") || k.hits.Load() != before || len(third.Broken) != 0 {
		t.Fatalf("third job: given up %v, %d more broken sent: want %v left, nothing sent", third.Plan.GivenUp, k.hits.Load()-before, broken)
	}
	if third.Run.Status != load.StatusPartial || third.Run.Shortfalls[jobs.ShortNotAskedAgain] != int64(len(broken)) ||
		!strings.Contains(third.Run.StopReason, "given up for the date") {
		t.Fatalf("third job: %s, shortfalls %v, %q: want partial, %d not asked again", third.Run.Status, third.Run.Shortfalls, third.Run.StopReason, len(broken))
	}
	// A larger cap asks them again.
	fourth := b.run(t, jobs.RunOptions{MaxReasks: 3, ExitCodes: exitCodes})
	if fourth.Plan.Reasked != len(broken) || len(fourth.Plan.GivenUp) != 0 {
		t.Fatalf("with --max-reasks 3: asked again %d, given up %v", fourth.Plan.Reasked, fourth.Plan.GivenUp)
	}
}

// portsOf picks n ports with a by-port schedule at the world's start.
func portsOf(t *testing.T, w *sim.World, n int) []string {
	t.Helper()
	var out []string
	for _, p := range w.Ports() {
		if _, err := w.PortSchedule(p.Locode, w.Config().Start); err == nil {
			out = append(out, p.Locode)
		}
		if len(out) == n {
			return out
		}
	}
	t.Fatalf("only %d ports with a schedule", len(out))
	return nil
}

// endLine is the last "run: ended" line of a JSON log.
func endLine(log string) string {
	end := ""
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, `"msg":"run: ended"`) {
			end = line
		}
	}
	return end
}
