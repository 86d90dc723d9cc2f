package webhook

import (
	"errors"
	"net/http"
)

// Sentinels of the package: why a delivery was refused. Each maps to one
// HTTP status (Status).
var (
	// ErrUnsigned: a webhook-id, webhook-timestamp or webhook-signature
	// header is missing.
	ErrUnsigned = errors.New("not signed: a webhook-id, webhook-timestamp or webhook-signature header is missing")
	// ErrMalformed: a header is not as the standard writes it (an id with
	// a full stop, a timestamp that is not whole seconds).
	ErrMalformed = errors.New("malformed webhook headers")
	// ErrSignature: no signature of the header is the body's under the
	// secret: another secret signed it, or the body or headers changed.
	ErrSignature = errors.New("no signature matches the secret")
	// ErrStale: the message was signed more than the tolerance before or
	// after now (a replay, or a clock off).
	ErrStale = errors.New("timestamp outside the tolerance")
	// ErrReplayed: this message — its id and timestamp — was received
	// before, within the tolerance.
	ErrReplayed = errors.New("replayed: this webhook-id and webhook-timestamp were received before")
	// ErrInFlight: a delivery of the same id is being landed right now.
	ErrInFlight = errors.New("a delivery of this webhook-id is being landed")
	// ErrMethod, ErrContentType, ErrTooLarge: not a webhook POST.
	ErrMethod      = errors.New("method not allowed: webhooks are POSTed")
	ErrContentType = errors.New("unsupported content type: want application/json")
	ErrTooLarge    = errors.New("body larger than the receiver's bound")
	// ErrUnprocessable: verified, but not a body the receiver keeps (a
	// Deliver returns it wrapped: not the vendor's container details).
	ErrUnprocessable = errors.New("not a body this receiver keeps")
	// ErrShuttingDown: the receiver is stopping and takes no more.
	ErrShuttingDown = errors.New("the receiver is shutting down")
)

// Status is the HTTP status a refusal is answered with: 4xx for what the
// same request would meet again, 503 for what a retry may get through
// (the sender retries any non-2xx).
func Status(err error) int {
	switch {
	case err == nil:
		return http.StatusNoContent
	case errors.Is(err, ErrMethod):
		return http.StatusMethodNotAllowed
	case errors.Is(err, ErrContentType):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, ErrUnsigned), errors.Is(err, ErrMalformed), errors.Is(err, ErrStale):
		return http.StatusBadRequest
	case errors.Is(err, ErrSignature):
		return http.StatusForbidden
	case errors.Is(err, ErrReplayed), errors.Is(err, ErrInFlight):
		return http.StatusConflict
	case errors.Is(err, ErrUnprocessable):
		return http.StatusUnprocessableEntity
	}
	return http.StatusServiceUnavailable
}
