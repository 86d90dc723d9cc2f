package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/load/loadtest"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/webhook"
	"github.com/etalake/etalake/wire"
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
	slowtest.Long(t)
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

// sinaySample is a real body of the vendor's (containerDetails, no
// timestamp of its own): what a push of it is observed at is the
// receiver's to say.
func sinaySample(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "transform", "shipment_vendor_shapes", "body.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signedPost posts body to r as the vendor does: id, the attempt's
// timestamp ts, signed with pushKey.
func signedPost(r http.Handler, id string, ts time.Time, body []byte) int {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set("webhook-signature", sim.SignWebhook([][]byte{pushKey}, id, ts.Unix(), body))
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w.Code
}

// The Standard Webhooks specification: "webhook-id: the unique message
// identifier for the webhook message. This identifier is unique across
// all messages, but will be the same when the same webhook is being
// resent (e.g. due to a previous failure)." and "The webhook-id header
// ... can be used as an idempotency key". Svix retries a message for
// about 28 hours (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), each attempt
// with a timestamp and a signature of its own. A body without a
// timestamp of its own, sent 3 times with one webhook-id — then the
// receiver restarted, then past the tolerance, then a day later — lands
// one row in the warehouse, observed at its first attempt.
func TestAPushRetriedByTheVendorLandsOnce(t *testing.T) {
	ctx := context.Background()
	dir := loadtest.Fresh(t, nil)
	body := sinaySample(t)
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	secret, err := webhook.ParseSecret(sim.FormatWebhookSecret(pushKey))
	if err != nil {
		t.Fatal(err)
	}
	start := func() (*jobs.PushLanding, *webhook.Receiver) {
		pl, err := jobs.OpenPushLanding(dir, jobs.PushOptions{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		cfg := webhook.DefaultConfig()
		cfg.Secret, cfg.Now, cfg.Ledger = secret, now, pl.Ledger()
		rcv, err := webhook.New(cfg, pl.Deliver)
		if err != nil {
			t.Fatal(err)
		}
		return pl, rcv
	}
	first := clock
	pl, rcv := start()
	if code := signedPost(rcv, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", clock, body); code != http.StatusNoContent {
		t.Fatalf("first attempt: %d, want 204", code)
	}
	if err := pl.Close(); err != nil { // the receiver restarted
		t.Fatal(err)
	}
	clock = clock.Add(5 * time.Second)
	pl, rcv = start()
	if code := signedPost(rcv, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", clock, body); code != http.StatusOK {
		t.Fatalf("the retry after a restart: %d, want 200 (landed before)", code)
	}
	for _, later := range []time.Duration{2 * time.Hour, 26 * time.Hour} {
		clock = first.Add(later) // past the 5-minute tolerance: a fresh timestamp, a fresh signature
		if code := signedPost(rcv, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", clock, body); code != http.StatusOK {
			t.Fatalf("the retry %s later: %d, want 200 (landed before)", later, code)
		}
	}
	if err := pl.Close(); err != nil {
		t.Fatal(err)
	}
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	var n int
	var observed time.Time
	if err := wh.DB().QueryRowContext(ctx, `SELECT count(*), min(observed_at) FROM raw_responses WHERE source = 'push'`).Scan(&n, &observed); err != nil {
		t.Fatal(err)
	}
	if n != 1 || !observed.Equal(first) {
		t.Fatalf("%d pushed rows observed at %s, want 1 observed at the first attempt %s", n, observed, first)
	}
}

// A retry of a message whose landing was never known done — the
// receiver died between syncing its id and landing its body, or the disk
// refused the body — is landed, observed at the message's first attempt:
// the same response as the first landing would have been, so a body on
// disk twice is one row.
func TestARetryOfAPushNeverKnownLandedIsTheSameResponse(t *testing.T) {
	ctx := context.Background()
	dir := loadtest.Fresh(t, nil)
	body := sinaySample(t)
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	secret, err := webhook.ParseSecret(sim.FormatWebhookSecret(pushKey))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := jobs.OpenPushLanding(dir, jobs.PushOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	// The first attempt lands its body, but its answer and the record
	// that it landed are lost with the receiver: what a retry finds.
	var deliveries []webhook.Delivery
	cfg := webhook.DefaultConfig()
	cfg.Secret, cfg.Now, cfg.Ledger = secret, now, pl.Ledger()
	refuse := true
	rcv, err := webhook.New(cfg, func(ctx context.Context, d webhook.Delivery) error {
		deliveries = append(deliveries, d)
		if err := pl.Deliver(ctx, d); err != nil {
			return err
		}
		if refuse {
			return errors.New("the receiver died before answering")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	first := clock
	if code := signedPost(rcv, "msg_lost", clock, body); code != http.StatusServiceUnavailable {
		t.Fatalf("first attempt: %d, want 503", code)
	}
	refuse = false
	clock = clock.Add(30 * time.Minute)
	if code := signedPost(rcv, "msg_lost", clock, body); code != http.StatusNoContent {
		t.Fatalf("its retry: %d, want 204", code)
	}
	if len(deliveries) != 2 || !deliveries[1].First.Equal(first) {
		t.Fatalf("%d deliveries, the last's First %s: want 2, the retry's First the first attempt's %s", len(deliveries), deliveries[len(deliveries)-1].First, first)
	}
	if err := pl.Close(); err != nil {
		t.Fatal(err)
	}
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	if rec := wh.Recovered(); rec.PushedBodies != 2 || rec.PushedLanded != 1 {
		t.Fatalf("recovered %+v, want 2 bodies landed as 1 row", rec)
	}
}

// Every writer derives the pushes the receiver landed, which is the
// normal path: it says so at info, and warns of nothing. What a job
// that died left landed but not loaded is another matter, still warned
// of.
func TestAWriterDerivingPushesWarnsOnlyOfWhatAJobLeft(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := loadtest.Fresh(t, nil)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	pl, err := jobs.OpenPushLanding(dir, jobs.PushOptions{Now: func() time.Time { return at }})
	if err != nil {
		t.Fatal(err)
	}
	d := webhook.Delivery{Message: webhook.Message{ID: "msg_1", Timestamp: at}, Received: at, Body: sinaySample(t)}
	if err := pl.Deliver(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := pl.Close(); err != nil {
		t.Fatal(err)
	}
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	track := func() string {
		var logs bytes.Buffer
		_, err := jobs.Track(ctx, wh, []wire.ShipmentRef{{Number: "EMCU8593893", Type: wire.ShipmentContainer}},
			jobs.TrackOptions{Log: slog.New(slog.NewJSONHandler(&logs, nil)), Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		return logs.String()
	}
	logs := track()
	if strings.Contains(logs, "never loaded") || !strings.Contains(logs, `"level":"INFO","msg":"track: derived the updates the vendor pushed (etalake webhook serve)"`) {
		t.Fatalf("a job deriving a push logged:\n%s", logs)
	}

	// A fetch a job landed and died before loading.
	r, err := jobs.PushedResponse(d, "run-that-died")
	if err != nil {
		t.Fatal(err)
	}
	r.Source, r.ObservedAt = response.SourceFetch, at.Add(time.Hour)
	if _, err := wh.Land(ctx, r); err != nil {
		t.Fatal(err)
	}
	if logs := track(); !strings.Contains(logs, `"level":"WARN","msg":"track: derived responses landed earlier but never loaded"`) || strings.Contains(logs, "vendor pushed") {
		t.Fatalf("a job deriving what a job that died left logged:\n%s", logs)
	}
}
