package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// ReplayOptions bound a replay to the responses observed in [From, To); a
// zero bound is open, both zero is the whole raw landing.
type ReplayOptions struct {
	From, To time.Time
	Version  string
	Log      *slog.Logger
	Now      func() time.Time
}

// full reports whether the replay rebuilds everything.
func (opt ReplayOptions) full() bool { return opt.From.IsZero() && opt.To.IsZero() }

// check refuses a range that selects nothing by construction.
func (opt ReplayOptions) check() error {
	if !opt.From.IsZero() && !opt.To.IsZero() && !opt.To.After(opt.From) {
		return fmt.Errorf("replay: --to %s is not after --from %s", opt.To.Format(time.DateOnly), opt.From.Format(time.DateOnly))
	}
	return nil
}

// ReplayStats says what a replay did.
type ReplayStats struct {
	Runs        []string // the run of each part, in order
	Responses   int
	DeadLetters int
	Rows        map[string]int64
	// PeakRSSKiB is the largest peak resident set of the parts' processes,
	// when each ran in its own (ReplayPartProcess); 0 otherwise.
	PeakRSSKiB int64 `json:"-"`
}

// Replay rebuilds the derived tables, and their Parquet mirror, from the raw
// landing, without a single request, in this process (ReplayParts runs
// a large replay in parts, a process each).
//
// Without bounds it is a full rebuild: every derived table is emptied and
// every landed response derived again, oldest first; the result equals
// what the original loads built. With bounds it re-derives the responses
// observed in the range: the history rows (append tables) they produced
// are deleted and rebuilt, and the latest-state and dimension tables take
// their rows by the usual rules (the newest observation wins). Either way,
// replaying twice changes nothing. A crash mid-replay is repaired by
// replaying again (a full replay's, also by the next run, which derives
// what was landed and is not derived).
func Replay(ctx context.Context, wh *load.Warehouse, opt ReplayOptions) (ReplayStats, error) {
	if err := opt.check(); err != nil {
		return ReplayStats{}, err
	}
	return ReplayInProcess(ctx, wh, wholeReplay(opt), opt)
}

// ReplayInProcess replays one part of a replay into wh, recorded as a run
// of its own.
func ReplayInProcess(ctx context.Context, wh *load.Warehouse, part ReplayPart, opt ReplayOptions) (ReplayStats, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	args := map[string]any{"from": dateOrNil(opt.From), "to": dateOrNil(opt.To)}
	if part.Of > 1 {
		args["part"] = fmt.Sprintf("%d/%d", part.Index, part.Of)
		if part.Finish || part.Reset {
			args["step"] = part.Observed()
		} else {
			args["observed"] = part.Observed()
		}
	}
	run := &Run{ID: newRunID(opt.Now()), Job: "replay", StartedAt: opt.Now(), Status: StatusRunning, Version: opt.Version, Args: args}
	if err := run.save(ctx, wh); err != nil {
		return ReplayStats{}, err
	}
	stats, err := replay(ctx, wh, part, opt)
	stats.Runs = []string{run.ID}
	run.EndedAt, run.Rows = opt.Now(), stats.Rows
	run.Status, run.ExitCode = StatusOK, intPtr(0)
	if err != nil {
		run.Status, run.Error, run.ExitCode = StatusFailed, err.Error(), intPtr(1)
	}
	if serr := run.save(context.WithoutCancel(ctx), wh); err == nil {
		err = serr
	}
	return stats, err
}

func replay(ctx context.Context, wh *load.Warehouse, part ReplayPart, opt ReplayOptions) (ReplayStats, error) {
	switch {
	case part.Finish:
		return ReplayStats{}, writeMirror(ctx, wh)
	case part.Reset:
		return ReplayStats{}, reset(ctx, wh, opt)
	}
	filter := load.RawFilter{Since: part.From, Until: part.To}
	switch {
	case part.Full && part.Of == 1:
		if err := reset(ctx, wh, opt); err != nil {
			return ReplayStats{}, err
		}
	case part.Full:
		// The Reset part emptied the tables: no row of this range is left.
	default:
		ids, err := wh.RawIDs(ctx, filter)
		if err != nil {
			return ReplayStats{}, err
		}
		var history []*schema.Table
		for _, t := range schema.Derived() {
			if t.Kind == schema.Append {
				history = append(history, t)
			}
		}
		opt.Log.Info("replay: deleting the history rows of the range", "responses", len(ids))
		if err := wh.DeleteByResponse(ctx, history, ids); err != nil {
			return ReplayStats{}, err
		}
	}
	s := newSink(wh, memory.DefaultAllocator, opt.Now)
	stats := ReplayStats{}
	err := wh.Raw(ctx, filter, func(r load.RawResponse, id string) error {
		stats.Responses++
		if stats.Responses%10000 == 0 {
			opt.Log.Info("replay: progress", "responses", stats.Responses)
		}
		return s.derive(ctx, r, id)
	})
	if err == nil {
		err = s.close(ctx, part.Last)
	} else {
		s.batch.Release()
	}
	stats.DeadLetters, stats.Rows = s.dead, s.loaded
	return stats, err
}

// reset empties every derived table, for a full replay. It forgets first
// which responses were derived, so that a crash while it empties the
// tables, a partition at a time, leaves every response to be derived
// again (by the replay run again, or by the next run).
func reset(ctx context.Context, wh *load.Warehouse, opt ReplayOptions) error {
	opt.Log.Info("replay: emptying the derived tables")
	if err := wh.ForgetDerived(ctx); err != nil {
		return err
	}
	return wh.Reset(ctx, schema.Derived())
}

// dateOrNil renders a bound for the run ledger: a date when it is a UTC
// midnight, else the instant.
func dateOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	if t.UTC().Truncate(24 * time.Hour).Equal(t) {
		return t.UTC().Format(time.DateOnly)
	}
	return t.UTC().Format(time.RFC3339)
}

func intPtr(n int) *int { return &n }
