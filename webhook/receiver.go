package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etalake/etalake/internal/bytesize"
	"github.com/etalake/etalake/internal/setting"
)

// Defaults of a Config.
const (
	// DefaultTolerance is the standard libraries' and Svix's: a message
	// signed more than 5 minutes from now is refused.
	DefaultTolerance = 5 * time.Minute
	// DefaultMaxBody bounds a body: the standard recommends payloads
	// "smaller than 20kb"; a shipment of many containers and events is
	// a few hundred.
	DefaultMaxBody = 1 << 20
)

// Bounds of a Config's settings.
const (
	minTolerance = time.Second
	maxTolerance = time.Hour
	minMaxBody   = 1 << 10
	maxMaxBody   = 64 << 20
)

// Config configures a Receiver.
type Config struct {
	// Secret is the endpoint's signing secret (ParseSecret).
	Secret Secret
	// Tolerance is how far from now a webhook-timestamp may be.
	Tolerance time.Duration
	// MaxBody is the largest body taken; a larger one is refused 413.
	MaxBody int64
	// Now is the clock the tolerance is judged by; nil: time.Now.
	Now func() time.Time
	// Log gets a line per delivery taken or refused (never the secret,
	// never the body); nil: none.
	Log *slog.Logger
	// Ledger keeps the ids taken on disk for its retention, so that a
	// retry after a restart or past the tolerance lands nothing again
	// (OpenLedger); nil: ids are kept in memory, within the tolerance.
	Ledger *Ledger
}

// DefaultConfig is a Config with the defaults but the secret.
func DefaultConfig() Config {
	return Config{Tolerance: DefaultTolerance, MaxBody: DefaultMaxBody, Now: time.Now}
}

// Validate says the first rule c breaks, as a *setting.Error naming the
// field (Secret, Tolerance, MaxBody), or nil. New checks it.
func (c Config) Validate() error {
	if c.Secret.IsZero() {
		return setting.Wrong("Secret", "no signing secret: want the endpoint's whsec_ secret")
	}
	if c.MaxBody < minMaxBody || c.MaxBody > maxMaxBody {
		return setting.Refuse("MaxBody", bytesize.Format(c.MaxBody), "a size of 1KiB to 64MiB, such as 1MiB")
	}
	return setting.Duration("Tolerance", c.Tolerance, minTolerance, maxTolerance, "1s to 1h, such as 5m")
}

// Delivery is a verified webhook: its headers' id and timestamp, when we
// received it and its body as it came.
type Delivery struct {
	Message
	// First is the webhook-timestamp of the first attempt of the message
	// the receiver took (its Ledger's record), the same on every retry;
	// Timestamp without a ledger.
	First    time.Time
	Received time.Time
	Body     []byte
}

// Deliver lands a verified delivery and returns nil only once it is on
// disk (it survives a crash of the process or of the machine). An error
// wrapping ErrUnprocessable refuses the body for good (422); any other is
// answered 503, and the sender retries.
type Deliver func(ctx context.Context, d Delivery) error

// Stats counts what a Receiver did.
type Stats struct {
	// Landed counts the deliveries handed to Deliver and landed.
	Landed int64
	// Duplicates counts retries of a message landed before: answered
	// 2xx, not landed again.
	Duplicates int64
	// Refused counts the rest by HTTP status.
	Refused map[int]int64
}

// Receiver is the http.Handler of the vendor's webhooks. It is safe for
// concurrent use.
type Receiver struct {
	cfg     Config
	verify  *verifier
	seen    *seen
	deliver Deliver
	log     *slog.Logger

	closing atomic.Bool
	landed  atomic.Int64
	dups    atomic.Int64
	mu      sync.Mutex
	refused map[int]int64
}

// Attribute keys of the log lines.
const (
	keyID      = "webhook_id"
	keyStatus  = "status"
	keyRemote  = "remote"
	keyReason  = "reason"
	keyBytes   = "bytes"
	keySignedT = "webhook_timestamp"
)

// New builds a Receiver that hands verified bodies to deliver.
func New(cfg Config, deliver Deliver) (*Receiver, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deliver == nil {
		return nil, errors.New("webhook: no Deliver")
	}
	v, err := newVerifier(cfg.Secret, cfg.Tolerance, cfg.Now)
	if err != nil {
		return nil, err
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Receiver{cfg: cfg, verify: v, seen: newSeen(cfg.Tolerance), deliver: deliver, log: log, refused: map[int]int64{}}, nil
}

// Close makes the receiver refuse what comes next (503, which the sender
// retries), for a shutdown: what is being landed finishes.
func (r *Receiver) Close() { r.closing.Store(true) }

// Stats says what the receiver did so far.
func (r *Receiver) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := Stats{Landed: r.landed.Load(), Duplicates: r.dups.Load(), Refused: map[int]int64{}}
	for k, v := range r.refused {
		st.Refused[k] = v
	}
	return st
}

// ServeHTTP takes one delivery: a POST of JSON no larger than MaxBody,
// signed with the secret within the tolerance, not taken before. It
// answers 204 once Deliver has it on disk, 200 to a retry of a message
// landed before, and a refusal otherwise (Status).
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	received := r.cfg.Now()
	log := r.log.With(keyRemote, req.RemoteAddr)
	if id := req.Header.Get(HeaderID); id != "" {
		log = log.With(keyID, truncate(id, maxIDBytes))
	}
	d, dup, err := r.take(req, received)
	if err == nil && !dup {
		err = r.land(req.Context(), d)
	}
	switch {
	case err != nil:
		status := Status(err)
		r.mu.Lock()
		r.refused[status]++
		r.mu.Unlock()
		level := slog.LevelWarn
		if status >= 500 {
			level = slog.LevelError
		}
		log.Log(req.Context(), level, "webhook: refused", keyStatus, status, keyReason, err.Error())
		h := w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		switch status {
		case http.StatusMethodNotAllowed:
			h.Set("Allow", http.MethodPost)
		case http.StatusServiceUnavailable:
			h.Set("Retry-After", "30")
		}
		w.WriteHeader(status)
		fmt.Fprintln(w, err.Error())
	case dup:
		r.dups.Add(1)
		log.Info("webhook: a retry of a message landed before: not landed again", keyStatus, http.StatusOK, keySignedT, d.Timestamp.Unix())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintln(w, "received before")
	default:
		r.landed.Add(1)
		log.Debug("webhook: landed", keyStatus, http.StatusNoContent, keyBytes, len(d.Body), keySignedT, d.Timestamp.Unix())
		w.WriteHeader(http.StatusNoContent)
	}
}

// take checks the request and its signature and claims its id; dup says
// it is a retry of a message landed before.
func (r *Receiver) take(req *http.Request, received time.Time) (d Delivery, dup bool, err error) {
	if req.Method != http.MethodPost {
		return d, false, fmt.Errorf("%w (got %s)", ErrMethod, req.Method)
	}
	if err := jsonContent(req.Header.Get("Content-Type")); err != nil {
		return d, false, err
	}
	if r.closing.Load() {
		return d, false, ErrShuttingDown
	}
	if req.ContentLength > r.cfg.MaxBody {
		return d, false, fmt.Errorf("%w: %d bytes, the bound is %d", ErrTooLarge, req.ContentLength, r.cfg.MaxBody)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, req.Body, r.cfg.MaxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return d, false, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, r.cfg.MaxBody)
	case err != nil:
		return d, false, fmt.Errorf("reading the body: %w", err)
	}
	m, err := r.verify.verify(req.Header, body)
	if err != nil {
		return d, false, err
	}
	c, err := r.seen.claim(m, received)
	if err != nil {
		return d, false, err
	}
	d = Delivery{Message: m, First: m.Timestamp, Received: received, Body: body}
	if c == claimDuplicate || r.cfg.Ledger == nil {
		return d, c == claimDuplicate, nil
	}
	first, landed, err := r.cfg.Ledger.take(m)
	if err != nil {
		r.seen.done(m.ID, false)
		return d, false, err
	}
	if landed {
		r.seen.done(m.ID, true)
		return d, true, nil
	}
	d.First = first
	return d, false, nil
}

// land hands d to Deliver, and lets it finish even when the sender hangs
// up: a body on disk is landed whether the sender heard so or not (its
// retry is then a duplicate).
func (r *Receiver) land(ctx context.Context, d Delivery) error {
	err := r.deliver(context.WithoutCancel(ctx), d)
	if err == nil && r.cfg.Ledger != nil {
		// Landed whether this record is written or not: a retry
		// of an id not known landed is landed again, the same.
		if lerr := r.cfg.Ledger.landed(d.ID); lerr != nil {
			r.log.Error("webhook: recording an id landed", keyID, d.ID, keyReason, lerr.Error())
		}
	}
	r.seen.done(d.ID, err == nil)
	return err
}

// jsonContent accepts application/json and any +json type.
func jsonContent(ct string) error {
	if ct == "" {
		return fmt.Errorf("%w (no Content-Type)", ErrContentType)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return fmt.Errorf("%w (got %s)", ErrContentType, strconv.Quote(truncate(ct, 64)))
	}
	return nil
}
