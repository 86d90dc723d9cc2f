package jobs

import (
	"context"
	"sync"

	"github.com/etalake/etalake/load"
)

// landMax bounds how many responses the writer lands in one transaction:
// workers wait for their response to be landed (a charged answer is never
// left unwritten), so landing several at once keeps them busy.
const landMax = 64

// landing is a response to land, and where to say it is.
type landing struct {
	raw load.RawResponse
	ack chan error
}

// writer is the only goroutine that writes the warehouse during a run. It
// lands every response workers hand it — acknowledging each once it is
// committed — and derives it afterwards.
type writer struct {
	sink *sink
	in   chan landing

	mu       sync.Mutex
	byStatus map[int]int64
	err      error // the first landing or loading failure; the run stops
}

func newWriter(s *sink) *writer {
	return &writer{sink: s, in: make(chan landing, landMax), byStatus: map[int]int64{}}
}

// land hands a response to the writer and waits until it is committed. It
// fails when the warehouse cannot take it: the caller must not go on
// spending.
func (w *writer) land(ctx context.Context, raw load.RawResponse) error {
	ack := make(chan error, 1)
	select {
	case w.in <- landing{raw: raw, ack: ack}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-ack:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run lands and derives until in is closed, then flushes the sink. A
// failure is kept (see failure) and every later landing gets it.
func (w *writer) run(ctx context.Context) {
	for first := range w.in {
		batch := []landing{first}
	drain:
		for len(batch) < landMax {
			select {
			case l, ok := <-w.in:
				if !ok {
					break drain
				}
				batch = append(batch, l)
			default:
				break drain
			}
		}
		w.landBatch(ctx, batch)
	}
	if w.failure() == nil {
		if err := w.sink.flush(ctx); err != nil {
			w.fail(err)
		}
	}
}

func (w *writer) landBatch(ctx context.Context, batch []landing) {
	err := w.failure()
	if err == nil {
		raws := make([]load.RawResponse, len(batch))
		for i, l := range batch {
			raws[i] = l.raw
		}
		if err = w.sink.land(ctx, raws...); err != nil {
			w.fail(err)
		}
	}
	w.mu.Lock()
	for _, l := range batch {
		w.byStatus[l.raw.Status]++
	}
	w.mu.Unlock()
	for _, l := range batch {
		l.ack <- err
	}
	if err != nil {
		return
	}
	for _, l := range batch {
		if err := w.sink.derive(ctx, l.raw, load.ResponseID(l.raw)); err != nil {
			w.fail(err)
			return
		}
	}
}

func (w *writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

// failure is the writer's first failure, if any.
func (w *writer) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// statuses is the count of landed responses by HTTP status.
func (w *writer) statuses() map[int]int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[int]int64, len(w.byStatus))
	for k, v := range w.byStatus {
		out[k] = v
	}
	return out
}
