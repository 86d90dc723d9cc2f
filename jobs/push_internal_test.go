package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/webhook"
	"github.com/etalake/etalake/wire"
)

// A pushed body derives, row for row, what a fetch of the same shipment
// at the same moment derives: the shipment, its ETA observations, its
// containers, events, places and vessels. Only the response id differs.
func TestAPushDerivesTheRowsOfAFetchOfTheSameAnswer(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	world := simtest.World(sim.WorldConfig{})
	svc, err := sim.New(sim.Config{World: world})
	if err != nil {
		t.Fatal(err)
	}
	start := world.Config().Start
	refs := visibleAt(world, start, 30)
	svc.Subscribe(refs...)
	svc.Clock().Advance(20 * 24 * time.Hour)
	pushes := svc.DuePushes()
	kinds := map[string]int{}
	for _, p := range pushes {
		kinds[p.Type]++
	}
	if kinds[sim.PushDischarged] == 0 || kinds[sim.PushPODDateChanged] == 0 {
		t.Fatalf("pushes %v: want both kinds", kinds)
	}

	log := slog.New(slog.DiscardHandler)
	fetched, err := load.Open(ctx, loadtest.Fresh(t, nil), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer fetched.Close()
	pushedWh, err := load.Open(ctx, loadtest.Fresh(t, nil), load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer pushedWh.Close()
	sf := newSink(fetched, 0, time.Now, log)
	sp := newSink(pushedWh, 0, time.Now, log)
	for _, p := range pushes {
		r := landed(t, sf, world, p.Ref, p.At, nil)
		if err := sf.derive(ctx, r); err != nil {
			t.Fatal(err)
		}
		d := webhook.Delivery{Message: webhook.Message{ID: p.ID, Timestamp: time.Now().Truncate(time.Second)}, Received: time.Now(), Body: p.Body}
		pr, err := PushedResponse(d, "webhook-test")
		if err != nil {
			t.Fatal(err)
		}
		if pr.Resource != r.Resource || pr.Request != r.Request || !pr.ObservedAt.Equal(r.ObservedAt) || pr.Source != load.SourcePush || pr.LogicalDate != nil {
			t.Fatalf("push %s lands as %s %s at %s (%s), a fetch as %s %s at %s", p.ID, pr.Resource, pr.Request, pr.ObservedAt, pr.Source, r.Resource, r.Request, r.ObservedAt)
		}
		if err := sp.land(ctx, pr); err != nil {
			t.Fatal(err)
		}
		if err := sp.derive(ctx, pr); err != nil {
			t.Fatal(err)
		}
	}
	if err := errorsOf(sf.flush(ctx), sp.flush(ctx)); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []*schema.Table{schema.Shipments, schema.ETAObservations, schema.Containers, schema.ContainerEvents,
		schema.EventObservations, schema.Locations, schema.Facilities, schema.Vessels, schema.DeadLetters} {
		a, b := tableRows(t, fetched, tbl), tableRows(t, pushedWh, tbl)
		if tbl != schema.DeadLetters && len(a) == 0 {
			t.Fatalf("%s: no rows from %d fetches", tbl.Name, len(pushes))
		}
		if !slices.Equal(a, b) {
			t.Errorf("%s: %d rows from the fetches, %d from the pushes, not the same", tbl.Name, len(a), len(b))
		}
	}
	t.Logf("%d pushes (%v) derived as the fetches of the same answers", len(pushes), kinds)
}

func visibleAt(w *sim.World, at time.Time, n int) []wire.ShipmentRef {
	var out []wire.ShipmentRef
	for _, ref := range w.Shipments() {
		if s, err := w.Shipment(ref, at); err == nil && s.Route != nil && s.Route.Pod != nil && (s.Route.Pod.Actual == nil || !*s.Route.Pod.Actual) {
			out = append(out, ref)
		}
		if len(out) == n {
			break
		}
	}
	return out
}

func errorsOf(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// tableRows reads a table's rows as JSON, sorted, without the columns
// that name the response a row came from.
func tableRows(t *testing.T, wh *load.Warehouse, tbl *schema.Table) []string {
	t.Helper()
	var cols []string
	for _, c := range tbl.ColumnNames() {
		if !strings.Contains(c, "response") && !strings.HasSuffix(c, "_kept") {
			cols = append(cols, schema.Ident(c))
		}
	}
	rows, err := wh.DB().Query(fmt.Sprintf("SELECT CAST(to_json(r) AS VARCHAR) AS j FROM (SELECT %s FROM %s) r ORDER BY j", strings.Join(cols, ", "), schema.Ident(tbl.Name)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var j string
		if err := rows.Scan(&j); err != nil {
			t.Fatal(err)
		}
		out = append(out, j)
	}
	return out
}
