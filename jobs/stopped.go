package jobs

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// Stopped is why a job's context was cancelled when a signal stopped it:
// main cancels the command's context with it (context.WithCancelCause).
// A job that ends on it keeps what it landed, ends partial with the
// signal in etl_runs.stop_reason, and its verdict is VerdictInterrupted
// (SIGINT) or VerdictTerminated (SIGTERM). It matches context.Canceled.
type Stopped struct{ Signal os.Signal }

func (s *Stopped) Error() string {
	return "stopped by " + signalName(s.Signal) + ": what landed is kept, the next job of the date asks the rest"
}

// Unwrap is context.Canceled: a job stopped by a signal was cancelled.
func (s *Stopped) Unwrap() error { return context.Canceled }

// signalName is SIGINT, SIGTERM, as a shell and kill(1) name them.
func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// StoppedBy is err, or the signal that stopped the job when err is the
// cancellation of ctx by one (a *Stopped cause): "context canceled" says nothing of who
// cancelled it. Call it before the context's cancellation is dropped
// (context.WithoutCancel has no cause).
func StoppedBy(ctx context.Context, err error) error {
	var s *Stopped
	if err == nil || !errors.Is(err, context.Canceled) || errors.As(err, &s) {
		return err
	}
	if errors.As(context.Cause(ctx), &s) {
		return s
	}
	return err
}
