package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// RetryPolicy bounds the retries of one request. The client runs the loop:
// after a failed attempt n whose error is Retryable, it waits Backoff(n) —
// or, for a 429, until the limiter's pause ends — and starts attempt n+1 if
// Allows(n+1, time since the first attempt started).
//
// A 2xx answer broken in transfer (ErrBroken) is bounded apart, by
// MaxBrokenAttempts: unlike a 5xx, a 429 or a timeout, it was most likely
// charged, so each retry is a credit more. A call whose answer comes in
// pages counts the broken answers of all its pages together: the bound is
// per call, so per resource and job.
type RetryPolicy struct {
	MaxAttempts int // total attempts, the first included; default 6
	// MaxBrokenAttempts bounds the 2xx answers broken in transfer one call
	// takes: at most MaxBrokenAttempts−1 of them are asked again (each a
	// paid ask, counted as possibly charged), within MaxAttempts and
	// MaxElapsed; default 3, so at most 2 extra paid asks.
	MaxBrokenAttempts int
	MaxElapsed        time.Duration // no attempt starts later than this after the first; default 2m
	BaseDelay         time.Duration // ceiling of the first backoff; default 500ms
	MaxDelay          time.Duration // largest ceiling of a backoff; default 30s
	// Rand returns a number in [0,1) for the jitter; nil means
	// math/rand/v2's Float64. Tests inject a fixed one.
	Rand func() float64
}

// DefaultMaxBrokenAttempts is RetryPolicy.MaxBrokenAttempts's default: a
// broken answer is asked twice more, then kept as broken.
const DefaultMaxBrokenAttempts = 3

// DefaultRetryPolicy returns 6 attempts within 2 minutes, backing off from
// 500ms up to 30s, of which at most 3 end in an answer broken in transfer.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 6, MaxBrokenAttempts: DefaultMaxBrokenAttempts, MaxElapsed: 2 * time.Minute,
		BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second}
}

// Validate reports every field out of range: MaxAttempts or
// MaxBrokenAttempts below 1, a MaxElapsed or BaseDelay not above 0, a
// MaxDelay below BaseDelay.
func (p RetryPolicy) Validate() error {
	var bad []string
	if p.MaxAttempts < 1 {
		bad = append(bad, fmt.Sprintf("MaxAttempts %d: want at least 1", p.MaxAttempts))
	}
	if p.MaxBrokenAttempts < 1 {
		bad = append(bad, fmt.Sprintf("MaxBrokenAttempts %d: want at least 1", p.MaxBrokenAttempts))
	}
	if p.MaxElapsed <= 0 {
		bad = append(bad, fmt.Sprintf("MaxElapsed %v: want more than 0", p.MaxElapsed))
	}
	if p.BaseDelay <= 0 {
		bad = append(bad, fmt.Sprintf("BaseDelay %v: want more than 0", p.BaseDelay))
	}
	if p.MaxDelay < p.BaseDelay {
		bad = append(bad, fmt.Sprintf("MaxDelay %v: want at least BaseDelay %v", p.MaxDelay, p.BaseDelay))
	}
	if len(bad) > 0 {
		return fmt.Errorf("invalid retry policy: %s", strings.Join(bad, "; "))
	}
	return nil
}

// Backoff returns the wait after attempt number attempt (1 for the first)
// failed, with full jitter: a uniform random duration in
// [0, min(MaxDelay, BaseDelay·2^(attempt-1))). Spreading the whole range,
// rather than jittering around the ceiling, keeps clients that failed
// together from retrying together. An attempt below 1 counts as 1.
func (p RetryPolicy) Backoff(attempt int) time.Duration {
	ceiling := p.BaseDelay
	if ceiling <= 0 || p.MaxDelay <= 0 {
		return 0
	}
	for i := 1; i < attempt && ceiling < p.MaxDelay; i++ {
		if ceiling > p.MaxDelay/2 {
			ceiling = p.MaxDelay
			break
		}
		ceiling *= 2
	}
	ceiling = min(ceiling, p.MaxDelay)
	random := p.Rand
	if random == nil {
		random = rand.Float64
	}
	f := random()
	if !(f > 0) { // also NaN
		return 0
	}
	return min(time.Duration(f*float64(ceiling)), ceiling)
}

// Allows reports whether attempt number next (2 for the first retry) may
// start sinceFirst after the first attempt started: next is at most
// MaxAttempts and sinceFirst at most MaxElapsed.
func (p RetryPolicy) Allows(next int, sinceFirst time.Duration) bool {
	return next <= p.MaxAttempts && sinceFirst <= p.MaxElapsed
}

// AllowsBroken reports whether a call whose answers broke in transfer
// broken times so far may ask again: broken is below MaxBrokenAttempts.
// The attempt and time bounds of Allows apply besides.
func (p RetryPolicy) AllowsBroken(broken int) bool {
	return broken < p.MaxBrokenAttempts
}

// Retryable reports whether a failed attempt may be tried again.
//
// Retryable: an *APIError with status 429 or 5xx (and the sentinels
// ErrRateLimited, ErrServer), ErrTransport, network timeouts (any net.Error
// whose Timeout() is true, such as http.Client.Timeout or a per-attempt
// deadline), connection resets and aborts, broken pipes, ETIMEDOUT,
// temporary DNS failures, io.ErrUnexpectedEOF and io.EOF (a connection
// closed before or while the response was read). ECONNREFUSED is retried
// too: nothing was sent, so nothing was charged, and a service restarting
// behind its load balancer refuses connections for a moment; the attempt
// and time bounds keep a wrong address from being retried for long.
//
// Not retryable: nil, other statuses (400, 401, 403, 404, …), ErrDecode, ErrTooLarge,
// ErrMisconfigured (a redirect refused, a certificate not trusted), ErrBudgetSpent, ErrQuotaExhausted, ErrInvalidInput, context.Canceled
// and a bare context.DeadlineExceeded. Retryable cannot see the caller's
// context: a transport error wrapping the caller's own expired deadline
// looks like any timeout, so the caller checks ctx.Err() before retrying.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	for _, never := range []error{ErrDecode, ErrTooLarge, ErrBudgetSpent, ErrQuotaExhausted, ErrInvalidInput, ErrCoordinatorLost, ErrMisconfigured} {
		if errors.Is(err, never) {
			return false
		}
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.Status == http.StatusTooManyRequests || apiErr.Status >= 500
	}
	if errors.Is(err, ErrRateLimited) || errors.Is(err, ErrServer) || errors.Is(err, ErrTransport) || errors.Is(err, ErrBroken) {
		return true
	}
	// context.DeadlineExceeded is itself a net.Error with Timeout() true:
	// only a timeout reported by the transport counts.
	var netErr net.Error
	if errors.As(err, &netErr) && netErr != context.DeadlineExceeded && netErr.Timeout() {
		return true
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTemporary || dnsErr.IsTimeout
	}
	for _, transient := range []error{
		syscall.ECONNRESET, syscall.ECONNABORTED, syscall.ECONNREFUSED, syscall.EPIPE, syscall.ETIMEDOUT,
		io.ErrUnexpectedEOF, io.EOF,
	} {
		if errors.Is(err, transient) {
			return true
		}
	}
	return false
}
