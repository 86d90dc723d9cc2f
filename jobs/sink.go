package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// DefaultMaxBody is the largest body a job decodes (--max-body): a larger
// one is landed — it was paid for — and dead-lettered without being
// decoded. The service's answers are kilobytes to a few megabytes; a body
// a thousand times that is a fault, and decoding it would cost many times
// its size in memory.
const DefaultMaxBody = 64 << 20

// Flush thresholds of a sink: rows are loaded when the batch holds this
// many rows, or this much memory (transform.Batch.Bytes), or when it is
// this old, whichever comes first. The memory bound keeps a load's memory
// (the batch, its Arrow records, DuckDB's merge of them) the same whatever
// mix of responses it is made of; the age bound lets a slow run's rows
// reach the warehouse while it runs.
const (
	flushRows  = 200_000
	flushBytes = 40 << 20
	flushEvery = 30 * time.Second
)

// sink is the single writer of a job: it lands raw responses, derives them
// through the transform, and loads the rows in batches, each load recording
// the responses it derived. A response that cannot be derived — larger
// than maxBody, or whose rows the warehouse refuses — is quarantined: kept
// in the raw landing, dead-lettered with the reason, and recorded as
// derived so that no later job derives it again (a replay does). Only one
// goroutine uses it.
type sink struct {
	wh        *load.Warehouse
	batch     *transform.Batch
	derived   []string // response ids whose rows are in the batch
	pending   counts   // what the batch holds, counted when it loads
	now       func() time.Time
	log       *slog.Logger
	lastFlush time.Time
	maxRows   int
	maxBytes  int
	maxBody   int64
	loaded    map[string]int64 // rows loaded (inserted or changed) per table
	counts                     // what the loads held
}

// counts are the dead letters a sink loaded, and of them the responses
// quarantined: dead-lettered whole, undecoded or refused by the warehouse.
type counts struct {
	dead, quarantined int
}

func (c *counts) add(o counts) {
	c.dead += o.dead
	c.quarantined += o.quarantined
}

// maxBodyOr is n, or DefaultMaxBody for 0 (or less).
func maxBodyOr(n int64) int64 {
	if n <= 0 {
		return DefaultMaxBody
	}
	return n
}

func newSink(wh *load.Warehouse, maxBody int64, now func() time.Time, log *slog.Logger) *sink {
	maxBody = maxBodyOr(maxBody)
	return &sink{wh: wh, batch: transform.NewBatch(nil), now: now, log: log, lastFlush: now(),
		maxRows: flushRows, maxBytes: flushBytes, maxBody: maxBody, loaded: map[string]int64{}}
}

// land stores responses before anything parses them, and sets their ID.
func (s *sink) land(ctx context.Context, rs ...*response.Landed) error {
	_, err := s.wh.Land(ctx, rs...)
	return err
}

// derive adds a landed response's rows to the batch, and loads the batch
// when it is due.
func (s *sink) derive(ctx context.Context, r *response.Landed) error {
	r, err := s.hold(r)
	if err != nil {
		return err
	}
	s.pending.add(s.add(s.batch, r))
	s.derived = append(s.derived, r.ID)
	if s.batch.Rows() >= s.maxRows || s.batch.Bytes() >= s.maxBytes || s.now().Sub(s.lastFlush) >= flushEvery {
		return s.flush(ctx)
	}
	return nil
}

// hold is r with the body it kept in a file read into memory, when it is
// to be derived: a 2xx whole and no larger than maxBody (a replay with a
// larger --max-body than the job that landed it). Any other stays where
// it is: a body larger than maxBody is never held whole.
func (s *sink) hold(r *response.Landed) (*response.Landed, error) {
	if r.File == nil || r.Broken != "" || !r.OK() || r.File.Size > s.maxBody {
		return r, nil
	}
	body, err := s.wh.ReadBody(r)
	if err != nil {
		return r, err
	}
	held := *r
	held.Body, held.File = body, nil
	return &held, nil
}

// add derives one response into b, or quarantines it there when its body
// is larger than maxBody, and says what it added. A body still in its file
// (see hold) is not read.
func (s *sink) add(b *transform.Batch, r *response.Landed) counts {
	if r.Broken != "" {
		res := b.Quarantine(*r, "answer broken in transfer, not derived: "+r.Broken+"; not an answer: the next job asks for it again")
		return counts{dead: res.DeadLetters, quarantined: 1}
	}
	if n := r.BodySize(); n > s.maxBody && r.OK() {
		s.log.Warn("quarantined: body too large to decode", "response_id", r.ID, "resource", r.Resource, "bytes", n, "max_body", s.maxBody)
		res := b.Quarantine(*r, fmt.Sprintf("body of %d bytes is larger than %s (--max-body): landed, not decoded; replay with a larger --max-body to derive it",
			n, bytesize.Format(s.maxBody)))
		return counts{dead: res.DeadLetters, quarantined: 1}
	}
	c := counts{dead: b.Add(*r).DeadLetters}
	if r.Endpoint == wire.EndpointUnidentified {
		c.quarantined = 1 // an imported body that is no known answer
	}
	return c
}

// flush loads what the batch holds, in one transaction with the record of
// the responses it came from. When the warehouse refuses the rows for what
// they hold, the responses are loaded again in halves, down to the one
// that is refused, which is quarantined (isolate).
func (s *sink) flush(ctx context.Context) error {
	s.lastFlush = s.now()
	if len(s.derived) == 0 {
		return nil
	}
	err := s.load(ctx, s.batch, s.derived)
	if errors.Is(err, load.ErrRefused) {
		s.log.Warn("the warehouse refused a load: loading its responses apart", "responses", len(s.derived), "error", err)
		err = s.isolate(ctx, s.derived, err)
	} else if err == nil {
		s.counts.add(s.pending)
	}
	if err != nil {
		return fmt.Errorf("loading %d responses: %w", len(s.derived), err)
	}
	s.derived, s.pending = s.derived[:0], counts{}
	return nil
}

// load loads the records of b, recording ids as derived, and counts the
// rows loaded. b is empty afterwards.
func (s *sink) load(ctx context.Context, b *transform.Batch, ids []string) error {
	recs := b.Records()
	stats, err := s.wh.Load(ctx, recs, ids...)
	for _, r := range recs {
		r.Rec.Release()
	}
	if err != nil {
		return err
	}
	for t, n := range stats.Rows {
		s.loaded[t] += n
	}
	return nil
}

// isolate loads the responses ids, whose rows together were refused with
// cause, apart: each half again from the raw landing, halving a half that
// is refused in turn, until the response refused alone is quarantined.
// Every other response loads; one bad response among n costs about 2·log₂ n
// loads.
func (s *sink) isolate(ctx context.Context, ids []string, cause error) error {
	if len(ids) == 1 {
		return s.quarantineRefused(ctx, ids[0], cause)
	}
	half := len(ids) / 2
	for _, part := range [][]string{ids[:half], ids[half:]} {
		b := transform.NewBatch(nil)
		var got counts
		err := s.wh.Raw(ctx, load.RawFilter{IDs: part}, func(r *response.Landed) error {
			r, err := s.hold(r)
			if err != nil {
				return err
			}
			got.add(s.add(b, r))
			return nil
		})
		if err == nil {
			err = s.load(ctx, b, part)
		}
		b.Release()
		switch {
		case err == nil:
			s.counts.add(got)
		case errors.Is(err, load.ErrRefused):
			if err := s.isolate(ctx, part, err); err != nil {
				return err
			}
		default:
			return err
		}
	}
	return nil
}

// quarantineRefused dead-letters the response id, whose rows the warehouse
// refused with cause, and records it as derived.
func (s *sink) quarantineRefused(ctx context.Context, id string, cause error) error {
	b := transform.NewBatch(nil)
	defer b.Release()
	dead := 0
	err := s.wh.Raw(ctx, load.RawFilter{IDs: []string{id}}, func(r *response.Landed) error {
		s.log.Warn("quarantined: the warehouse refused its rows", "response_id", id, "resource", r.Resource, "error", cause)
		dead += b.Quarantine(*r, fmt.Sprintf("the warehouse refused its rows: %s; replay derives it again", firstLine(cause))).DeadLetters
		return nil
	})
	if err == nil {
		err = s.load(ctx, b, []string{id})
	}
	if err != nil {
		return fmt.Errorf("quarantining response %s: %w", id, err)
	}
	s.counts.add(counts{dead: dead, quarantined: 1})
	return nil
}

// firstLine is the first line of err's text: DuckDB follows its message
// with lines of advice that a dead letter's reason need not repeat.
func firstLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimSpace(line)
}

// catchUpPage is how many responses a catch-up reads at a time.
const catchUpPage = 512

// caughtUp counts what a catch-up derived: the pushed updates a webhook
// receiver landed for the next writer (every writer derives those: the
// normal path), and the rest, left landed but not loaded by a job that
// died.
type caughtUp struct{ pushed, left int }

// catchUp derives the responses landed but not loaded: the vendor's
// pushes, and what a crash left. It costs two counts when there are none
// (Underived), which is every job but the one after a crash or a push;
// when there are some it lists their ids first, without their bodies,
// then reads them a page at a time, so that its memory is a page's,
// however large the raw landing.
func (s *sink) catchUp(ctx context.Context) (caughtUp, error) {
	var c caughtUp
	left, err := s.wh.Underived(ctx)
	if err != nil || left == 0 {
		return c, err
	}
	ids, err := s.wh.RawIDs(ctx, load.RawFilter{Underived: true})
	if err != nil {
		return c, err
	}
	for len(ids) > 0 {
		page := ids[:min(catchUpPage, len(ids))]
		ids = ids[len(page):]
		err := s.wh.Raw(ctx, load.RawFilter{IDs: page}, func(r *response.Landed) error {
			if r.Source == response.SourcePush {
				c.pushed++
			} else {
				c.left++
			}
			return s.derive(ctx, r)
		})
		if err != nil {
			return c, err
		}
	}
	return c, s.flush(ctx)
}

// log says what a catch-up of the job named job derived: the pushes at
// info, for they wait for a writer by design; what a job left, which is
// a crash's doing, as a warning.
func (c caughtUp) log(log *slog.Logger, job string) {
	if c.pushed > 0 {
		log.Info(job+": derived the updates the vendor pushed (etalake webhook serve)", "responses", c.pushed)
	}
	if c.left > 0 {
		log.Warn(job+": derived responses landed earlier but never loaded", "responses", c.left)
	}
}
