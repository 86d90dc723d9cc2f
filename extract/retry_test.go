package extract_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

func TestDefaultRetryPolicy(t *testing.T) {
	p := extract.DefaultRetryPolicy()
	if p.MaxAttempts != 6 || p.MaxBrokenAttempts != 3 || p.MaxElapsed != 2*time.Minute || p.BaseDelay != 500*time.Millisecond || p.MaxDelay != 30*time.Second {
		t.Errorf("DefaultRetryPolicy() = %+v", p)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
}

func TestRetryPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		change func(*extract.RetryPolicy)
		want   string
	}{
		{func(p *extract.RetryPolicy) { p.MaxAttempts = 0 }, "MaxAttempts 0: want at least 1"},
		{func(p *extract.RetryPolicy) { p.MaxBrokenAttempts = -1 }, "MaxBrokenAttempts -1: want at least 1"},
		{func(p *extract.RetryPolicy) { p.MaxElapsed = 0 }, "MaxElapsed 0s: want more than 0"},
		{func(p *extract.RetryPolicy) { p.BaseDelay = -time.Second }, "BaseDelay -1s: want more than 0"},
		{func(p *extract.RetryPolicy) { p.MaxDelay = time.Millisecond }, "MaxDelay 1ms: want at least BaseDelay 500ms"},
	} {
		p := extract.DefaultRetryPolicy()
		tc.change(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v; want it to say %q", err, tc.want)
		}
	}
	if err := (extract.RetryPolicy{}).Validate(); err == nil || strings.Count(err.Error(), "want") != 4 {
		t.Errorf("Validate() of the zero policy = %v; want every bad field named", err)
	}
}

func TestBackoff(t *testing.T) {
	p := extract.DefaultRetryPolicy()
	p.Rand = func() float64 { return 0.5 }
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second, 15 * time.Second}
	for i, w := range want {
		if got := p.Backoff(i + 1); got != w {
			t.Errorf("Backoff(%d) with jitter 0.5 = %v; want %v", i+1, got, w)
		}
	}
	for _, attempt := range []int{0, -4} {
		if got := p.Backoff(attempt); got != 250*time.Millisecond {
			t.Errorf("Backoff(%d) = %v; want it treated as attempt 1", attempt, got)
		}
	}
	for _, attempt := range []int{64, 1000, 1 << 40} {
		if got := p.Backoff(attempt); got != 15*time.Second {
			t.Errorf("Backoff(%d) = %v; want half of MaxDelay", attempt, got)
		}
	}

	// The injected number spans [0, ceiling]; out-of-range ones are clamped.
	for _, tc := range []struct {
		r    float64
		want time.Duration
	}{{0, 0}, {-1, 0}, {0.75, 3 * time.Second}, {1, 4 * time.Second}, {7, 4 * time.Second}} {
		p.Rand = func() float64 { return tc.r }
		if got := p.Backoff(4); got != tc.want {
			t.Errorf("Backoff(4) with jitter %v = %v; want %v", tc.r, got, tc.want)
		}
	}

	// Without Rand: full jitter, within [0, ceiling], spread over the range.
	p.Rand = nil
	for attempt := 1; attempt <= 10; attempt++ {
		ceiling := min(p.MaxDelay, p.BaseDelay<<(attempt-1))
		lo, hi := ceiling, time.Duration(0)
		for range 2000 {
			d := p.Backoff(attempt)
			if d < 0 || d > ceiling {
				t.Fatalf("Backoff(%d) = %v; want within [0, %v]", attempt, d, ceiling)
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		if lo > ceiling/10 || hi < ceiling*9/10 {
			t.Errorf("Backoff(%d) ranged over [%v, %v]; want most of [0, %v]", attempt, lo, hi, ceiling)
		}
	}
}

func TestRetryPolicyAllows(t *testing.T) {
	p := extract.DefaultRetryPolicy()
	for _, tc := range []struct {
		next  int
		since time.Duration
		want  bool
	}{
		{2, 0, true},
		{6, 2 * time.Minute, true},
		{7, time.Second, false},
		{3, 2*time.Minute + 1, false},
	} {
		if got := p.Allows(tc.next, tc.since); got != tc.want {
			t.Errorf("Allows(%d, %v) = %v; want %v", tc.next, tc.since, got, tc.want)
		}
	}
}

func TestRetryableStatus(t *testing.T) {
	for status := 100; status <= 599; status++ {
		err := fmt.Errorf("fetch: %w", &extract.APIError{Status: status, Endpoint: wire.EndpointPortSchedule, Request: "/schedule/NLRTM"})
		want := status == http.StatusTooManyRequests || status >= 500
		if got := extract.Retryable(err); got != want {
			t.Errorf("Retryable(status %d) = %v; want %v", status, got, want)
		}
	}
}

func TestRetryableErrors(t *testing.T) {
	opErr := func(errno syscall.Errno) error {
		return &url.Error{Op: "Get", URL: "http://svc/x", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", errno)}}
	}
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"canceled", context.Canceled, false},
		{"canceled in transport", &url.Error{Op: "Get", URL: "http://svc/x", Err: context.Canceled}, false},
		{"canceled wrapped as transport", fmt.Errorf("%w: %w", extract.ErrTransport, context.Canceled), false},
		{"caller's deadline", context.DeadlineExceeded, false},
		{"caller's deadline wrapped", fmt.Errorf("port NLRTM: %w", context.DeadlineExceeded), false},
		{"deadline in transport", &url.Error{Op: "Get", URL: "http://svc/x", Err: context.DeadlineExceeded}, true},
		{"os deadline", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{"transport", fmt.Errorf("%w: after 6 attempts", extract.ErrTransport), true},
		{"rate limited", extract.ErrRateLimited, true},
		{"server", extract.ErrServer, true},
		{"bad request", extract.ErrBadRequest, false},
		{"unauthorized", extract.ErrUnauthorized, false},
		{"forbidden", extract.ErrForbidden, false},
		{"not found", extract.ErrNotFound, false},
		{"unexpected status", extract.ErrUnexpected, false},
		{"decode", &wire.DecodeError{What: "schedule", Err: io.ErrUnexpectedEOF}, false},
		{"budget spent", fmt.Errorf("schedule credits: %w", extract.ErrBudgetSpent), false},
		{"quota", fmt.Errorf("schedule credits: %w", extract.ErrQuotaExhausted), false},
		{"invalid input", &extract.InputError{Field: "port code", Value: "NL", Want: "5 characters"}, false},
		{"connection reset", opErr(syscall.ECONNRESET), true},
		{"connection aborted", opErr(syscall.ECONNABORTED), true},
		{"connection refused", opErr(syscall.ECONNREFUSED), true},
		{"broken pipe", opErr(syscall.EPIPE), true},
		{"timed out", opErr(syscall.ETIMEDOUT), true},
		{"permission denied", opErr(syscall.EACCES), false},
		{"dns not found", &net.DNSError{Err: "no such host", Name: "svc", IsNotFound: true}, false},
		{"dns temporary", &net.DNSError{Err: "server misbehaving", Name: "svc", IsTemporary: true}, true},
		{"dns timeout", &net.DNSError{Err: "i/o timeout", Name: "svc", IsTimeout: true}, true},
		{"unexpected EOF", fmt.Errorf("read body: %w", io.ErrUnexpectedEOF), true},
		{"EOF", &url.Error{Op: "Get", URL: "http://svc/x", Err: io.EOF}, true},
		{"other", errors.New("boom"), false},
	}
	for _, tc := range cases {
		if got := extract.Retryable(tc.err); got != tc.want {
			t.Errorf("%s: Retryable(%v) = %v; want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// Real transport failures, as net/http reports them.
func TestRetryableTransport(t *testing.T) {
	get := func(c *http.Client, u string) error {
		resp, err := c.Get(u)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return err
	}
	hijack := func(reply string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			io.WriteString(conn, reply)
			conn.Close()
		}))
		t.Cleanup(srv.Close)
		return srv
	}

	t.Run("client timeout", func(t *testing.T) {
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer srv.Close()
		defer close(release)
		err := get(&http.Client{Timeout: 50 * time.Millisecond}, srv.URL)
		if err == nil || !extract.Retryable(err) {
			t.Errorf("Retryable(%v) = false; want true", err)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		err = get(http.DefaultClient, "http://"+addr+"/")
		if err == nil || !extract.Retryable(err) {
			t.Errorf("Retryable(%v) = false; want true", err)
		}
	})
	t.Run("closed before the response", func(t *testing.T) {
		err := get(http.DefaultClient, hijack("").URL)
		if err == nil || !extract.Retryable(err) {
			t.Errorf("Retryable(%v) = false; want true", err)
		}
	})
	t.Run("body cut short", func(t *testing.T) {
		err := get(http.DefaultClient, hijack("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"data\":").URL)
		if !errors.Is(err, io.ErrUnexpectedEOF) || !extract.Retryable(err) {
			t.Errorf("Retryable(%v) = false; want true", err)
		}
	})
	t.Run("caller canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, hijack("").URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = http.DefaultClient.Do(req)
		if err == nil || extract.Retryable(err) {
			t.Errorf("Retryable(%v) = true; want false", err)
		}
	})
}
