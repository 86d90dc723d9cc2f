package extract

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// Sentinels for the service's statuses. An *APIError unwraps to exactly one
// of them; callers use errors.Is and never look at HTTP codes.
var (
	ErrBadRequest   = errors.New("request rejected as invalid (400)")
	ErrUnauthorized = errors.New("authentication failed (401): check the API key")
	ErrForbidden    = errors.New("forbidden (403): credit quota reached or key without access to the product")
	ErrNotFound     = errors.New("no data for the requested resource (404)")
	ErrRateLimited  = errors.New("rate limit exceeded (429)")
	ErrServer       = errors.New("server error (5xx)")
	ErrUnexpected   = errors.New("unexpected response status")
)

// Sentinels raised before or instead of a request.
var (
	// ErrInvalidInput wraps every validation failure (*InputError).
	ErrInvalidInput = errors.New("invalid input")
	// ErrNoURL: the call is to a product whose base URL is not set
	// (Config.ScheduleURL or TrackingURL); it failed before the limiter
	// and the budget, nothing waited for or spent.
	ErrNoURL = errors.New("no base URL is set for the product")
	// ErrBudgetSpent: the run's credit cap for the product is reached; the
	// request was not sent.
	ErrBudgetSpent = errors.New("credit budget spent")
	// ErrQuotaExhausted: the server answered 403 to a paid call of this
	// product earlier in the run; the request was not sent.
	ErrQuotaExhausted = errors.New("credit quota exhausted for this run")
	// ErrDecode is wire.ErrDecode: a body the client decodes itself (a
	// current period, for its budget) arrived but does not have the
	// documented shape. Re-exported so callers of the client need not
	// import wire.
	ErrDecode = wire.ErrDecode
	// ErrTooLarge: a 2xx body arrived larger than Config.MaxDecode: it was
	// yielded whole (in its file), and the call went no further.
	ErrTooLarge = errors.New("response body too large to decode")
	// ErrTransport: the request failed without an HTTP response (timeout,
	// connection reset) after every retry.
	ErrTransport = errors.New("transport failure")
	// ErrBroken: a 2xx answer did not arrive whole (Received.Broken) on
	// any attempt. Every attempt was yielded; the last is not an answer.
	ErrBroken = errors.New("answer broken in transfer")
)

// BrokenError is a 2xx answer that did not arrive whole on any attempt
// (ErrBroken): the request (path and query, never the key) and why the
// last attempt's body is no answer (Received.Broken).
type BrokenError struct {
	Endpoint wire.Endpoint
	Request  string
	Reason   string
}

func (e *BrokenError) Error() string {
	return fmt.Sprintf("%s %s: %v: %s", e.Endpoint, e.Request, ErrBroken, e.Reason)
}

// Unwrap makes every BrokenError match ErrBroken.
func (e *BrokenError) Unwrap() error { return ErrBroken }

// APIError is a non-2xx answer of the service.
type APIError struct {
	Status   int
	Code     int    // errorCode of the body; 0 when the body was not an error body
	Message  string // message of the body, or the HTTP status text
	Details  []json.RawMessage
	Time     time.Time // time of the body; zero when absent
	Endpoint wire.Endpoint
	Request  string        // path and query, never the key
	RetryIn  time.Duration // Retry-After of a 429, when given
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %d", e.Endpoint, e.Request, e.Status)
	if e.Message != "" {
		fmt.Fprintf(&b, " %s", e.Message)
	}
	if len(e.Details) > 0 {
		var parts []string
		for _, d := range e.Details {
			parts = append(parts, shorten(string(d), 60))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, "; "))
	}
	return b.String()
}

// Unwrap returns the sentinel of the status.
func (e *APIError) Unwrap() error { return statusSentinel(e.Status) }

func statusSentinel(status int) error {
	switch {
	case status == http.StatusBadRequest:
		return ErrBadRequest
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusForbidden:
		return ErrForbidden
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500:
		return ErrServer
	}
	return ErrUnexpected
}

// newAPIError builds the error of a non-2xx response, reading the documented
// error body when there is one.
func newAPIError(raw *response.Received) *APIError {
	e := &APIError{Status: raw.Status, Endpoint: raw.Endpoint, Request: raw.Request}
	var body wire.ErrorBody
	if err := json.Unmarshal(raw.Body, &body); err == nil && (body.ErrorCode != 0 || body.Message != "") {
		e.Code, e.Message, e.Details, e.Time = body.ErrorCode, body.Message, body.Details, body.Time
	} else if msg, ok := wire.DCSAErrorMessage(raw.Body); ok {
		e.Message = msg
	} else {
		e.Message = http.StatusText(raw.Status)
	}
	return e
}

// InputError is a value we refuse to send.
type InputError struct {
	Field string // what the value is, e.g. "port code"
	Value string
	Want  string // what would have been accepted
}

func (e *InputError) Error() string {
	return fmt.Sprintf("invalid %s %q: want %s", e.Field, e.Value, e.Want)
}

// Unwrap makes every InputError match ErrInvalidInput.
func (e *InputError) Unwrap() error { return ErrInvalidInput }

// shorten cuts s to at most n bytes for an error message.
func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
