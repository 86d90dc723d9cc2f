package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrDecode matches every body that does not have the documented shape.
var ErrDecode = errors.New("response body does not decode")

// ErrorBody is the body of every error response (service.md §7).
type ErrorBody struct {
	ErrorCode int               `json:"errorCode"`
	Message   string            `json:"message"`
	Details   []json.RawMessage `json:"details"`
	Time      time.Time         `json:"time"`
}

// DecodeError is a body that did not decode.
type DecodeError struct {
	What string
	Err  error
}

func (e *DecodeError) Error() string { return fmt.Sprintf("decode %s: %v", e.What, e.Err) }

// Is makes every DecodeError match ErrDecode.
func (e *DecodeError) Is(target error) bool { return target == ErrDecode }

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

func decodeError(what string, err error) error { return &DecodeError{What: what, Err: err} }

// IsErrorBody reports whether body is the service's error body (service.md
// §7): an object with a numeric errorCode and a message. A web server's
// page, a gateway's {"message": …} or another standard's error is not.
func IsErrorBody(body []byte) bool {
	var e struct {
		ErrorCode *int    `json:"errorCode"`
		Message   *string `json:"message"`
	}
	return json.Unmarshal(body, &e) == nil && e.ErrorCode != nil && *e.ErrorCode != 0 && e.Message != nil
}
