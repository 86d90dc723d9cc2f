package jobs

import (
	"context"
	"sync"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

// landMax bounds how many responses the writer lands in one transaction.
const landMax = 64

// writer is the only goroutine that writes the warehouse during a run.
// Workers hand it every response they receive after appending it to the
// job's journal (synced to disk), so that a response is safe the moment it
// arrives, whatever the writer is doing: loading a batch can take seconds.
// The writer lands the responses in raw_responses, then derives them.
type writer struct {
	sink    *sink
	journal *load.Journal
	in      chan *response.Landed

	mu       sync.Mutex
	byStatus map[int]int64
	err      error // the first journal, landing or loading failure; the run stops
}

func newWriter(s *sink, j *load.Journal) *writer {
	return &writer{sink: s, journal: j, in: make(chan *response.Landed, landMax), byStatus: map[int]int64{}}
}

// land appends a response to the journal — when it returns nil, the
// response survives a crash — and hands it to the writer. It fails when
// the job must stop spending: the journal or the warehouse failed. A body
// the client kept in a file (larger than --max-body) goes into the
// journal's keeping, and from there to the body store, never into memory.
func (w *writer) land(raw *response.Landed) error {
	// Journaled even after a failure of the writer: it was received (and
	// maybe paid for), and the next job lands what the journal holds.
	if err := w.journal.Append(raw); err != nil {
		w.fail(err)
		return err
	}
	// No select on a context: the writer drains in until every worker is
	// done and closes it.
	w.in <- raw
	return w.failure()
}

// run lands and derives until in is closed, then flushes the sink. A
// failure is kept (see failure), and the responses after it stay in the
// journal only, for the next job to land.
func (w *writer) run(ctx context.Context) {
	for first := range w.in {
		batch := []*response.Landed{first}
	drain:
		for len(batch) < landMax {
			select {
			case r, ok := <-w.in:
				if !ok {
					break drain
				}
				batch = append(batch, r)
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

func (w *writer) landBatch(ctx context.Context, batch []*response.Landed) {
	w.mu.Lock()
	for _, r := range batch {
		w.byStatus[r.Status]++
	}
	w.mu.Unlock()
	if w.failure() != nil {
		return
	}
	if err := w.sink.land(ctx, batch...); err != nil {
		w.fail(err)
		return
	}
	for _, r := range batch {
		if err := w.sink.derive(ctx, r); err != nil {
			w.fail(err)
			return
		}
	}
}

// close waits for the writer to finish (done is closed when run returns),
// then removes the journal when every response in it was landed, or keeps
// it for the next job to land.
func (w *writer) close(done func()) error {
	close(w.in)
	done()
	if w.failure() != nil {
		return w.journal.Close()
	}
	return w.journal.Remove()
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

// statuses is the count of received responses by HTTP status.
func (w *writer) statuses() map[int]int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[int]int64, len(w.byStatus))
	for k, v := range w.byStatus {
		out[k] = v
	}
	return out
}
