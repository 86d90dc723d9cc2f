package jobs_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/webhook"
)

// pushKey signs the simulator's webhooks in these tests.
var pushKey = bytes.Repeat([]byte{0x3c}, 32)

// receive starts a webhook receiver landing into dir, as `etalake
// webhook serve` does, and a pusher of the bench's simulator sending to
// it; the landing is closed (its journal handed to the next writer) by
// the caller.
func receive(t *testing.T, b *bench, dir string) (*jobs.PushLanding, *webhook.Receiver, *sim.Pusher) {
	t.Helper()
	pl, err := jobs.OpenPushLanding(dir, jobs.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secret, err := webhook.ParseSecret(sim.FormatWebhookSecret(pushKey))
	if err != nil {
		t.Fatal(err)
	}
	cfg := webhook.DefaultConfig()
	cfg.Secret = secret
	rcv, err := webhook.New(cfg, pl.Deliver)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rcv)
	t.Cleanup(srv.Close)
	p, err := sim.NewPusher(b.env.Service, sim.PushConfig{URL: srv.URL, Secrets: [][]byte{pushKey}})
	if err != nil {
		t.Fatal(err)
	}
	return pl, rcv, p
}

// The vendor's pushes land while a job holds the warehouse (the receiver
// takes no lock of it), cost no credit, answer no logical date (the next
// run of the day still asks for the shipment), and the next writer
// derives each of them as an observation of the shipment at the event's
// time.
func TestPushesLandWhileAJobHoldsTheWarehouseAtNoCredit(t *testing.T) {
	ctx := context.Background()
	b := newBench(t, 1000, 1000) // b.wh holds the writer lock throughout
	w := b.env.Service.World()
	refs := visible(t, w, 12)
	b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: refs}}) // asks them: the vendor tracks them now
	charged := b.charged()

	pl, rcv, p := receive(t, b, b.dir)
	b.env.Service.Clock().Advance(14 * 24 * time.Hour)
	attempts := p.Flush(ctx)
	if len(attempts) == 0 {
		t.Fatal("no push in 14 days of 12 shipments in transit")
	}
	for _, a := range attempts {
		if a.Err != nil {
			t.Fatalf("push %s (%s of %s): %d %v", a.Push.ID, a.Push.Type, a.Push.Ref.Number, a.Status, a.Err)
		}
	}
	if err := pl.Close(); err != nil {
		t.Fatal(err)
	}
	if st := rcv.Stats(); st.Landed != int64(len(attempts)) {
		t.Fatalf("receiver stats %+v, want %d landed", st, len(attempts))
	}
	if b.charged() != charged {
		t.Fatalf("%d credits charged while the pushes landed", b.charged()-charged)
	}

	// The job that held the warehouse ends; the next writer lands them.
	if err := b.wh.Close(); err != nil {
		t.Fatal(err)
	}
	var err error
	if b.wh, err = load.Open(ctx, b.dir, load.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if rec := b.wh.Recovered(); rec.PushedLanded != len(attempts) || rec.Journals != 0 {
		t.Fatalf("recovered %+v, want the %d pushes landed", rec, len(attempts))
	}
	today := b.env.Service.Clock().Now()
	answered, err := b.wh.Answered(ctx, today)
	if err != nil {
		t.Fatal(err)
	}
	if len(answered) != 0 {
		t.Fatalf("the pushes count as answers for %s: %v", today.Format(time.DateOnly), answered)
	}
	res := b.run(t, jobs.RunOptions{Selection: jobs.Selection{Shipments: refs}})
	if _, due := res.Plan.Spend(); due == 0 || b.charged()-charged != due {
		t.Fatalf("the next run planned %d shipments and was charged %d: a push is no fetch of the day, the run asks what is due", due, b.charged()-charged)
	}
	for _, a := range attempts {
		var n int
		if err := b.wh.DB().QueryRowContext(ctx, `SELECT count(*) FROM raw_responses r JOIN eta_observations o ON o.observed_at = r.observed_at
			WHERE r.source = 'push' AND r.observed_at = ? AND r.resource = ? AND o.shipment_number = ?`,
			a.Push.At, "shipment:"+string(a.Push.Ref.Type)+":"+a.Push.Ref.Number, a.Push.Ref.Number).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("push %s of %s at %s: no observation derived at that time", a.Push.ID, a.Push.Ref.Number, a.Push.At)
		}
	}
	var pushes, runs int
	if err := b.wh.DB().QueryRowContext(ctx, `SELECT count(*), count(DISTINCT run_id) FROM raw_responses WHERE source = 'push'`).Scan(&pushes, &runs); err != nil {
		t.Fatal(err)
	}
	if pushes != len(attempts) || runs != 1 {
		t.Fatalf("%d pushed responses of %d receivers, want %d of 1", pushes, runs, len(attempts))
	}
}
