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

	"github.com/etalake/etalake/extract/wire"
	"github.com/etalake/etalake/internal/rusage"
	"github.com/etalake/etalake/load"
)

// partJob is what a part's process reads on its standard input: the part,
// and the options that travel with it (the rest are the process's own).
type partJob struct {
	Part       ImportPart    `json:"part"`
	ObservedAt time.Time     `json:"observed_at"`
	Endpoint   wire.Endpoint `json:"endpoint,omitempty"`
	Request    string        `json:"request,omitempty"`
}

// partReport is what it writes on its standard output.
type partReport struct {
	Stats ImportStats `json:"stats"`
}

// interruptGrace is how long a part's process has to stop after it is
// interrupted (it finishes the load it is in) before it is killed.
const interruptGrace = time.Minute

// PartProcess runs each part in a process of its own: exe with args, which
// must run ImportPartFrom (etalake's is `etalake import --part`). The part
// goes to the process's standard input as JSON, its report comes back on
// its standard output; its standard error, the logs and any error, goes to
// stderr. When ctx ends, the process is interrupted, and killed if it has
// not stopped a minute later.
func PartProcess(exe string, args []string, stderr io.Writer) PartRunner {
	return func(ctx context.Context, part ImportPart, opt ImportOptions) (ImportStats, error) {
		job, err := json.Marshal(partJob{Part: part, ObservedAt: opt.ObservedAt, Endpoint: opt.Endpoint, Request: opt.Request})
		if err != nil {
			return ImportStats{}, err
		}
		cmd := exec.CommandContext(ctx, exe, args...)
		var out bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(job), &out, stderr
		cmd.Cancel = func() error {
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				return cmd.Process.Kill()
			}
			return nil
		}
		cmd.WaitDelay = interruptGrace
		runErr := cmd.Run()
		peak := rusage.PeakRSSKiB(cmd.ProcessState)
		if ee := (*exec.ExitError)(nil); errors.As(runErr, &ee) {
			runErr = &PartExitError{State: ee.ProcessState}
		}
		var rep partReport
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil && runErr == nil {
			return ImportStats{PeakRSSKiB: peak}, fmt.Errorf("the part's report %q: %w", out.String(), err)
		}
		rep.Stats.PeakRSSKiB = peak
		return rep.Stats, runErr
	}
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

// PartRunnerFor is the runner of an import planned as parts: one part is
// imported in this process, into the warehouse open gives it
// (PartInProcess); more, each by a process of this program started with
// args (PartProcess), its standard error to stderr.
func PartRunnerFor(parts []ImportPart, open func() (*load.Warehouse, error), args []string, stderr io.Writer) (PartRunner, error) {
	if len(parts) < 2 {
		return PartInProcess(open), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("import in parts needs this program's path: %w", err)
	}
	return PartProcess(exe, args, stderr), nil
}

// PartInProcess imports each part in this process, into the warehouse
// open gives it, closed after the part: for an import of one part, and
// the process PartProcess starts.
func PartInProcess(open func() (*load.Warehouse, error)) PartRunner {
	return func(ctx context.Context, part ImportPart, opt ImportOptions) (ImportStats, error) {
		wh, err := open()
		if err != nil {
			return ImportStats{}, err
		}
		defer wh.Close()
		st, err := ImportInProcess(ctx, wh, part, opt)
		if err == nil || errors.Is(err, ErrSomeRefused) {
			err = errors.Join(err, wh.Close())
		}
		return st, err
	}
}

// ImportPartFrom is the process PartProcess starts: it reads the part from
// in, imports it into the warehouse open gives it (opened only then, so
// that a bad start holds no lock), and writes its report to out, also when
// the import fails (what it did before stays done). Refused bodies travel
// in the report, so they are no error here.
func ImportPartFrom(ctx context.Context, open func() (*load.Warehouse, error), in io.Reader, out io.Writer, opt ImportOptions) error {
	var job partJob
	if err := json.NewDecoder(in).Decode(&job); err != nil {
		return fmt.Errorf("reading the part to import from standard input: %w", err)
	}
	if len(job.Part.Sources) == 0 {
		return errors.New("the part to import has no source")
	}
	opt.ObservedAt, opt.Endpoint, opt.Request = job.ObservedAt, job.Endpoint, job.Request
	st, err := PartInProcess(open)(ctx, job.Part, opt)
	if errors.Is(err, ErrSomeRefused) {
		err = nil
	}
	if werr := json.NewEncoder(out).Encode(partReport{Stats: st}); werr != nil && err == nil {
		err = werr
	}
	return err
}
