package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/etalake/etalake/extract/sim"
	"github.com/etalake/etalake/extract/sim/simtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/transform"
)

// A sink loads its batch once the batch holds maxBytes of memory, however
// few rows that is: a load's memory is bounded by what it holds, not only
// by a row count, whose memory differs by a quarter from one mix of
// responses to another.
func TestSinkLoadsABatchThatHoldsItsMemoryBound(t *testing.T) {
	ctx := context.Background()
	wh, err := load.Open(ctx, t.TempDir(), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	world := simtest.World(sim.WorldConfig{})
	at := world.Config().Start.Add(36 * time.Hour)

	s := newSink(wh, 0, func() time.Time { return at }, slog.New(slog.DiscardHandler))
	s.maxBytes = 64 << 10
	loads, derived := 0, 0
	for _, ref := range world.Shipments() {
		sh, err := world.Shipment(ref, at)
		if err != nil {
			continue
		}
		body, err := json.Marshal(sh)
		if err != nil {
			t.Fatal(err)
		}
		id, err := transform.Identify(body)
		if err != nil {
			t.Fatal(err)
		}
		res, err := resourceOfRequest(id.Endpoint, id.Request)
		if err != nil {
			t.Fatal(err)
		}
		r := load.RawResponse{RunID: "sink-test", Product: string(id.Product), Endpoint: string(id.Endpoint), Resource: res.String(),
			Request: id.Request, Status: 200, FetchedAt: at, ObservedAt: at, Attempt: 1, Source: load.SourceImport, Body: body}
		if err := s.land(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := s.derive(ctx, r, load.ResponseID(r)); err != nil {
			t.Fatal(err)
		}
		derived++
		if len(s.derived) == 0 {
			loads++
		}
		if b := s.batch.Bytes(); b >= s.maxBytes {
			t.Fatalf("after response %d the batch holds %d bytes, over its bound of %d, and was not loaded", derived, b, s.maxBytes)
		}
		if derived == 40 {
			break
		}
	}
	if err := s.close(ctx, false); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d loads", loads)
	if loads < 3 || s.batch.Rows() != 0 {
		t.Fatalf("%d loads of %d responses under a 64 KiB bound: want several, each well under the %d rows of a row-bound load", loads, derived, s.maxRows)
	}
	var events int
	if err := wh.DB().QueryRowContext(ctx, `SELECT count(*) FROM container_events`).Scan(&events); err != nil || events == 0 {
		t.Fatalf("container_events after the loads: %d, %v", events, err)
	}
}
