package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/etalake/etalake/internal/rusage"
	"github.com/etalake/etalake/load"
)

// interruptGrace is how long a part's process has to stop after it is
// interrupted (it finishes the load it is in) before it is killed.
const interruptGrace = time.Minute

// runPart runs one part of a job (an import, a replay) in a process of its
// own: exe with args. The job goes to the process's standard input as
// JSON; its report comes back on its standard output into report, also
// when the process fails (what it did before stays done); its standard
// error, the logs and any error, goes to stderr. When ctx ends, the
// process is interrupted, and killed if it has not stopped a minute
// later. It returns the process's peak resident set.
func runPart(ctx context.Context, exe string, args []string, stderr io.Writer, job, report any) (peakKiB int64, err error) {
	in, err := json.Marshal(job)
	if err != nil {
		return 0, err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, stderr
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = interruptGrace
	runErr := cmd.Run()
	peakKiB = rusage.PeakRSSKiB(cmd.ProcessState)
	if ee := (*exec.ExitError)(nil); errors.As(runErr, &ee) {
		runErr = &PartExitError{State: ee.ProcessState}
	}
	if err := json.Unmarshal(out.Bytes(), report); err != nil && runErr == nil {
		return peakKiB, fmt.Errorf("the part's report %q: %w", out.String(), err)
	}
	return peakKiB, runErr
}

// PartExitError is a part's process that did not end well; its own
// message, on its standard error, says why.
type PartExitError struct {
	State *os.ProcessState
}

func (e *PartExitError) Error() string { return "its process: " + e.State.String() }

// ExitCode is the process's exit code (2 when it could not start the part,
// e.g. because another writer holds the warehouse), or 1 when a signal
// ended it: the code the command that started it exits with.
func (e *PartExitError) ExitCode() int {
	if c := e.State.ExitCode(); c > 0 {
		return c
	}
	return 1
}

// thisProgram is the path of this program, which runs the parts of a job
// in parts.
func thisProgram(job string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("%s in parts needs this program's path: %w", job, err)
	}
	return exe, nil
}

// runnerFor chooses how a job planned as parts runs them: one part here
// (the runner here), more each by a process of this program (the runner
// process makes of its path).
func runnerFor[R any](parts int, job string, here R, process func(exe string) R) (R, error) {
	if parts < 2 {
		return here, nil
	}
	exe, err := thisProgram(job)
	if err != nil {
		var none R
		return none, err
	}
	return process(exe), nil
}

// inProcess runs each part in this process by do, into the warehouse open
// gives it (opened only then, so that a bad start holds no lock), closed
// after the part; the close's error counts unless the part failed
// (refused bodies are no failure).
func inProcess[P, O, S any](open func() (*load.Warehouse, error), do func(context.Context, *load.Warehouse, P, O) (S, error)) func(context.Context, P, O) (S, error) {
	return func(ctx context.Context, part P, opt O) (S, error) {
		wh, err := open()
		if err != nil {
			var none S
			return none, err
		}
		defer wh.Close()
		st, err := do(ctx, wh, part, opt)
		if err == nil || errors.Is(err, ErrSomeRefused) {
			err = errors.Join(err, wh.Close())
		}
		return st, err
	}
}

// servePart is the other end of runPart, in the part's process: it reads
// the job from in, runs it, and writes the report run returns to out, also
// when run fails (what it did before stays done). A nil report is a job
// refused before it ran: nothing is written.
func servePart[J any](in io.Reader, out io.Writer, what string, run func(job J) (report any, err error)) error {
	var job J
	if err := json.NewDecoder(in).Decode(&job); err != nil {
		return fmt.Errorf("reading the part to %s from standard input: %w", what, err)
	}
	report, err := run(job)
	if report == nil {
		return err
	}
	if werr := json.NewEncoder(out).Encode(report); werr != nil {
		err = errors.Join(err, werr)
	}
	return err
}
