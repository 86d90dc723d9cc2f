package extract

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/etalake/etalake/wire"
)

// TransportError is an attempt that got no complete response: the
// connection failed, timed out or broke while the body was read.
type TransportError struct {
	Endpoint wire.Endpoint
	Request  string // path and query, never the key
	Err      error
	// Sent is true when the request certainly reached the server (the
	// status line arrived); a paid request may then have been charged.
	Sent bool
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("%s %s: %v", e.Endpoint, e.Request, e.Err)
}

// Is makes every TransportError match ErrTransport.
func (e *TransportError) Is(target error) bool { return target == ErrTransport }

// Unwrap returns the cause (a net.Error for timeouts).
func (e *TransportError) Unwrap() error { return e.Err }

// stripURL drops the *url.Error wrapper, whose text repeats the whole URL;
// the TransportError already names the request.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// outcome is what an attempt did to the credit it reserved.
type outcome int

const (
	outcomeNotSent    outcome = iota // never left this process
	outcomeNotCharged                // an error status: failed calls are free
	outcomeCharged                   // a 2xx
	outcomeUnknown                   // sent, no answer: possibly charged
)

// transportOutcome tells whether a failed attempt may have been charged:
// only a failure to connect proves the server never saw it.
func transportOutcome(err error) outcome {
	var te *TransportError
	if errors.As(err, &te) && te.Sent {
		return outcomeUnknown
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return outcomeNotSent
	}
	return outcomeUnknown
}

// settle applies an outcome to a reservation (nil for free calls).
func settle(r *Reservation, o outcome) {
	if r == nil {
		return
	}
	switch o {
	case outcomeCharged:
		r.Commit()
	case outcomeUnknown:
		r.Uncertain()
	default:
		r.Release()
	}
}
