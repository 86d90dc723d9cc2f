package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// Status is a terminal's status line (termline.Line): Show draws a status
// in place of the last, fitted to the terminal; Done leaves it and ends
// its line.
type Status interface {
	Show(status string)
	Done()
}

// DefaultProgressEvery is how often a run logs its progress when no
// terminal shows it (RunOptions.ProgressEvery).
const DefaultProgressEvery = time.Minute

// progress says how far a run's fetching is: on a terminal, a status
// line redrawn as requests end (at most every redrawEvery); else a
// "run: progress" event logged every RunOptions.ProgressEvery, whether
// requests end or not (a heartbeat: a run waiting out a 429 says so).
//
// Its total is what the run can send: the requests its caps and the
// balances let through (sendable), not every request of the worklist;
// and when a product stops (its cap, its quota) sooner than that, the
// requests it then does not send leave the total. The time left counts
// only what is sent.
type progress struct {
	mu      sync.Mutex
	s       Status
	log     *slog.Logger
	now     func() time.Time
	start   time.Time
	last    time.Time
	perSlot time.Duration        // the rate limit's pace: window / N
	want    map[wire.Product]int // what the caps and balances let through
	all     map[wire.Product]int // the requests of the worklist
	done    map[wire.Product]int // ended, sent
	unsent  map[wire.Product]int // ended, never sent: their product had stopped
	credits int64                // schedule credits spent, possibly charged included
	calls   int64                // tracking calls, likewise
	drawn   bool

	quit chan struct{}
	wg   sync.WaitGroup
}

const redrawEvery = 200 * time.Millisecond

// progress starts the progress of fetching work: on the terminal of
// RunOptions.Progress, else as events in the run's log.
func (r *runner) progress(work []workItem, rate extract.Rate) *progress {
	p := &progress{s: r.opt.Progress, log: r.log, now: r.opt.Now, want: sendable(work, r.res.Plan), all: map[wire.Product]int{},
		done: map[wire.Product]int{}, unsent: map[wire.Product]int{}, quit: make(chan struct{})}
	for _, it := range work {
		p.all[it.product]++
	}
	if rate.N > 0 {
		p.perSlot = rate.Window / time.Duration(rate.N)
	}
	p.start = p.now()
	if p.s != nil {
		return p
	}
	ticks := r.opt.ProgressTicks
	if ticks == nil && r.opt.ProgressEvery > 0 {
		t := time.NewTicker(r.opt.ProgressEvery)
		ticks = t.C
		p.wg.Go(func() { <-p.quit; t.Stop() })
	}
	if ticks == nil {
		return p
	}
	p.wg.Go(func() {
		for {
			select {
			case <-ticks:
				p.event()
			case <-p.quit:
				return
			}
		}
	})
	return p
}

// sendable is how many requests of work, per product, the caps and the
// balances of plan let the run send, in the order they are sent: a
// schedule request is sent while a credit is left, and costs the fewest
// pages its answer is expected to take; a tracking request costs one call.
func sendable(work []workItem, p Plan) map[wire.Product]int {
	credits := limitOf(p.CapSchedule, p.BalanceSchedule)
	n := map[wire.Product]int{}
	used := 0
	for _, it := range work {
		if it.product != wire.ProductSchedule {
			n[it.product]++
			continue
		}
		if credits >= 0 && used >= credits {
			continue
		}
		n[it.product]++
		used += max(it.pages.low, 1)
	}
	n[wire.ProductTracking] = affordable(n[wire.ProductTracking], p.CapTracking, p.BalanceTracking)
	return n
}

// limitOf is the least of a cap and a balance, -1 when there is neither.
func limitOf(userCap int64, balance *int64) int {
	switch {
	case balance == nil && userCap < 0:
		return -1
	case balance == nil:
		return int(userCap)
	case userCap < 0:
		return int(max(*balance, 0))
	}
	return int(min(userCap, max(*balance, 0)))
}

// sentNothing reports whether a request that ended with err never left:
// its product had stopped (cap, quota) before its first page.
func sentNothing(it workItem, err error) bool {
	return (errors.Is(err, extract.ErrBudgetSpent) || errors.Is(err, extract.ErrQuotaExhausted) || errors.Is(err, extract.ErrCoordinatorLost)) &&
		!errors.Is(err, extract.ErrForbidden) && it.landed == 0
}

// ended counts a request of work that ended with err, with the credits
// and calls spent so far, and redraws the status line when due (at once
// for the last).
func (p *progress) ended(it workItem, err error, credits, calls int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.credits, p.calls = credits, calls
	if sentNothing(it, err) {
		p.unsent[it.product]++
	} else {
		p.done[it.product]++
	}
	if p.s == nil {
		return
	}
	now := p.now()
	done, total := p.counts()
	if done < total && now.Sub(p.last) < redrawEvery {
		return
	}
	p.last = now
	p.s.Show(p.line(now))
	p.drawn = true
}

// counts is the requests ended and the total the run can send: what the
// caps and balances let through, less what a product's stop holds back
// beyond, and never less than what was sent.
func (p *progress) counts() (done, total int) {
	for _, prod := range wire.Products {
		done += p.done[prod]
		total += max(p.done[prod], min(p.want[prod], p.all[prod]-p.unsent[prod]))
	}
	return done, total
}

// left is the time the rest takes: at the rate limit's pace, or at the
// pace so far once ten requests have ended, whichever is longer.
func (p *progress) left(now time.Time) time.Duration {
	done, total := p.counts()
	left := time.Duration(total-done) * p.perSlot
	if done >= 10 {
		left = max(left, time.Duration(float64(now.Sub(p.start))/float64(done)*float64(total-done)))
	}
	return left.Round(time.Second)
}

// line renders the status: a bar, counts, and the time left.
func (p *progress) line(now time.Time) string {
	const width = 24
	done, total := p.counts()
	filled := 0
	if total > 0 {
		filled = min(width, done*width/total)
	}
	bar := strings.Repeat("█", filled) + strings.Repeat("·", width-filled)
	return fmt.Sprintf("%s %d/%d requests · %d schedule credits · %d tracking calls · %s left",
		bar, done, total, p.credits, p.calls, p.left(now))
}

// event logs the progress: requests ended of those the run can send,
// credits and calls spent, the pace (requests a minute) and the time left.
func (p *progress) event() {
	p.mu.Lock()
	now := p.now()
	done, total := p.counts()
	elapsed := now.Sub(p.start)
	attrs := []any{"done", done, "total", total, "schedule_credits", p.credits, "tracking_calls", p.calls,
		"elapsed", elapsed.Round(time.Second).String()}
	if elapsed > 0 {
		attrs = append(attrs, "per_minute", math.Round(float64(done)/elapsed.Minutes()*10)/10)
	}
	left := p.left(now)
	attrs = append(attrs, "left", left.String(), "left_seconds", int64(left.Seconds()))
	p.mu.Unlock()
	p.log.Log(context.Background(), slog.LevelInfo, "run: progress", attrs...)
}

// finish stops the events and ends the status line, so that what follows
// starts on a fresh one.
func (p *progress) finish() {
	close(p.quit)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.s.Done()
	}
}
