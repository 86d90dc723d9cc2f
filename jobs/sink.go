package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// Flush thresholds of a sink: rows are loaded when the batch holds this
// many rows, or this much memory (transform.Batch.Bytes), or when it is
// this old, whichever comes first. Large imports meet the memory bound
// first: a load's memory (the batch, its Arrow records, DuckDB's merge of
// them) follows what the batch holds, not how many rows, and the memory
// bound keeps it near the same whatever mix of responses a load is made
// of (BENCHMARKS.md, "A load's memory").
const (
	flushRows  = 200_000
	flushBytes = 40 << 20
	flushEvery = 30 * time.Second
)

// sink is the single writer of a job: it lands raw responses, derives them
// through the transform, and loads the rows in batches, each load recording
// the responses it derived. Only one goroutine uses it.
type sink struct {
	wh        *load.Warehouse
	batch     *transform.Batch
	derived   []string // response ids whose rows are in the batch
	now       func() time.Time
	lastFlush time.Time
	maxRows   int
	maxBytes  int
	loaded    map[string]int64 // rows loaded (inserted or changed) per table
	dead      int              // dead letters produced
}

func newSink(wh *load.Warehouse, mem memory.Allocator, now func() time.Time) *sink {
	return &sink{wh: wh, batch: transform.NewBatch(mem), now: now, lastFlush: now(), maxRows: flushRows, maxBytes: flushBytes, loaded: map[string]int64{}}
}

// land stores responses before anything parses them.
func (s *sink) land(ctx context.Context, rs ...load.RawResponse) error {
	_, err := s.wh.Land(ctx, rs...)
	return err
}

// derive adds a landed response's rows to the batch, and loads the batch
// when it is due.
func (s *sink) derive(ctx context.Context, r load.RawResponse, id string) error {
	res := s.batch.Add(transform.Response{
		ResponseID: id,
		Product:    wire.Product(r.Product),
		Endpoint:   wire.Endpoint(r.Endpoint),
		Request:    r.Request,
		Status:     r.Status,
		ObservedAt: r.ObservedAt,
		Body:       r.Body,
	})
	s.dead += res.DeadLetters
	s.derived = append(s.derived, id)
	if s.batch.Rows() >= s.maxRows || s.batch.Bytes() >= s.maxBytes || s.now().Sub(s.lastFlush) >= flushEvery {
		return s.flush(ctx)
	}
	return nil
}

// flush loads what the batch holds, in one transaction with the record of
// the responses it came from.
func (s *sink) flush(ctx context.Context) error {
	s.lastFlush = s.now()
	if len(s.derived) == 0 {
		return nil
	}
	recs := s.batch.Records()
	batches := make([]load.Batch, len(recs))
	for i, r := range recs {
		batches[i] = load.Batch{Table: r.Table, Rec: r.Rec}
	}
	stats, err := s.wh.Load(ctx, batches, s.derived...)
	for _, r := range recs {
		r.Rec.Release()
	}
	if err != nil {
		return fmt.Errorf("loading %d responses: %w", len(s.derived), err)
	}
	for t, n := range stats.Rows {
		s.loaded[t] += n
	}
	s.derived = s.derived[:0]
	return nil
}

// close loads what is left and, with mirror, brings the Parquet mirror up
// to date and refreshes the tables the analytic views read (without, a
// later job does both: what the loads changed waits in the pending list).
func (s *sink) close(ctx context.Context, mirror bool) error {
	defer s.batch.Release()
	if err := s.flush(ctx); err != nil || !mirror {
		return err
	}
	return writeMirror(ctx, s.wh)
}

// writeMirror writes the pending partitions of the Parquet mirror and
// refreshes the analytic tables: the end of every job that loads.
func writeMirror(ctx context.Context, wh *load.Warehouse) error {
	if _, err := wh.SyncParquet(ctx); err != nil {
		return fmt.Errorf("writing the Parquet mirror: %w", err)
	}
	return wh.RefreshAnalytics(ctx)
}

// catchUp derives the responses a crash left landed but not loaded.
func (s *sink) catchUp(ctx context.Context) (int, error) {
	n := 0
	err := s.wh.Raw(ctx, load.RawFilter{Underived: true}, func(r load.RawResponse, id string) error {
		n++
		return s.derive(ctx, r, id)
	})
	if err != nil {
		return n, err
	}
	return n, s.flush(ctx)
}
