package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/webhook"
	"github.com/etalake/etalake/wire"
)

// Pushed updates: what `etalake webhook serve` does with a body the
// vendor pushed and the receiver verified. It lands as an ordinary
// tracking response — product tracking, endpoint shipment, the request a
// fetch of the shipment would send and its resource (shipment:CT:…),
// identified from the body as an import's is — so that the next writer
// derives it as it derives a fetch of the same shipment, and the refresh
// policy sees the shipment observed. Its source is push, so that it is
// never an answer for a logical date (the checkpoint counts fetches), and
// no credit is spent on it. It is appended to the receiver's journal
// (load.PushJournal), synced before the vendor is answered, and the next
// writer's Open lands it; the receiver never opens the warehouse.
//
// observed_at is when the answer was true: the payload's timestamp, "the
// timestamp of when the event occurred" in the Standard Webhooks payload,
// which every retry of the message repeats — so that the same message
// delivered twice is one landed response — else the webhook-timestamp of
// the message's first attempt, which the receiver's ledger of ids
// (webhook.Ledger) keeps for every retry of the same webhook-id: a retry
// carries a timestamp of its own, and would otherwise be a new response.

// PushOptions configure a PushLanding.
type PushOptions struct {
	// Now names the receiver and dates its journals; nil: time.Now.
	Now func() time.Time
	// Log gets a line per body landed; nil: none.
	Log *slog.Logger
	// Retention is how long the receiver keeps the webhook-ids it took
	// (webhook.Ledger); 0: webhook.DefaultRetention.
	Retention time.Duration
}

// PushLanding lands the bodies a webhook receiver verified in the
// warehouse's landing journal, without its writer lock. It is safe for
// concurrent use.
type PushLanding struct {
	j      *load.PushJournal
	ledger *webhook.Ledger
	runID  string
	log    *slog.Logger
}

// OpenPushLanding opens the receiver journal of the warehouse in dir.
func OpenPushLanding(dir string, opt PushOptions) (*PushLanding, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Retention == 0 {
		opt.Retention = webhook.DefaultRetention
	}
	j, err := load.OpenPushJournal(dir, opt.Now)
	if err != nil {
		return nil, err
	}
	ledger, err := webhook.OpenLedger(j.IDsDir(), opt.Retention, opt.Now)
	if err != nil {
		return nil, err
	}
	return &PushLanding{j: j, ledger: ledger, runID: "webhook-" + newRunID(opt.Now()), log: opt.Log}, nil
}

// Ledger is the record of the webhook-ids the receiver took, in the
// warehouse's working directory: a receiver's Config.Ledger.
func (p *PushLanding) Ledger() *webhook.Ledger { return p.ledger }

// RunID is the run_id the receiver's bodies land with: webhook-<start>-…,
// a receiver process; etl_runs has no row of it.
func (p *PushLanding) RunID() string { return p.runID }

// Deliver lands one verified delivery, returning once it is on disk. A
// body that is not a shipment's tracking (the containerDetails the vendor
// sends) is refused, wrapping webhook.ErrUnprocessable.
func (p *PushLanding) Deliver(_ context.Context, d webhook.Delivery) error {
	r, err := PushedResponse(d, p.runID)
	if err != nil {
		return err
	}
	if err := p.j.Append(r); err != nil {
		return err
	}
	p.log.Info("push: landed", "webhook_id", d.ID, "resource", r.Resource, "response_id", load.ResponseID(r),
		"observed_at", r.ObservedAt.Format(time.RFC3339))
	return nil
}

// Rotate hands the current journal to the next writer when it is at
// least age old (0: whatever its age); it says whether it did.
func (p *PushLanding) Rotate(age time.Duration) (bool, error) { return p.j.Rotate(age) }

// Close hands what the receiver landed to the next writer, and syncs
// its ledger of ids.
func (p *PushLanding) Close() error { return errors.Join(p.j.Close(), p.ledger.Close()) }

// RotateEvery rotates the journal once it is every old until ctx ends,
// so that a body waits at most about that long for a writer to land it.
func (p *PushLanding) RotateEvery(ctx context.Context, every time.Duration) error {
	t := time.NewTicker(max(every/4, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if _, err := p.j.Rotate(every); err != nil {
				p.log.Error("push: rotating the receiver's journal", "error", err)
			}
		}
	}
}

// PushedResponse is the landed response a verified delivery lands as, for
// the receiver of run id runID.
func PushedResponse(d webhook.Delivery, runID string) (*response.Landed, error) {
	id, err := transform.Identify(d.Body)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %v", webhook.ErrUnprocessable, err)
	case id.Endpoint != wire.EndpointShipment:
		return nil, fmt.Errorf("%w: a %s body, not a shipment's tracking (containerDetails)", webhook.ErrUnprocessable, id.Endpoint)
	}
	res, err := resourceOfRequest(id.Endpoint, id.Request)
	if err != nil {
		return nil, fmt.Errorf("%w: the shipment it holds names no shipment a job could track: %v", webhook.ErrUnprocessable, err)
	}
	return &response.Landed{
		Received: response.Received{Product: id.Product, Endpoint: id.Endpoint, Request: id.Request, Status: 200,
			FetchedAt: d.Received.UTC(), Attempt: 1, Body: d.Body},
		RunID: runID, Resource: res.String(), Source: response.SourcePush, ObservedAt: pushObservedAt(d).UTC(),
	}, nil
}

// pushObservedAt is the payload's timestamp when it has one in RFC 3339,
// else the webhook-timestamp of the message's first attempt.
func pushObservedAt(d webhook.Delivery) time.Time {
	var payload struct {
		Timestamp string `json:"timestamp"`
	}
	if json.Unmarshal(d.Body, &payload) == nil && payload.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, payload.Timestamp); err == nil {
			return t
		}
	}
	if !d.First.IsZero() {
		return d.First
	}
	return d.Timestamp
}
