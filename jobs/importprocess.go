package jobs

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
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

// PartProcess runs each part in a process of its own: exe with args, which
// must run ImportPartFrom (etalake's is `etalake import --part`), as
// runPart does.
func PartProcess(exe string, args []string, stderr io.Writer) PartRunner {
	return func(ctx context.Context, part ImportPart, opt ImportOptions) (ImportStats, error) {
		var rep partReport
		peak, err := runPart(ctx, exe, args, stderr, partJob{Part: part, ObservedAt: opt.ObservedAt, Endpoint: opt.Endpoint, Request: opt.Request}, &rep)
		rep.Stats.PeakRSSKiB = peak
		return rep.Stats, err
	}
}

// PartRunnerFor is the runner of an import planned as parts: one part is
// imported in this process, into the warehouse open gives it
// (PartInProcess); more, each by a process of this program started with
// args (PartProcess), its standard error to stderr.
func PartRunnerFor(parts []ImportPart, open func() (*load.Warehouse, error), args []string, stderr io.Writer) (PartRunner, error) {
	return runnerFor(len(parts), "import", PartInProcess(open), func(exe string) PartRunner { return PartProcess(exe, args, stderr) })
}

// PartInProcess imports each part in this process, into the warehouse
// open gives it, closed after the part: for an import of one part, and
// the process PartProcess starts.
func PartInProcess(open func() (*load.Warehouse, error)) PartRunner {
	return inProcess(open, ImportInProcess)
}

// ImportPartFrom is the process PartProcess starts: it reads the part from
// in, imports it into the warehouse open gives it, and writes its report to
// out, as servePart does. Refused bodies travel in the report, so they are
// no error here.
func ImportPartFrom(ctx context.Context, open func() (*load.Warehouse, error), in io.Reader, out io.Writer, opt ImportOptions) error {
	return servePart(in, out, "import", func(job partJob) (any, error) {
		if len(job.Part.Sources) == 0 && !job.Part.Finish {
			return nil, errors.New("the part to import has no source")
		}
		opt.ObservedAt, opt.Endpoint, opt.Request = job.ObservedAt, job.Endpoint, job.Request
		st, err := PartInProcess(open)(ctx, job.Part, opt)
		if errors.Is(err, ErrSomeRefused) {
			err = nil
		}
		return partReport{Stats: st}, err
	})
}
