package extract

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sync"

	"github.com/etalake/etalake/wire"
)

// ErrMisconfigured: a product answered as no server of its contract does —
// a 404 from a DCSA provider (the standard defines 200, 400 and 500), a
// 404 from a consumption endpoint (always there), a 404 from a product
// whose URL never proved right and whose consumption endpoint answers 404
// too, or an error in a body that is not the product's error shape (a web
// server's HTML page, a gateway's) — or it could not be asked at all for a
// reason no retry mends: a redirect the client refuses, a TLS certificate
// it does not trust (setup.go). The base URL, the path templates, the
// schedule API profile or the machine's trusted CAs are wrong. The product
// is stopped at once: no further request of it is sent in the client's
// life. The error is a *MisconfigError.
var ErrMisconfigured = errors.New("the URL or the profile of the product looks wrong")

// MisconfigError is the answer that showed a product misconfigured.
type MisconfigError struct {
	Product wire.Product
	// Profile is the schedule API profile (schedule product only).
	Profile wire.ScheduleAPI
	// URL is what was asked: scheme, host, path and query, never the key.
	URL string
	// Status is the answer's; 0 when none came (Err says why).
	Status int
	Got    string // what came back, for a person
	Why    string // why no server of the contract answers that; or why no answer came, and the remedy
	// Err is the sentinel of why no answer came (ErrRedirectRefused,
	// ErrUntrusted); nil when one did.
	Err error
}

func (e *MisconfigError) Error() string {
	profile := ""
	if e.Product == wire.ProductSchedule {
		profile = fmt.Sprintf(" (schedule API %s)", e.Profile)
	}
	if e.Status == 0 {
		return fmt.Sprintf("the %s product%s could not be asked GET %s: %s; no retry mends that, and nothing more is asked of it",
			e.Product, profile, e.URL, e.Why)
	}
	return fmt.Sprintf("the %s product%s answered GET %s with %d and %s: %s; the product's URL, its paths or its profile are wrong, and nothing more is asked of it",
		e.Product, profile, e.URL, e.Status, e.Got, e.Why)
}

// Unwrap makes every MisconfigError match ErrMisconfigured, and its Err
// (ErrRedirectRefused, ErrUntrusted) when it has one.
func (e *MisconfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrMisconfigured, e.Err}
	}
	return []error{ErrMisconfigured}
}

// misconfigured tells whether resp, an answer to r, shows the product
// misconfigured, and how.
func (c *Client) misconfigured(r *request, resp *rawResponse) *MisconfigError {
	got := describeBody(resp)
	e := &MisconfigError{Product: r.product, URL: c.cfg.Key.RedactString(r.url.Scheme + "://" + r.url.Host + resp.Request), Status: resp.Status, Got: got}
	if r.product == wire.ProductSchedule {
		e.Profile = c.cfg.ScheduleAPI
	}
	ok := resp.Status >= 200 && resp.Status < 300
	switch {
	case ok && resp.html && resp.Broken != "":
		e.Why = "a web page where a JSON answer is wanted"
	case resp.Status != http.StatusNotFound:
		return nil
	case r.product == wire.ProductSchedule && c.cfg.ScheduleAPI == wire.ScheduleAPIDCSA:
		e.Why = "DCSA Commercial Schedules answers 200 (an empty array when there is no data), 400 or 500, never 404"
	case r.endpoint == wire.EndpointCurrentPeriod || r.endpoint == wire.EndpointPeriods:
		// service.md §4 lists GET /consumption/current-period with its
		// answer, the consumption period object, and no 404: it is there
		// for every key, whatever was bought.
		e.Why = "the consumption endpoints are always there under the product's base URL, so a 404 from one is a base URL that is not the product's"
	case wire.IsErrorBody(resp.Body):
		return nil // the service's own "no data" (service.md §7)
	default:
		e.Why = "the service says \"no data\" with its error body (errorCode, message), and this is not one"
	}
	return e
}

// describeBody says what a body is, for a person: its media type and size,
// never its content (it may echo anything).
func describeBody(resp *rawResponse) string {
	n := resp.BodySize()
	switch {
	case n == 0:
		return "an empty body"
	case resp.html:
		return fmt.Sprintf("a web page (%d bytes of HTML)", n)
	case wire.IsErrorBody(resp.Body):
		return "the service's error body"
	}
	if _, ok := wire.DCSAErrorMessage(resp.Body); ok {
		return "a DCSA error response"
	}
	if mt, _, err := mime.ParseMediaType(resp.contentType); err == nil && mt == "text/plain" {
		return fmt.Sprintf("a plain-text page (%d bytes)", n)
	}
	ct := resp.contentType
	if ct == "" {
		ct = "no content type"
	}
	return fmt.Sprintf("a body of %d bytes (%s)", n, ct)
}

// isHTML reports whether a Content-Type is a web page's.
func isHTML(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
}

// probes gate each product until one answer proves its configuration:
// while none has, one request of the product is in flight at a time, so
// that a wrong URL or profile costs one request, not one per worker.
// Once a product is proven its requests go freely; once it is shown
// misconfigured, every later request fails at once with that error.
type probes struct {
	mu sync.Mutex
	by map[wire.Product]*probe
}

type probe struct {
	state  probeState
	halted error
	free   chan struct{} // closed when the probe in flight ends
}

type probeState int

const (
	probeUnknown probeState = iota
	probeInFlight
	probeProven
	probeHalted
)

func newProbes() *probes { return &probes{by: map[wire.Product]*probe{}} }

// enter waits until a request of product p may go: it returns probing
// true when this request is the product's probe (the caller must call
// done), or the error of a halted product.
func (ps *probes) enter(ctx context.Context, p wire.Product) (probing bool, err error) {
	for {
		ps.mu.Lock()
		pr := ps.by[p]
		if pr == nil {
			pr = &probe{}
			ps.by[p] = pr
		}
		switch pr.state {
		case probeProven:
			ps.mu.Unlock()
			return false, nil
		case probeHalted:
			ps.mu.Unlock()
			return false, pr.halted
		case probeUnknown:
			pr.state, pr.free = probeInFlight, make(chan struct{})
			ps.mu.Unlock()
			return true, nil
		}
		free := pr.free
		ps.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// done ends product p's probe: proven, halted with err, or neither (no
// answer told: the next request probes again). A product halted
// meanwhile stays halted.
func (ps *probes) done(p wire.Product, proven bool, halted error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pr := ps.by[p]
	switch {
	case pr.state == probeHalted:
	case halted != nil:
		pr.state, pr.halted = probeHalted, halted
	case proven:
		pr.state = probeProven
	default:
		pr.state = probeUnknown
	}
	close(pr.free)
}

// halt stops product p for good with err, whatever its probe's state (a
// probe in flight still ends with done).
func (ps *probes) halt(p wire.Product, err error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	pr := ps.by[p]
	if pr == nil {
		pr = &probe{}
		ps.by[p] = pr
	}
	if pr.state != probeHalted {
		pr.state, pr.halted = probeHalted, err
	}
}

// checkBase tells, after r was answered 404 (raw) by a product no answer
// has proven yet, whether the product's base URL is right: a service
// answers its own error body with 404 to a path it does not serve (a base
// ending in /schedule/api/v2, the host's root) as it does to a port
// without schedule, so the 404 alone cannot tell. It asks the product's
// current period, free and always there (service.md §4), once: a whole
// 2xx proves the URL (the 404 is "no data"), a 404 shows it wrong (the
// returned *MisconfigError), anything else leaves the product unproven.
// The check's answer is the client's own, not the call's: it is not
// handed to the caller. Products without consumption endpoints (DCSA
// schedules, whose 404 is already misconfigured) are not checked.
func (c *Client) checkBase(ctx context.Context, r *request, raw *rawResponse) (proven bool, mis *MisconfigError) {
	if r.endpoint == wire.EndpointCurrentPeriod || r.endpoint == wire.EndpointPeriods || c.hasConsumption(r.product) != nil || ctx.Err() != nil {
		return false, nil
	}
	check, err := c.newRequest(r.product, wire.EndpointCurrentPeriod, nil, nil)
	if err != nil {
		return false, nil
	}
	slot, err := c.limiter.Acquire(ctx)
	if err != nil {
		return false, nil
	}
	resp, err := c.send(ctx, check, 1, slot)
	if err != nil {
		return false, nil
	}
	if resp.Status != http.StatusNotFound {
		return c.proves(check, resp) && c.misconfigured(check, resp) == nil, nil
	}
	mis = &MisconfigError{Product: r.product, URL: c.cfg.Key.RedactString(r.url.Scheme + "://" + r.url.Host + raw.Request),
		Status: raw.Status, Got: describeBody(raw), Profile: c.cfg.ScheduleAPI,
		Why: fmt.Sprintf("no answer under this URL has been a success, and GET %s, always there, answered 404 too: the base URL is not the product's",
			c.cfg.Key.RedactString(check.url.Scheme+"://"+check.url.Host+resp.Request))}
	if r.product != wire.ProductSchedule {
		mis.Profile = ""
	}
	return false, mis
}
