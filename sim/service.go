package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/etalake/etalake/wire"
)

// URL prefixes of the two products and of the simulator's own controls.
const (
	SchedulePrefix = wire.ScheduleBasePath
	TrackingPrefix = wire.TrackingBasePath
	AdminPrefix    = "/_sim/"
)

// Config configures a Service.
type Config struct {
	// World answers the queries; nil builds NewWorld(WorldConfig{}).
	World *World
	// Keys the service accepts. Keys may not contain ':' or white space.
	Keys []KeySpec
	// Rate is the per-key limit; zero means DefaultRate (10 per 10 s).
	Rate Rate
	// Clock is the virtual clock; nil starts one at the world's start,
	// frozen (only Advance moves it).
	Clock  *Clock
	Faults Faults
	// Now is the real clock of the rate window and the ledger; nil: time.Now.
	Now func() time.Time
	// Sleep spends the simulated latency; nil waits on a real timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// ScheduleAPI is the profile of the schedule product: ScheduleAPIService
	// (the default, also when empty) under SchedulePrefix, or ScheduleAPIDCSA
	// under DCSAPrefix (see dcsa.go). The tracking product is the same in
	// both.
	ScheduleAPI string
	// PageSize is, in the DCSA profile only, the most root items per page
	// whatever the client's limit; 0: the client's limit (default
	// DCSADefaultLimit) alone.
	PageSize int
	// DCSAVersion is, in the DCSA profile only, the version of DCSA
	// Commercial Schedules 1.0 it follows (DCSAVersions; "":
	// DefaultDCSAVersion): sent as API-Version, and deciding how a next
	// page must be asked.
	DCSAVersion string
	// Auth is where the service wants the key: the zero value is the
	// API_KEY header (spec §5); ParseAuth("bearer") wants
	// "Authorization: Bearer KEY", "header:NAME" the key as header NAME.
	// A request without the key there is refused 401, saying how it is
	// wanted.
	Auth Auth
}

// Service is the simulated Shipping Schedule and Container ETA Service, an
// http.Handler serving both products (under SchedulePrefix and
// TrackingPrefix) and its controls (under AdminPrefix). It is safe for
// concurrent use.
type Service struct {
	world *World
	clock *Clock
	rate  Rate
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	retry bool
	dcsa  bool   // the schedule product speaks ScheduleAPIDCSA
	pages int    // Config.PageSize
	csv   string // Config.DCSAVersion: the DCSA version served
	auth  Auth

	mu       sync.Mutex
	accounts map[string]*account // by key
	windows  map[string]*window  // by key
	bursts   map[string]int      // 429s left in a key's fault burst
	dice     *faultDice
	ledger   []LedgerEntry
	// subs are the shipments the vendor pushes webhooks for (push.go).
	subs *subscriptions
}

// New fills the zero members of cfg (Rate: DefaultRate; DCSAVersion in
// the DCSA profile: DefaultDCSAVersion), validates it (Config.Validate)
// and builds the service.
func New(cfg Config) (*Service, error) {
	if cfg.Rate == (Rate{}) {
		cfg.Rate = DefaultRate
	}
	if cfg.DCSAVersion == "" && cfg.ScheduleAPI == ScheduleAPIDCSA {
		cfg.DCSAVersion = DefaultDCSAVersion
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s := &Service{
		world:    cfg.World,
		clock:    cfg.Clock,
		rate:     cfg.Rate,
		now:      cfg.Now,
		sleep:    cfg.Sleep,
		retry:    cfg.Faults.RetryAfter,
		dcsa:     cfg.ScheduleAPI == ScheduleAPIDCSA,
		pages:    cfg.PageSize,
		csv:      cfg.DCSAVersion,
		auth:     cfg.Auth,
		accounts: map[string]*account{},
		windows:  map[string]*window{},
		bursts:   map[string]int{},
		dice:     newFaultDice(cfg.Faults),
	}
	if s.world == nil {
		s.world = NewWorld(WorldConfig{})
	}
	if s.clock == nil {
		s.clock = NewClock(s.world.Config().Start, 0, nil)
	}
	s.subs = newSubscriptions(s.clock.Now())
	if s.now == nil {
		s.now = time.Now
	}
	if s.sleep == nil {
		s.sleep = sleep
	}
	for _, k := range cfg.Keys {
		if err := s.AddKey(k); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// AddKey makes the service accept another key.
func (s *Service) AddKey(k KeySpec) error {
	if k.Key == "" {
		return errors.New("sim: empty key")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.accounts[k.Key]; dup {
		return errors.New("sim: key added twice")
	}
	s.accounts[k.Key] = newAccount(k, s.clock.Now())
	s.windows[k.Key] = &window{rate: s.rate}
	return nil
}

// ScheduleBasePath is the path under which the schedule product is served:
// SchedulePrefix, or DCSAPrefix in the DCSA profile.
func (s *Service) ScheduleBasePath() string {
	if s.dcsa {
		return DCSAPrefix
	}
	return SchedulePrefix
}

// Auth is where the service wants the key.
func (s *Service) Auth() Auth { return s.auth }

// ScheduleAPI is the profile of the schedule product.
func (s *Service) ScheduleAPI() string {
	if s.dcsa {
		return ScheduleAPIDCSA
	}
	return ScheduleAPIService
}

// DCSAVersion is the version of DCSA Commercial Schedules the DCSA
// profile follows; "" in the service's profile.
func (s *Service) DCSAVersion() string { return s.csv }

// World returns the world the service answers from.
func (s *Service) World() *World { return s.world }

// Clock returns the virtual clock.
func (s *Service) Clock() *Clock { return s.clock }

// Balance is the remaining credits of a key's product in the current
// period; ok is false for an unknown key or a product it cannot use.
func (s *Service) Balance(key string, p wire.Product) (n int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.accounts[key]
	if a == nil || a.allocation(p) == nil {
		return 0, false
	}
	return a.remaining(p, s.clock.Now()), true
}

// Ledger returns a copy of every request seen, in arrival order.
func (s *Service) Ledger() []LedgerEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]LedgerEntry(nil), s.ledger...)
}

// Stats sums the ledger up.
func (s *Service) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{ByStatus: map[int]int64{}, Charged: map[string]int64{}, PeakInWindow: map[string]int{}}
	for _, e := range s.ledger {
		st.Requests++
		st.ByStatus[e.Status]++
		if e.Charged {
			st.Charged[e.Product]++
		}
		if e.Status == http.StatusTooManyRequests {
			st.RateLimited++
		}
	}
	for key, w := range s.windows {
		if w.peak > 0 {
			st.PeakInWindow[s.accounts[key].keyID] = w.peak
		}
	}
	return st
}

// reply is what the service decided to answer.
type reply struct {
	status  int
	body    any
	fault   *apiFault // an error, rendered in the profile of the request's path
	raw     []byte    // overrides body (a truncated answer)
	retryIn time.Duration
	next    string    // DCSA: the Next-Page-Cursor
	asOf    time.Time // DCSA: the time the page is answered as of
	// challenge is the WWW-Authenticate of a 401 (the bearer scheme's).
	challenge string
}

// ServeHTTP answers one request as of the virtual clock.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(r.URL.Path) >= len(AdminPrefix) && r.URL.Path[:len(AdminPrefix)] == AdminPrefix {
		s.serveAdmin(w, r)
		return
	}
	arrived := s.now()
	virt := s.clock.Now()
	entry := LedgerEntry{At: arrived, VirtualAt: virt, Request: r.URL.RequestURI()}
	version := ""
	if s.dcsa {
		version = s.csv
	}
	rt, routeErr := parseRoute(r, version)
	dcsaPath := s.dcsa && strings.HasPrefix(r.URL.Path, DCSAPrefix+"/")
	if routeErr == nil {
		entry.Product, entry.Endpoint = string(rt.product), string(rt.endpoint)
	}

	s.mu.Lock()
	entry.Seq = int64(len(s.ledger)) + 1
	rep := s.decide(r.Header, rt, routeErr, arrived, virt, &entry)
	latency := s.dice.latency()
	entry.Status = rep.status
	s.ledger = append(s.ledger, entry)
	s.mu.Unlock()

	if err := s.sleep(r.Context(), latency); err != nil {
		return // the client went away
	}
	body := rep.raw
	contentType := "application/json"
	if rep.fault != nil && rep.fault.plain {
		body, contentType = []byte(rep.fault.message), "text/plain; charset=utf-8"
	}
	if body == nil {
		v := rep.body
		if rep.fault != nil {
			v = s.renderError(dcsaPath, rep.fault, r, entry.Seq, virt)
		}
		var err error
		if body, err = json.Marshal(v); err != nil {
			rep.status = http.StatusInternalServerError
			body, _ = json.Marshal(s.renderError(dcsaPath, &apiFault{status: rep.status, message: "encoding the answer failed"}, r, entry.Seq, virt))
		}
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	date := virt
	if !rep.asOf.IsZero() {
		date = rep.asOf
	}
	h.Set("Date", date.UTC().Format(http.TimeFormat))
	if dcsaPath {
		h.Set("API-Version", s.csv)
		if rep.next != "" {
			h.Set("Next-Page-Cursor", rep.next)
		}
	}
	if rep.status == http.StatusUnauthorized && rep.challenge != "" {
		h.Set("WWW-Authenticate", rep.challenge)
	}
	if rep.status == http.StatusTooManyRequests && s.retry {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(max(rep.retryIn, time.Second).Seconds()))))
	}
	// An explicit length, so that the flush below ends the answer: without
	// it, a flush before the handler returns makes the body chunked, and
	// its last chunk would only be written after WrittenAt.
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rep.status)
	// A failed write or flush is a client gone mid-answer: never written
	// whole. A writer that cannot flush (a recorder) holds nothing back.
	if _, err := w.Write(body); err != nil {
		return
	}
	if err := http.NewResponseController(w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return
	}
	s.written(entry.Seq, s.now())
}

// written records when the answer of ledger entry seq was written whole.
// Entries are appended in order, numbered from 1, and never removed.
func (s *Service) written(seq int64, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ledger[seq-1].WrittenAt = at
}

// decide applies the service's rules in order — authentication, rate limit,
// route, product access, input validation, faults, quota, data — and charges
// a credit for a successful paid answer. The caller holds s.mu.
func (s *Service) decide(h http.Header, rt *route, routeErr *apiFault, arrived, virt time.Time, entry *LedgerEntry) reply {
	a, key, refused := s.authenticate(h, virt)
	if a == nil {
		return refused
	}
	entry.KeyID = a.keyID
	if rep, limited := s.limit(key, arrived, entry); limited {
		return rep
	}
	if routeErr != nil {
		return reply{status: routeErr.status, fault: routeErr}
	}
	if rep, refused := s.admit(rt, a, virt, entry); refused {
		return rep
	}
	rep := s.answer(rt, a, virt)
	if rep.status != http.StatusOK {
		return rep
	}
	if rt.endpoint == wire.EndpointShipment {
		s.subs.add(rt.ref, virt) // the vendor tracks what it was asked, and pushes for it
	}
	if rt.endpoint.Paid() {
		a.charge(rt.product, virt)
		entry.Charged = true
		if s.dice.chance(s.dice.f.TruncateRate) {
			full, _ := json.Marshal(rep.body)
			rep.raw = full[:len(full)/2]
			entry.Fault = "truncated"
		}
	}
	return rep
}

// failure is the reply of an error status with the documented body.
func failure(status int, msg string, details ...any) reply {
	return reply{status: status, fault: &apiFault{status: status, message: msg, details: details}}
}

// authenticate finds the account of the request's key; without one, or
// with one expired at virt, it returns nil and the 401 to answer, with
// the challenge of the scheme the request tried.
func (s *Service) authenticate(h http.Header, virt time.Time) (a *account, key string, refused reply) {
	key, challenge := s.credential(h)
	unauthorized := func(msg string) reply {
		rep := failure(http.StatusUnauthorized, msg)
		rep.challenge = challenge
		return rep
	}
	a = s.accounts[key]
	switch {
	case a == nil:
		return nil, key, unauthorized(s.refusal(h, key))
	case a.expired(virt):
		return nil, key, unauthorized("API key expired")
	}
	return a, key, reply{}
}

// limit answers 429 when the key is in a burst of faults, starts one, or
// is over its rate window at arrived.
func (s *Service) limit(key string, arrived time.Time, entry *LedgerEntry) (reply, bool) {
	burst := reply{status: http.StatusTooManyRequests, fault: &apiFault{status: http.StatusTooManyRequests, message: "rate limit exceeded"}, retryIn: time.Second}
	if left := s.bursts[key]; left > 0 {
		s.bursts[key] = left - 1
		entry.Fault = "429 burst"
		return burst, true
	}
	if s.dice.chance(s.dice.f.BurstRate) {
		s.bursts[key] = s.dice.f.BurstLength - 1
		entry.Fault = "429 burst"
		return burst, true
	}
	if ok, retryIn := s.windows[key].admit(arrived); !ok {
		return reply{status: http.StatusTooManyRequests, fault: &apiFault{status: http.StatusTooManyRequests, message: fmt.Sprintf("rate limit exceeded: %d requests per %s", s.rate.N, s.rate.Window)}, retryIn: retryIn}, true
	}
	return reply{}, false
}

// admit refuses a request the account may not make: a product it has no
// access to, input that fails validation, a random server fault, or a
// paid call without credits left.
func (s *Service) admit(rt *route, a *account, virt time.Time, entry *LedgerEntry) (reply, bool) {
	if a.allocation(rt.product) == nil {
		return failure(http.StatusForbidden, fmt.Sprintf("API key has no access to the %s product", rt.product)), true
	}
	if bad := rt.validate(); bad != nil {
		return failure(bad.status, bad.message, bad.details...), true
	}
	if s.dice.chance(s.dice.f.ErrorRate) {
		entry.Fault = "5xx"
		status := http.StatusInternalServerError
		if s.dice.chance(0.5) {
			status = http.StatusServiceUnavailable
		}
		return failure(status, "internal server error"), true
	}
	if rt.endpoint.Paid() && a.remaining(rt.product, virt) <= 0 {
		return failure(http.StatusForbidden, fmt.Sprintf("usage limit reached: no %s credits left in the current period", rt.product)), true
	}
	return reply{}, false
}

// answer is the data the route asks for at virt, or the error status of
// its absence: 404 for no data, except under DCSA, whose no data is an
// empty array.
func (s *Service) answer(rt *route, a *account, virt time.Time) reply {
	var body any
	var err error
	var next string
	var asOf time.Time
	switch {
	case rt.endpoint == wire.EndpointCurrentPeriod:
		start, _ := periodOf(virt)
		body = a.period(rt.product, start, virt)
	case rt.endpoint == wire.EndpointPeriods:
		body = a.periods(rt.product, virt)
	case rt.dcsa:
		body, next, asOf, err = s.dcsaPage(rt, virt)
	default:
		body, err = rt.answer(s.world, virt)
	}
	if errors.Is(err, ErrNoData) && rt.dcsa {
		// DCSA defines 200, 400 and 500 only: no data is an empty array,
		// a successful (paid) answer.
		body, err = []any{}, nil
	}
	if errors.Is(err, ErrNoData) {
		return failure(http.StatusNotFound, "no data found for the requested resource")
	}
	if errors.Is(err, errCursorPastEnd) {
		bad := badRequest("cursor", rt.query.Get("cursor"), "points past the end of the answer")
		return failure(bad.status, bad.message, bad.details...)
	}
	if err != nil {
		return failure(http.StatusInternalServerError, "internal server error")
	}
	return reply{status: http.StatusOK, body: body, next: next, asOf: asOf}
}

// errorBody is the documented error body: errorCode, message, details, time.
func errorBody(status int, msg string, at time.Time, details ...any) wire.ErrorBody {
	b := wire.ErrorBody{ErrorCode: status, Message: msg, Details: []json.RawMessage{}, Time: at.UTC().Truncate(time.Second)}
	for _, d := range details {
		raw, _ := json.Marshal(d)
		b.Details = append(b.Details, raw)
	}
	return b
}

// renderError renders an error answer in the profile of the request's path:
// a DCSA ErrorResponse under DCSAPrefix, else the service's error body.
func (s *Service) renderError(dcsaPath bool, f *apiFault, r *http.Request, seq int64, virt time.Time) any {
	if dcsaPath {
		return csErrorBody(f, r.Method, r.URL.RequestURI(), seq, virt)
	}
	return errorBody(f.status, f.message, virt, f.details...)
}

// errCursorPastEnd: a cursor that passed its check points past the answer
// (the world is immutable, so only a bug would do that).
var errCursorPastEnd = errors.New("sim: cursor past the end of the answer")

// dcsaPage answers one page of a DCSA query: the root items from the
// cursor's offset (0 on a first page), at most the client's limit or the
// service's page size, as of the first page's virtual time; with the cursor
// of the next page when more remain.
func (s *Service) dcsaPage(rt *route, virt time.Time) (items []any, next string, asOf time.Time, err error) {
	q := rt.cs
	asOf, off := virt, 0
	if q.cursor != nil {
		asOf, off = time.Unix(q.cursor.at, 0).UTC(), q.cursor.offset
	}
	all, err := s.world.csAnswer(rt.endpoint, q, asOf)
	if err != nil {
		return nil, "", asOf, err
	}
	if off >= len(all) {
		return nil, "", asOf, errCursorPastEnd
	}
	size := q.limit
	if s.pages > 0 && s.pages < size {
		size = s.pages
	}
	items, next = page(all, off, size, q.limit, q.endpoint, q.filter, asOf)
	return items, next, asOf, nil
}
