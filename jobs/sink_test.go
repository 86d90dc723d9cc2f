package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// A sink loads its batch once the batch holds maxBytes of memory, however
// few rows that is: a load's memory is bounded by what it holds, not only
// by a row count, whose memory differs by a quarter from one mix of
// responses to another.
func TestSinkLoadsABatchThatHoldsItsMemoryBound(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	wh, err := load.Open(ctx, loadtest.Fresh(t, nil), load.DefaultOptions())
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
		if _, err := world.Shipment(ref, at); err != nil {
			continue
		}
		r := landed(t, s, world, ref, at, nil)
		if err := s.derive(ctx, r); err != nil {
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
	if err := s.flush(ctx); err != nil {
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

// landed lands the tracking answer of ref at at, as a fetched response of
// logical date at, after change edits it, and returns it, its id set.
func landed(t *testing.T, s *sink, world *sim.World, ref wire.ShipmentRef, at time.Time, change func(*wire.Shipment)) *response.Landed {
	t.Helper()
	sh, err := world.Shipment(ref, at)
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(sh)
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
	r := &response.Landed{RunID: "sink-test", Resource: res.String(), ObservedAt: at, LogicalDate: &at, Source: load.SourceFetch,
		Received: response.Received{Product: id.Product, Endpoint: id.Endpoint, Request: id.Request, Status: 200, FetchedAt: at, Attempt: 1, Body: body}}
	if err := s.land(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if r.ID != load.ResponseID(r) {
		t.Fatalf("landed as %q, its content's id is %q", r.ID, load.ResponseID(r))
	}
	return r
}

// A response whose rows the warehouse refuses (here a 56 MiB place name,
// under --max-body, under a 48 MiB memory limit: DuckDB runs out of memory
// loading it) costs
// only itself: the other responses of its load are loaded, it is kept in
// the raw landing and dead-lettered with the warehouse's reason, recorded
// as derived so that no later job derives it again, and a replay with
// room for it derives it. (The limit leaves the other loads room: they
// passed from 28 MiB up, from 34 MiB once dimensions kept their
// attributes apart (issue 20), and at 36 MiB failed now and then on a
// busy machine; the poison is well over the limit.)
func TestSinkQuarantinesTheResponseTheWarehouseRefuses(t *testing.T) {
	slowtest.Require(t, "large input: a 56 MiB answer through the race detector, about 20 s")
	ctx := context.Background()
	dir := t.TempDir()
	wh, err := load.Open(ctx, dir, load.Options{MemoryLimit: 48 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	world := simtest.World(sim.WorldConfig{})
	at := world.Config().Start.Add(36 * time.Hour)
	var refs []wire.ShipmentRef
	for _, ref := range world.Shipments() {
		if _, err := world.Shipment(ref, at); err == nil {
			refs = append(refs, ref)
		}
		if len(refs) == 5 {
			break
		}
	}
	s := newSink(wh, 0, func() time.Time { return at }, slog.New(slog.DiscardHandler))
	var poison string
	for i, ref := range refs {
		var change func(*wire.Shipment)
		if i == 2 {
			change = func(sh *wire.Shipment) { sh.Route.Pod.Location.Name = strings.Repeat("x", 56<<20) }
		}
		r := landed(t, s, world, ref, at, change)
		if i == 2 {
			poison = r.ID
		}
		if err := s.derive(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.flush(ctx); err != nil {
		t.Fatalf("the load with a response the warehouse refuses: %v; want it quarantined and the rest loaded", err)
	}
	if s.quarantined != 1 || s.dead < 1 {
		t.Fatalf("counts %+v; want one response quarantined", s.counts)
	}
	if n := queryCount(t, wh, "SELECT count(DISTINCT shipment_number) FROM shipments"); n != 4 {
		t.Errorf("%d shipments loaded; want the 4 the warehouse took", n)
	}
	var reason string
	if err := wh.DB().QueryRow("SELECT reason FROM dead_letters WHERE response_id = ?", poison).Scan(&reason); err != nil ||
		!strings.Contains(reason, "the warehouse refused its rows") || !strings.Contains(reason, "Out of Memory") || strings.Contains(reason, "\n") {
		t.Errorf("dead letter of the refused response: %q, %v; want the warehouse's reason, on one line", reason, err)
	}
	if n := queryCount(t, wh, "SELECT count(*) FROM raw_responses WHERE response_id = '"+poison+"' AND body_bytes > 56000000"); n != 1 {
		t.Errorf("the refused response is not kept whole in the raw landing")
	}
	// A later job has nothing left to derive.
	later := newSink(wh, 0, func() time.Time { return at }, slog.New(slog.DiscardHandler))
	if c, err := later.catchUp(ctx); err != nil || c.pushed+c.left != 0 {
		t.Fatalf("a later job's catch-up derived %+v responses (%v); want none", c, err)
	}
	wh.Close()

	// With room for it, a replay derives it.
	wh, err = load.Open(ctx, dir, load.Options{MemoryLimit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Replay(ctx, wh, ReplayOptions{})
	if err != nil || st.Status != load.StatusOK || st.Quarantined != 0 {
		t.Fatalf("replay with 1 GiB: %+v, %v; want it ok, nothing quarantined", st, err)
	}
	if n := queryCount(t, wh, "SELECT count(DISTINCT shipment_number) FROM shipments"); n != 5 {
		t.Errorf("%d shipments after the replay; want 5", n)
	}
}

// queryCount runs a query of one count on the warehouse.
func queryCount(t *testing.T, wh *load.Warehouse, q string) int {
	t.Helper()
	var n int
	if err := wh.DB().QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
