package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// DefaultTimeout bounds one attempt, from sending to the end of the body.
const DefaultTimeout = 60 * time.Second

// maxRead bounds the body the client reads into memory, whatever
// MaxDecode: a larger one is refused, not buffered. A body streamed to a
// file (Config.SpillDir) is bounded by maxSpill instead.
const maxRead = 256 << 20

// Config configures a Client. Key and at least one of ScheduleURL and
// TrackingURL are required; every other member has a working zero value.
type Config struct {
	// ScheduleURL is the schedule product's base URL, ending in
	// /schedule/api/v1; TrackingURL the tracking product's, ending in
	// /container-tracking/api/v2. Either may be empty: a call to that
	// product then fails with ErrNoURL before anything else.
	ScheduleURL, TrackingURL string
	// AllowInsecureHTTP takes a plain http:// base URL to a host that is
	// not this machine's. Without it such a URL is refused: the key would
	// cross the network in clear with every request. http:// to localhost,
	// 127.0.0.0/8 or ::1 (a simulator, a tunnel's end) is taken always.
	AllowInsecureHTTP bool
	Key               Key
	// Auth is how the key is sent; the zero value is the API_KEY header.
	Auth Auth
	// ScheduleAPI is the schedule product's profile; "" is
	// wire.ScheduleAPIService.
	ScheduleAPI wire.ScheduleAPI
	// Paths default to the profile's (ScheduleAPI.Paths()).
	Paths wire.Paths
	// PageSize, when positive, asks schedule answers in pages of at most
	// that many items (the limit parameter); else the provider's default.
	PageSize int
	// ScheduleDays is the length of the schedule window from the logical
	// date, for the templates' {until}; 0 is DefaultScheduleDays.
	ScheduleDays int
	// MaxPages is how many pages of one answer a call follows; 0 is
	// DefaultMaxPages. The walk stops there with a *PagingError, its last
	// page landed naming the next, where the next call resumes.
	MaxPages int
	// HTTP defaults to a client with Timeout. Whatever the client, a
	// redirect to another host or from https to http is refused: the key
	// would go with it.
	HTTP    *http.Client
	Timeout time.Duration
	// Limiter defaults to a process-local limiter at DefaultRate. Share one
	// Limiter between every Client of the same key.
	Limiter *Limiter
	// ScheduleBudget and TrackingBudget default to unlimited budgets.
	ScheduleBudget, TrackingBudget *Budget
	// Retry defaults to DefaultRetryPolicy().
	Retry RetryPolicy
	// Clock defaults to SystemClock{}.
	Clock     Clock
	UserAgent string
	// MaxDecode, when positive, is the largest 2xx body its consumer
	// decodes (a job's --max-body): a larger one is yielded whole and the
	// call ends with ErrTooLarge (a walk does not go past it), so that a
	// faulty answer of hundreds of megabytes costs its bytes, not many
	// times its size in decoded values. Without SpillDir the client reads
	// bodies into memory up to the larger of MaxDecode and 256 MiB.
	MaxDecode int64
	// SpillDir, when set with MaxDecode, is where a body larger than
	// MaxDecode is written as it arrives (response.Received.File),
	// redacted and synced, instead of held in memory; such a body may be
	// up to 2 GiB. A job gives the warehouse's landing directory (see
	// WithSpillDir).
	SpillDir string
}

// Client calls the service. It is safe for concurrent use; every request,
// free or paid, first or retried, waits for the limiter, and every paid
// request holds a credit of its product's budget while it is in flight.
type Client struct {
	cfg      Config
	schedule *url.URL // nil: no URL (ErrNoURL)
	tracking *url.URL // nil: no URL (ErrNoURL)
	http     *http.Client
	limiter  *Limiter
	clock    Clock
	retry    RetryPolicy
	logical  time.Time // see WithLogicalDate
	resume   string    // see ResumeAt
	// Shared by every copy of the client (WithLogicalDate, ResumeAt, …):
	probes *probes       // which products proved their configuration
	pref   *atomic.Int32 // the DCSA cursor form a provider took (cursorForm)
}

// NewClient fills the zero members of cfg from DefaultConfig, validates
// it (Config.Validate: a *setting.Error names the field) and builds the
// client.
func NewClient(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, probes: newProbes(), pref: newCursorPref()}
	c.schedule, _ = parseBase("ScheduleURL", cfg.ScheduleURL)
	c.tracking, _ = parseBase("TrackingURL", cfg.TrackingURL)
	c.cfg.ScheduleAPI, _ = wire.ParseScheduleAPI(string(cfg.ScheduleAPI))
	if c.cfg.Paths == (wire.Paths{}) {
		c.cfg.Paths = c.cfg.ScheduleAPI.Paths()
	}
	c.http = guarded(cfg.HTTP, c.cfg.Timeout)
	c.clock = cfg.Clock
	if c.clock == nil {
		c.clock = SystemClock{}
	}
	c.limiter = cfg.Limiter
	if c.limiter == nil {
		var err error
		if c.limiter, err = NewLimiter(LimiterConfig{Rate: DefaultRate, Clock: c.clock}); err != nil {
			return nil, err
		}
	}
	if c.cfg.ScheduleBudget == nil {
		c.cfg.ScheduleBudget = NewBudget(wire.ProductSchedule, Unlimited)
	}
	if c.cfg.TrackingBudget == nil {
		c.cfg.TrackingBudget = NewBudget(wire.ProductTracking, Unlimited)
	}
	c.retry = withRetryDefaults(cfg.Retry)
	if err := c.retry.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// withRetryDefaults fills the zero members of p from DefaultRetryPolicy.
func withRetryDefaults(p RetryPolicy) RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts == 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.MaxBrokenAttempts == 0 {
		p.MaxBrokenAttempts = d.MaxBrokenAttempts
	}
	if p.MaxElapsed == 0 {
		p.MaxElapsed = d.MaxElapsed
	}
	if p.BaseDelay == 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = max(d.MaxDelay, p.BaseDelay)
	}
	return p
}

// parseBase reads the base URL of Config's field; nil when s is empty
// (the product is not configured).
func parseBase(field, s string) (*url.URL, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, setting.Refuse(field, strconv.Quote(s), "an absolute http(s) URL such as https://api.example.com/schedule/api/v1")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, setting.Refuse(field, strconv.Quote(u.Redacted()), "no credentials, query or fragment in a base URL")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}

// guarded is the HTTP client to send with: hc (a shallow copy, so the
// caller's is not changed) or a new one with timeout, that follows a
// redirect only under sameHostRedirects, and then the caller's own policy.
func guarded(hc *http.Client, timeout time.Duration) *http.Client {
	if hc == nil {
		return &http.Client{Timeout: timeout, CheckRedirect: sameHostRedirects}
	}
	c := *hc
	policy := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := sameHostRedirects(req, via); err != nil {
			return err
		}
		if policy != nil {
			return policy(req, via)
		}
		return nil
	}
	return &c
}

// sameHostRedirects follows a redirect only on the original host and never
// from https to http. Every header of the request goes along with a
// redirect but Authorization and cookies, which Go's client drops for
// another domain: the key, in whatever header Auth puts it (API_KEY, a
// header of the provider's name), would otherwise be sent to a stranger,
// or in clear.
func sameHostRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	from := via[0].URL
	if req.URL.Host != from.Host {
		return fmt.Errorf("%w: from %s to another host, %s: the API key would go with it", ErrRedirectRefused, from.Host, req.URL.Host)
	}
	if from.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: from https to %s on %s: the API key would go unencrypted", ErrRedirectRefused, req.URL.Scheme, req.URL.Host)
	}
	return nil
}

// Budget returns the credit budget of product p.
func (c *Client) Budget(p wire.Product) *Budget {
	if p == wire.ProductTracking {
		return c.cfg.TrackingBudget
	}
	return c.cfg.ScheduleBudget
}

// WithSpillDir returns a client that shares everything with c and writes
// a body larger than Config.MaxDecode to a file in dir as it arrives
// (Config.SpillDir).
func (c *Client) WithSpillDir(dir string) *Client {
	cc := *c
	cc.cfg.SpillDir = dir
	return &cc
}

// WithMaxDecode returns a client that shares everything with c and takes
// n as Config.MaxDecode.
func (c *Client) WithMaxDecode(n int64) *Client {
	cc := *c
	cc.cfg.MaxDecode = n
	return &cc
}

// MaxPages is how many pages of one answer a call follows.
func (c *Client) MaxPages() int { return c.cfg.MaxPages }

// Auth returns how the client sends the key.
func (c *Client) Auth() Auth { return c.cfg.Auth }

// Limiter returns the client's rate limiter.
func (c *Client) Limiter() *Limiter { return c.limiter }

// request is one call to make.
type request struct {
	product  wire.Product
	endpoint wire.Endpoint
	url      *url.URL
	// A page of a paged call: its walk, the same page in the other DCSA
	// cursor form (nil when it is not a cursor page), and its identity in
	// the walk (see pageRef).
	walk *walk
	alt  *url.URL
	id   string
}

// HasURL reports whether product p has a base URL: a call to a product
// without one fails with ErrNoURL.
func (c *Client) HasURL(p wire.Product) bool { return c.base(p) != nil }

func (c *Client) base(p wire.Product) *url.URL {
	if p == wire.ProductTracking {
		return c.tracking
	}
	return c.schedule
}

// newRequest builds a call to product p, or fails with ErrNoURL when p has
// no URL: before the limiter and the budget, nothing spent or waited for.
func (c *Client) newRequest(p wire.Product, e wire.Endpoint, vars map[string]string, q url.Values) (*request, error) {
	base := c.base(p)
	if base == nil {
		return nil, fmt.Errorf("%s %s: %w", p, e, ErrNoURL)
	}
	day := c.date()
	all := map[string]string{
		"date":  day.Format(time.DateOnly),
		"until": day.AddDate(0, 0, c.cfg.ScheduleDays).Format(time.DateOnly),
	}
	for k, v := range vars {
		all[k] = v
	}
	escaped, tq := c.cfg.Paths.Path(e, all), c.cfg.Paths.Query(e, all)
	if tq == nil {
		tq = url.Values{}
	}
	for name, vs := range q { // the call's own parameters win
		tq[name] = vs
	}
	if c.cfg.PageSize > 0 && pagedEndpoint(e) {
		tq.Set("limit", strconv.Itoa(c.cfg.PageSize))
	}
	u := *base
	u.RawPath = wire.JoinBase(base.EscapedPath(), escaped)
	u.Path, _ = url.PathUnescape(u.RawPath) // escaped by us: cannot fail
	u.RawQuery = tq.Encode()
	return &request{product: p, endpoint: e, url: &u}, nil
}

// WithLogicalDate returns a client that shares everything with c and
// fills the {date} of path templates with day (a job's logical date);
// without it, {date} is today by the client's clock, in UTC.
func (c *Client) WithLogicalDate(day time.Time) *Client {
	cc := *c
	cc.logical = day
	return &cc
}

func (c *Client) date() time.Time {
	if !c.logical.IsZero() {
		return c.logical.UTC()
	}
	return c.clock.Now().UTC()
}

// attempts sends r with the limiter, the budget and the retry policy,
// hands each response over as it arrives (the retried and the error
// responses too), and returns the final one. A non-2xx final response
// comes back with its *APIError; a consumer that stopped, with
// errStopped. While the product's configuration is unproven, it waits
// for the one request probing it (and a paid call, while no paid call of
// the product has been answered, for the one paid call probing that:
// gates).
//
// Each attempt takes its credit and its rate slot (reserve), is sent,
// and ends in one of three ways: an answer broken in transfer
// (brokenAnswer), an answer or no answer (ended); a failure that may be
// tried again waits first (again).
func (c *Client) attempts(ctx context.Context, r *request, give hand) (raw *rawResponse, err error) {
	k := &call{r: r, give: give}
	probed, err := c.probe(ctx, r)
	defer func() { err = c.endProbes(ctx, r, probed, raw, k.proven, err) }()
	if err != nil {
		return nil, err
	}
	if r.endpoint.Paid() {
		k.budget = c.Budget(r.product)
	}
	// The broken answers of this call: a walk's pages share their count.
	k.broken = new(int)
	if r.walk != nil {
		k.broken = &r.walk.broken
	}
	k.start = c.clock.Now()
	for attempt := 1; ; attempt++ {
		res, slot, err := c.reserve(ctx, k)
		if err != nil {
			return nil, err
		}
		resp, err := c.send(ctx, r, attempt, slot)
		if resp != nil {
			if err := c.stopMisconfigured(r, resp, res, give); err != nil {
				return resp, err
			}
			k.proven = k.proven || c.proves(r, resp)
		}
		if resp != nil && resp.Broken != "" {
			if again, err := c.brokenAnswer(ctx, k, attempt, resp, res); !again {
				return resp, err
			}
			continue
		}
		final, err := c.ended(k, resp, res, err)
		if final {
			return resp, err
		}
		if err := c.again(ctx, k, attempt, resp, err); err != nil {
			return resp, err
		}
	}
}

// call is one request on its way through its attempts.
type call struct {
	r      *request
	give   hand
	budget *Budget // the product's, for a paid endpoint; else nil
	broken *int    // the answers broken in transfer so far
	start  time.Time
	proven bool // an answer showed the product's configuration right (proves)
}

// reserve takes the credit of the next attempt of k (a paid call's,
// from its budget: nil for a free one), then its rate slot.
func (c *Client) reserve(ctx context.Context, k *call) (*Reservation, *Slot, error) {
	var res *Reservation
	if k.budget != nil {
		var err error
		if res, err = k.budget.reserveLocal(ctx); err != nil {
			return nil, nil, err
		}
	}
	slot, err := c.slotAndCredit(ctx, res)
	return res, slot, err
}

// brokenAnswer settles attempt n of k, a 2xx answer broken in transfer,
// hands it over and waits out the backoff when it is to be asked again
// (again); else it returns the error the call ends with.
//
// Paid for, perhaps: the server answered 2xx, and the answer is useless.
// It is asked again under the backoff, but fewer times than a 5xx
// (MaxBrokenAttempts, counted over the whole walk of a paged call): each
// ask is most likely charged. Only the last attempt is kept as the answer
// that stayed broken.
func (c *Client) brokenAnswer(ctx context.Context, k *call, n int, resp *rawResponse, res *Reservation) (again bool, err error) {
	settle(res, outcomeUnknown)
	err = &BrokenError{Endpoint: k.r.endpoint, Request: resp.Request, Reason: resp.Broken}
	*k.broken++
	wait := c.retry.Backoff(n)
	resp.Retried = !resp.final && ctx.Err() == nil && c.retry.AllowsBroken(*k.broken) && c.retry.Allows(n+1, c.clock.Now().Add(wait).Sub(k.start))
	if !k.give(resp) {
		return false, errStopped
	}
	if !resp.Retried {
		return false, giveUp(err, n)
	}
	if err := c.clock.Sleep(ctx, wait); err != nil {
		return false, giveUp(err, n)
	}
	return true, nil
}

// ended settles the credit of an attempt of k that brought resp, whole
// (a 2xx or an error status), or none (err says why), and hands resp
// over. It returns the attempt's error, and whether the call ends with
// it: a 2xx, a consumer that stopped, a request the client's setup
// refused (refusedSetup) end it; an error status or a failed transport
// may be tried again.
func (c *Client) ended(k *call, resp *rawResponse, res *Reservation, err error) (final bool, _ error) {
	if resp == nil {
		if mis, o := c.refusedSetup(k.r, err); mis != nil {
			settle(res, o)
			c.probes.halt(k.r.product, mis)
			return true, mis
		}
		settle(res, transportOutcome(err))
		return false, err
	}
	if resp.OK() {
		settle(res, outcomeCharged)
		if !k.give(resp) {
			return true, errStopped
		}
		return true, resp.nextErr
	}
	settle(res, outcomeNotCharged)
	if !k.give(resp) {
		return true, errStopped
	}
	apiErr := newAPIError(&resp.Received)
	apiErr.RetryIn = resp.retryIn
	if resp.Status == http.StatusForbidden && (k.budget != nil || quotaReached(apiErr, resp.Body)) {
		// A free call's 403 (the balance read) stops the paid
		// calls too when it says the quota is spent.
		c.Budget(k.r.product).Exhaust(apiErr.Error())
	}
	return false, apiErr
}

// again waits before attempt n+1 of k, after attempt n failed with err
// (resp: its answer, nil when none came), and returns nil when the
// attempt is to be made; else the error the call ends with.
func (c *Client) again(ctx context.Context, k *call, n int, resp *rawResponse, err error) error {
	if ctx.Err() != nil || !Retryable(err) {
		return giveUp(err, n)
	}
	if resp != nil && (resp.Status == http.StatusTooManyRequests || resp.Status == http.StatusServiceUnavailable && resp.retryIn > 0) {
		// The limiter holds every request of the key until the pause
		// ends, this one included: no sleep here. RFC 9110 §10.2.3:
		// "When sent with a 503 (Service Unavailable) response,
		// Retry-After indicates how long the service is expected to
		// be unavailable to the client": the whole key waits, as
		// after a 429.
		wait := c.pauseAfter429(resp, n)
		if !c.retry.Allows(n+1, c.clock.Now().Add(wait).Sub(k.start)) {
			return giveUp(err, n)
		}
		return nil
	}
	wait := c.retry.Backoff(n)
	if !c.retry.Allows(n+1, c.clock.Now().Add(wait).Sub(k.start)) {
		return giveUp(err, n)
	}
	if err := c.clock.Sleep(ctx, wait); err != nil {
		return giveUp(err, n)
	}
	return nil
}

// stopMisconfigured halts r's product when resp shows it misconfigured
// (misconfigured, errorIn2xx), settling res and handing resp over, and
// returns the error the call ends with; nil when resp shows nothing of
// the kind.
func (c *Client) stopMisconfigured(r *request, resp *rawResponse, res *Reservation, give hand) error {
	mis := c.misconfigured(r, resp)
	if mis == nil {
		mis = c.errorIn2xx(r, resp)
	}
	if mis == nil {
		return nil
	}
	if resp.OK() {
		settle(res, outcomeUnknown)
	} else {
		settle(res, outcomeNotCharged)
	}
	if !give(resp) {
		return errStopped
	}
	c.probes.halt(r.product, mis)
	return mis
}

// probe enters the gates a call of r waits for (gates), one after the
// other, and returns those it probes: it is their first call since they
// were last proven or halted.
func (c *Client) probe(ctx context.Context, r *request) ([]wire.Product, error) {
	var probed []wire.Product
	for _, gate := range c.gates(r) {
		probing, err := c.probes.enter(ctx, gate)
		if err != nil {
			return probed, err
		}
		if probing {
			probed = append(probed, gate)
		}
	}
	return probed, nil
}

// endProbes tells each gate probed how the call ended, and returns the
// call's error: a first 404 of a product not yet proven is checked
// against its current period first (checkBase), which proves the URL or
// stops it with the misconfiguration it returns.
func (c *Client) endProbes(ctx context.Context, r *request, probed []wire.Product, raw *rawResponse, proven bool, err error) error {
	if len(probed) == 0 {
		return err
	}
	if !proven && errors.Is(err, ErrNotFound) && raw != nil && probed[0] == r.product {
		var mis *MisconfigError
		if proven, mis = c.checkBase(ctx, r, raw); mis != nil {
			err = mis
		}
	}
	var halted error
	if errors.Is(err, ErrMisconfigured) {
		halted = err
	}
	for _, gate := range probed {
		c.probes.done(gate, proven, halted)
	}
	return err
}

// slotAndCredit waits for the request's rate slot, then takes its credit
// res from the shared ledger (Reservation.share), so that the other
// processes of the key see a credit taken only for a request about to
// leave. A ledger that made it wait (the cap reached with credits in
// flight elsewhere) leaves a slot granted long ago: a fresh one is asked,
// the old one expiring unused. On an error res is returned.
func (c *Client) slotAndCredit(ctx context.Context, res *Reservation) (*Slot, error) {
	slot, err := c.limiter.Acquire(ctx)
	if err != nil {
		settle(res, outcomeNotSent)
		return nil, err
	}
	asked := c.clock.Now()
	if err := res.share(ctx); err != nil {
		return nil, err
	}
	if c.clock.Now().Sub(asked) <= c.limiter.Rate().Window/staleSlot {
		return slot, nil
	}
	if slot, err = c.limiter.Acquire(ctx); err != nil {
		settle(res, outcomeNotSent)
		return nil, err
	}
	return slot, nil
}

// staleSlot: a slot granted more than a window/staleSlot before its
// request leaves is asked again, so that the grant the coordinator keeps
// is never older than its window when the request arrives.
const staleSlot = 10

// pauseAfter429 pauses the whole key — in every goroutine and every process
// sharing the limiter — until the server's Retry-After (of a 429, or of a
// 503 that gave one), or else until our window frees or the backoff
// elapses, whichever is later, and returns how long that is.
func (c *Client) pauseAfter429(raw *rawResponse, attempt int) time.Duration {
	now := c.clock.Now()
	until := now.Add(raw.retryIn)
	if raw.retryIn <= 0 {
		until = c.limiter.WindowFreesAt()
		if b := now.Add(c.retry.Backoff(attempt)); b.After(until) {
			until = b
		}
	}
	// A failure to persist the pause only weakens the sharing with other
	// processes; this process still waits below.
	_ = c.limiter.Pause(until)
	return until.Sub(now)
}

func giveUp(err error, attempt int) error {
	if attempt > 1 {
		return fmt.Errorf("%w (gave up after %d attempts)", err, attempt)
	}
	return err
}

// proves tells whether resp, an answer to r that is not misconfigured,
// shows the product's configuration right: a whole 2xx, or an error in
// the product's own error shape other than 404. A 404 in that shape is
// what a server of the service answers to any path it does not serve as
// well as to a port without schedule: it proves nothing (checkBase).
func (c *Client) proves(r *request, resp *rawResponse) bool {
	if resp.OK() {
		return resp.Broken == ""
	}
	if resp.Status == http.StatusNotFound {
		return false
	}
	if r.product == wire.ProductSchedule && c.cfg.ScheduleAPI == wire.ScheduleAPIDCSA {
		_, ok := wire.DCSAErrorMessage(resp.Body)
		return ok
	}
	return wire.IsErrorBody(resp.Body)
}

// send makes one attempt. It returns a response, or an error when there is
// none (nothing arrived, or the body could not be read whole). The
// limiter's slot is moved to when the request was written, then to when
// the answer's first byte arrived: the server counted the request in
// between, and on a loaded machine that can be far later than the write
// (a server held back 232 ms, past the margin, let a 429 through). From
// the first byte on, no later request of the key can reach the server
// inside the window that counted this one.
func (c *Client) send(ctx context.Context, r *request, attempt int, slot *Slot) (*rawResponse, error) {
	// The first byte's time is only noted in the transport's goroutine
	// (which hands the response over after it): the slot moves here.
	var firstByte time.Time
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { _ = slot.Sent(c.clock.Now()) },
		GotFirstResponseByte: func() { firstByte = c.clock.Now() },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url.String(), nil)
	if err != nil {
		return nil, err
	}
	c.cfg.Auth.set(req.Header, c.cfg.Key.secret)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	// The request as landed and named in errors: a next page's link may
	// carry whatever the server put in it, the key included.
	uri := c.cfg.Key.RedactString(r.url.RequestURI())
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &TransportError{Endpoint: r.endpoint, Request: uri, Err: stripURL(err)}
	}
	defer resp.Body.Close()
	if !firstByte.IsZero() {
		_ = slot.Sent(firstByte)
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	// An answer the client cannot decode is kept as it came, broken, and
	// not asked again: the same ask would bring the same coding.
	refused := decodeBody(resp)
	b, err := c.readBody(resp)
	broken := ""
	switch {
	case b == nil:
		return nil, &TransportError{Endpoint: r.endpoint, Request: uri, Err: err, Sent: true}
	case err != nil && ok:
		// Kept as the answer that broke, should it stay broken.
		broken = brokenBody(b.n, resp.ContentLength, err)
	case err != nil:
		b.remove()
		return nil, &TransportError{Endpoint: r.endpoint, Request: uri, Err: err, Sent: true}
	}
	if b.n > b.limit {
		b.remove()
		return nil, &TransportError{Endpoint: r.endpoint, Request: uri, Err: fmt.Errorf("body larger than %d bytes refused", b.limit), Sent: true}
	}
	body := b.data
	if !b.redacted {
		body = c.cfg.Key.redact(body)
	}
	now := c.clock.Now()
	raw := &rawResponse{Received: response.Received{
		Product:   r.product,
		Endpoint:  r.endpoint,
		Request:   uri,
		Status:    resp.StatusCode,
		FetchedAt: now,
		Body:      body,
		File:      b.file,
		Attempt:   attempt,
		Broken:    broken,
	}, contentType: resp.Header.Get("Content-Type")}
	raw.html = isHTML(raw.contentType)
	if ok && broken == "" {
		c.judge(raw, b, refused)
	}
	var date time.Time
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		date = d.UTC()
		raw.DateHeader = &date
	}
	if ok && raw.Broken == "" {
		c.followNext(r, resp.Header, raw, uri)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		raw.retryIn = parseRetryAfter(resp.Header.Get("Retry-After"), date, now)
	}
	return raw, nil
}

// judge says, in raw.Broken, why a 2xx answer that arrived whole is no
// answer: a coding or charset the client cannot decode (refused, then
// not asked again), JSON that does not parse, or an error sent with a
// success status. A body read back from its file is judged as landed,
// redacted: it differs from the one received only where a form of the
// key stood outside a JSON string.
func (c *Client) judge(raw *rawResponse, b *body, refused string) {
	switch {
	case refused != "":
		raw.Broken, raw.final = refused, true
	case raw.Status == http.StatusNoContent:
	case b.file != nil:
		raw.Broken = b.broken
	case !json.Valid(b.data):
		raw.Broken = invalidJSON(b.data)
	default:
		if said, isErr := errorInAnswer(raw.Body); isErr {
			raw.said = said
			raw.Broken = "an error where an answer is wanted, sent with a success status: the provider said " + c.quoteSaid(said)
		}
	}
}

// followNext finds the next page of an answer (a body in a file is not
// read: only headers name its next page) and checks it against the walk
// so far. A walk that stops is landed saying so, in raw.PagingStop, so
// that the next job does not take the resource for answered.
func (c *Client) followNext(r *request, header http.Header, raw *rawResponse, uri string) {
	next, err := c.nextPage(r, header, raw.Body)
	if next != nil {
		// Landed with the response: never the key, whatever the
		// server put in a cursor.
		raw.NextPage = string(c.cfg.Key.redact([]byte(next.url.RequestURI())))
		raw.next = next
		err = r.checkNext(next, raw.Body, c.cfg.MaxPages)
	}
	if err != nil {
		var pe *PagingError
		if errors.As(err, &pe) {
			pe.Request = uri // never the key
			raw.PagingStop = pe.Reason + ": " + c.cfg.Key.RedactString(pe.Detail)
		}
		raw.next = nil
	}
	raw.nextErr = err
}

// parseRetryAfter reads Retry-After as delay-seconds or an HTTP date
// (relative to the response's Date when present); 0 when absent or invalid.
func parseRetryAfter(h string, date, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(h); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	t, err := http.ParseTime(h)
	if err != nil {
		return 0
	}
	ref := now
	if !date.IsZero() {
		ref = date
	}
	if d := t.Sub(ref); d > 0 {
		return d
	}
	return 0
}

// brokenBody says how a 2xx body broke off after n bytes: short of its
// Content-Length (length, -1 when unknown), or read error err.
func brokenBody(n, length int64, err error) string {
	var de *decodeError
	if errors.As(err, &de) {
		return fmt.Sprintf("the body does not decode after %d bytes: %v", n, de)
	}
	if length >= 0 && n < length {
		return fmt.Sprintf("body ended after %d of the %d bytes of its Content-Length (%v)", n, length, err)
	}
	return fmt.Sprintf("the connection broke after %d bytes of the body (%v)", n, err)
}

// invalidJSON says where a 2xx body that is not JSON stops being JSON: a
// truncated answer ends early, a corrupted one breaks in the middle.
func invalidJSON(body []byte) string {
	var v any
	err := json.Unmarshal(body, &v)
	var se *json.SyntaxError
	switch {
	case len(body) == 0:
		return "an empty body where JSON is wanted"
	case errors.As(err, &se):
		return fmt.Sprintf("the body of %d bytes is not JSON: %v at byte %d", len(body), se, se.Offset)
	case err != nil:
		return fmt.Sprintf("the body of %d bytes is not JSON: %v", len(body), err)
	}
	return fmt.Sprintf("the body of %d bytes is not JSON", len(body))
}

// KeyID is the key's fingerprint (Key.Fingerprint): a name for the key
// in figures and logs that never reveals it.
func (c *Client) KeyID() string { return c.cfg.Key.Fingerprint() }
