package jobs

import (
	"context"
	"encoding/json"
	"errors"
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
	if len(parts) < 2 {
		return ReplayPartInProcess(open), nil
	}
	exe, err := thisProgram("replay")
	if err != nil {
		return nil, err
	}
	return ReplayPartProcess(exe, args, stderr), nil
}

// ReplayPartInProcess replays each part in this process, into the
// warehouse open gives it, closed after the part: for a replay of one
// part, and the process ReplayPartProcess starts.
func ReplayPartInProcess(open func() (*load.Warehouse, error)) ReplayPartRunner {
	return func(ctx context.Context, part ReplayPart, opt ReplayOptions) (ReplayStats, error) {
		wh, err := open()
		if err != nil {
			return ReplayStats{}, err
		}
		defer wh.Close()
		st, err := ReplayInProcess(ctx, wh, part, opt)
		if err == nil {
			err = wh.Close()
		}
		return st, err
	}
}

// ReplayPartFrom is the process ReplayPartProcess starts: it reads the
// part from in, replays it into the warehouse open gives it (opened only
// then, so that a bad start holds no lock), and writes its report to out,
// also when the replay fails (what it did before stays done).
func ReplayPartFrom(ctx context.Context, open func() (*load.Warehouse, error), in io.Reader, out io.Writer, opt ReplayOptions) error {
	var job replayJob
	if err := json.NewDecoder(in).Decode(&job); err != nil {
		return fmt.Errorf("reading the part to replay from standard input: %w", err)
	}
	if job.Part.Index < 1 || job.Part.Of < job.Part.Index {
		return fmt.Errorf("the part to replay is part %d of %d", job.Part.Index, job.Part.Of)
	}
	opt.From, opt.To = job.From, job.To
	st, err := ReplayPartInProcess(open)(ctx, job.Part, opt)
	if werr := json.NewEncoder(out).Encode(replayReport{Stats: st}); werr != nil {
		err = errors.Join(err, werr)
	}
	return err
}
