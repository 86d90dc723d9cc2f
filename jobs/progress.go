package jobs

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Status is a terminal's status line (termline.Line): Show draws a status
// in place of the last, fitted to the terminal; Done leaves it and ends
// its line.
type Status interface {
	Show(status string)
	Done()
}

// progress draws one status line on a terminal: requests done of planned,
// credits spent, time left. It redraws at most every redrawEvery, and
// draws nothing without a terminal (logs say it instead).
type progress struct {
	mu      sync.Mutex
	s       Status
	now     func() time.Time
	start   time.Time
	last    time.Time
	total   int
	perSlot time.Duration // the rate limit's pace: window / N
	drawn   bool
}

const redrawEvery = 200 * time.Millisecond

func newProgress(s Status, total int, perSlot time.Duration, now func() time.Time) *progress {
	t := now()
	return &progress{s: s, now: now, start: t, total: total, perSlot: perSlot}
}

// update redraws the line if it is due (or force is set).
func (p *progress) update(done int, credits, calls int64, force bool) {
	if p == nil || p.s == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !force && now.Sub(p.last) < redrawEvery {
		return
	}
	p.last = now
	p.s.Show(p.line(done, credits, calls, now))
	p.drawn = true
}

// line renders the status: a bar, counts, and the time left, estimated
// from the pace so far once there is one, else from the rate limit.
func (p *progress) line(done int, credits, calls int64, now time.Time) string {
	const width = 24
	filled := 0
	if p.total > 0 {
		filled = min(width, done*width/p.total)
	}
	bar := strings.Repeat("█", filled) + strings.Repeat("·", width-filled)
	left := time.Duration(p.total-done) * p.perSlot
	if done >= 10 {
		elapsed := now.Sub(p.start)
		left = max(left, time.Duration(float64(elapsed)/float64(done)*float64(p.total-done)))
	}
	return fmt.Sprintf("%s %d/%d requests · %d schedule credits · %d tracking calls · %s left",
		bar, done, p.total, credits, calls, left.Round(time.Second))
}

// finish ends the line so that what follows starts on a fresh one.
func (p *progress) finish() {
	if p == nil || p.s == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.s.Done()
	}
}
