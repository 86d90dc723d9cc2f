package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"sync"
	"time"
)

// PushConfig configures a Pusher: where the vendor's webhooks go and how
// they are signed.
type PushConfig struct {
	// URL is the receiver's, http or https.
	URL string
	// Secrets are the signing keys (ParseWebhookSecret): the current one,
	// then any being rotated out; each signs every message.
	Secrets [][]byte
	// Client sends the POSTs; nil: one with a 15 s timeout, the low end
	// of the standard's "somewhere between 15 and 30s".
	Client *http.Client
	// Now is the real clock of webhook-timestamp and of the retry
	// schedule; nil: time.Now. (The events' own times are the virtual
	// clock's, in the payload.)
	Now func() time.Time
}

// pushRetries is the standard's example retry schedule after the first
// attempt ("Immediately, 5 seconds, 5 minutes, 30 minutes, 2 hours, 5
// hours, 10 hours, 14 hours, 20 hours, 24 hours"): then the push is
// given up.
var pushRetries = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}

// Pusher is the vendor's webhook sender: it takes the service's due
// pushes and POSTs each, signed at the moment of the attempt, retrying a
// failed one on the standard's schedule with a new timestamp and the same
// id. A harness drives it (Flush) with the virtual clock; `etalake sim
// serve --webhook-url` flushes it every second.
type Pusher struct {
	svc    *Service
	url    string
	keys   [][]byte
	client *http.Client
	now    func() time.Time

	mu       sync.Mutex // one Flush at a time
	queue    []*pending
	disabled bool
}

// pending is a push waiting for its next attempt.
type pending struct {
	push     Push
	attempts int
	next     time.Time
}

// Attempt is one POST of a push and what came of it.
type Attempt struct {
	Push Push
	// N counts the attempts of the push, from 1.
	N int
	// Status is the receiver's HTTP status (0: no answer).
	Status int
	// Err says why the attempt failed; nil for a 2xx.
	Err error
	// GivenUp: the push will not be tried again (the schedule ran out,
	// or the receiver answered 410 Gone and the endpoint is disabled).
	GivenUp bool
}

// NewPusher builds the sender of svc's pushes.
func NewPusher(svc *Service, cfg PushConfig) (*Pusher, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("sim: webhook URL %q: want an http or https URL", cfg.URL)
	}
	if len(cfg.Secrets) == 0 {
		return nil, errors.New("sim: webhook: no signing secret")
	}
	for _, k := range cfg.Secrets {
		if len(k) < webhookSecretMinBytes || len(k) > webhookSecretMaxBytes {
			return nil, fmt.Errorf("sim: webhook secret of %d bytes: want %d to %d", len(k), webhookSecretMinBytes, webhookSecretMaxBytes)
		}
	}
	p := &Pusher{svc: svc, url: cfg.URL, keys: cfg.Secrets, client: cfg.Client, now: cfg.Now}
	if p.client == nil {
		p.client = &http.Client{Timeout: 15 * time.Second}
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p, nil
}

// Pending is how many pushes wait for an attempt.
func (p *Pusher) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
}

// RetryNow makes every push waiting for a retry due at once, as the
// "manual retries" the standard recommends a vendor offer: a harness
// replays what failed without waiting out the schedule.
func (p *Pusher) RetryNow() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, q := range p.queue {
		q.next = time.Time{}
	}
}

// Flush queues the pushes due up to the virtual clock's now
// (Service.DuePushes) and sends every push whose attempt is due by the
// real clock, oldest event first, one at a time; it returns what each
// attempt got.
func (p *Pusher) Flush(ctx context.Context) []Attempt {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	for _, push := range p.svc.DuePushes() {
		p.queue = append(p.queue, &pending{push: push, next: now})
	}
	sort.SliceStable(p.queue, func(i, j int) bool { return p.queue[i].push.At.Before(p.queue[j].push.At) })
	var out []Attempt
	kept := p.queue[:0]
	for _, q := range p.queue {
		if p.disabled {
			out = append(out, Attempt{Push: q.push, N: q.attempts, Err: errors.New("the receiver answered 410 Gone: endpoint disabled"), GivenUp: true})
			continue
		}
		if q.next.After(now) || ctx.Err() != nil {
			kept = append(kept, q)
			continue
		}
		q.attempts++
		a := Attempt{Push: q.push, N: q.attempts}
		a.Status, a.Err = p.send(ctx, q.push)
		switch {
		case a.Err == nil:
		case a.Status == http.StatusGone:
			// "410 Gone: ... Sender should disable the webhook
			// endpoint, and stop sending it messages."
			p.disabled, a.GivenUp = true, true
		case q.attempts > len(pushRetries):
			a.GivenUp = true
		default:
			q.next = p.now().Add(pushRetries[q.attempts-1])
			kept = append(kept, q)
		}
		out = append(out, a)
	}
	clear(p.queue[len(kept):])
	p.queue = kept
	return out
}

// send POSTs one attempt of a push, signed now.
func (p *Pusher) send(ctx context.Context, push Push) (int, error) {
	ts := p.now().Unix()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(push.Body))
	if err != nil {
		return 0, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "etalake-sim-webhooks")
	h.Set("webhook-id", push.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	h.Set("webhook-signature", SignWebhook(p.keys, push.ID, ts, push.Body))
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	// "A webhook delivery is considered successful if it was responded
	// to with a 2xx status code (status codes 200-299)".
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	return resp.StatusCode, nil
}
