package jobs_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
)

// statusLine records what a terminal's status line showed.
type statusLine struct {
	mu    sync.Mutex
	shown []string
	done  int
}

func (s *statusLine) Show(status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shown = append(s.shown, status)
}

func (s *statusLine) Done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done++
}

// progressEvents are the "run: progress" events of a JSON log.
func progressEvents(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("a log line is not JSON: %v\n%s", err, line)
		}
		if ev["msg"] == "run: progress" {
			out = append(out, ev)
		}
	}
	return out
}

// Off a terminal, a run says how far it is at every tick of its progress
// interval, whether requests end or not: requests done of those it can
// send — its cap and the balance let 3 of the 6 ports through, so the
// total is 3, not 6 —, credits spent, pace and time left. Ticks are
// sent by the test, while the second paid request is being answered: no
// test waits a minute.
func TestOffATerminalARunSaysHowFarItIsAtEveryTick(t *testing.T) {
	b := newBench(t, 3, 100) // a balance of 3 schedule credits
	ports := portsOf(t, b.env.Service.World(), 6)
	ticks := make(chan time.Time)
	var paid atomic.Int64
	b.wrap(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.URL.Path, "/consumption/") && paid.Add(1) == 2 {
				ticks <- time.Now() // taken by the progress before it returns
				ticks <- time.Now()
			}
			next.ServeHTTP(w, r)
		})
	})
	res := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Ports: ports}, CapSchedule: 5, CapTracking: extract.Unlimited,
		ProgressEvery: time.Hour, ProgressTicks: ticks})
	if res.Run.SpentSchedule != 3 {
		t.Fatalf("spent %d schedule credits, want the balance's 3", res.Run.SpentSchedule)
	}
	events := progressEvents(t, b.logs.String())
	if len(events) != 2 {
		t.Fatalf("%d progress events for 2 ticks:\n%s", len(events), b.logs.String())
	}
	for _, ev := range events {
		if ev["total"] != float64(3) || ev["done"].(float64) > 1 || ev["schedule_credits"].(float64) > 2 || ev["tracking_calls"] != float64(0) {
			t.Errorf("progress %v: want 3 requests in all (what the balance lets through), at most 1 done and 2 credits", ev)
		}
		for _, k := range []string{"left", "left_seconds", "elapsed", "run"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("progress %v: no %s", ev, k)
			}
		}
	}
}

// On a terminal, the status line's total and time left count only what
// the cap lets the run send, and its last state is every one of them
// done, whatever the worklist held beyond.
func TestTheProgressBarCountsWhatTheCapLetsThrough(t *testing.T) {
	b := newBench(t, 100, 100)
	ports := portsOf(t, b.env.Service.World(), 6)
	var line statusLine
	res := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Ports: ports}, CapSchedule: 2, CapTracking: extract.Unlimited,
		Progress: &line, ProgressEvery: time.Nanosecond})
	if res.Run.SpentSchedule != 2 {
		t.Fatalf("spent %d schedule credits, want the cap's 2", res.Run.SpentSchedule)
	}
	line.mu.Lock()
	defer line.mu.Unlock()
	if len(line.shown) == 0 || line.done != 1 {
		t.Fatalf("the status line showed %q and was ended %d times", line.shown, line.done)
	}
	last := line.shown[len(line.shown)-1]
	if !strings.Contains(last, "████████████████████████ 2/2 requests · 2 schedule credits · 0 tracking calls · 0s left") {
		t.Errorf("the last status is %q, want 2/2 requests: the cap lets 2 of the 6 through", last)
	}
	for _, s := range line.shown {
		if strings.Contains(s, "/6 requests") {
			t.Errorf("a status counted the requests the cap holds back: %q", s)
		}
	}
	if n := len(progressEvents(t, b.logs.String())); n != 0 {
		t.Errorf("%d progress events beside the terminal's status line, want none", n)
	}
}
