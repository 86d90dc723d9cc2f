package jobs

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/etalake/etalake/load"
)

// replayJob is what a replay part's process reads on its standard input:
// the part, and the replay's range, for its run in the ledger.
type replayJob struct {
	Part ReplayPart `json:"part"`
	From time.Time  `json:"from,omitzero"`
	To   time.Time  `json:"to,omitzero"`
}

// replayReport is what it writes on its standard output.
type replayReport struct {
	Stats ReplayStats `json:"stats"`
}

// ReplayPartProcess runs each part in a process of its own: exe with args,
// which must run ReplayPartFrom (etalake's is `etalake replay --part`), as
// runPart does.
func ReplayPartProcess(exe string, args []string, stderr io.Writer) ReplayPartRunner {
	return func(ctx context.Context, part ReplayPart, opt ReplayOptions) (ReplayStats, error) {
		var rep replayReport
		peak, err := runPart(ctx, exe, args, stderr, replayJob{Part: part, From: opt.From, To: opt.To}, &rep)
		rep.Stats.PeakRSSKiB = peak
		return rep.Stats, err
	}
}

// ReplayPartRunnerFor is the runner of a replay planned as parts: one part
// is replayed in this process, into the warehouse open gives it
// (ReplayPartInProcess); more, each by a process of this program started
// with args (ReplayPartProcess), its standard error to stderr.
func ReplayPartRunnerFor(parts []ReplayPart, open func() (*load.Warehouse, error), args []string, stderr io.Writer) (ReplayPartRunner, error) {
	return runnerFor(len(parts), "replay", ReplayPartInProcess(open), func(exe string) ReplayPartRunner { return ReplayPartProcess(exe, args, stderr) })
}

// ReplayPartInProcess replays each part in this process, into the
// warehouse open gives it, closed after the part: for a replay of one
// part, and the process ReplayPartProcess starts.
func ReplayPartInProcess(open func() (*load.Warehouse, error)) ReplayPartRunner {
	return inProcess(open, ReplayInProcess)
}

// ReplayPartFrom is the process ReplayPartProcess starts: it reads the
// part from in, replays it into the warehouse open gives it, and writes
// its report to out, as servePart does.
func ReplayPartFrom(ctx context.Context, open func() (*load.Warehouse, error), in io.Reader, out io.Writer, opt ReplayOptions) error {
	return servePart(in, out, "replay", func(job replayJob) (any, error) {
		if job.Part.Index < 1 || job.Part.Of < job.Part.Index {
			return nil, fmt.Errorf("the part to replay is part %d of %d", job.Part.Index, job.Part.Of)
		}
		opt.From, opt.To = job.From, job.To
		st, err := ReplayPartInProcess(open)(ctx, job.Part, opt)
		return replayReport{Stats: st}, err
	})
}
