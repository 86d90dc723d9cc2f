package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
)

// ReplayOptions bound a replay to the responses observed in [From, To); a
// zero bound is open, both zero is the whole raw landing.
type ReplayOptions struct {
	From, To time.Time
	// MaxBody is the largest body derived; a larger one is dead-lettered
	// again (0: DefaultMaxBody). Raise it to derive a body a job
	// quarantined as too large.
	MaxBody int64
	// ExitCodes are the caller's exit codes of each verdict, recorded in
	// etl_runs.exit_code (nil: none).
	ExitCodes ExitCodes
	Version   string
	Log       *slog.Logger
	Now       func() time.Time
}

// full reports whether the replay rebuilds everything.
func (opt ReplayOptions) full() bool { return opt.From.IsZero() && opt.To.IsZero() }

// ReplayStats says what a replay did.
type ReplayStats struct {
	Outcome
	Responses int
}

// Replay rebuilds the derived tables, and their Parquet mirror, from the raw
// landing, without a single request.
//
// Without bounds it is a full rebuild: every derived table is emptied and
// every landed response derived again, oldest first; the result equals
// what the original loads built. With bounds it re-derives the responses
// observed in the range: the history rows (append tables) they produced
// are deleted and rebuilt, and the latest-state and dimension tables take
// their rows by the usual rules (the newest observation wins). Either way,
// replaying twice changes nothing, and responses a job quarantined are
// derived again (a fix to what refused them takes effect).
//
// Readers see nothing of it until it ends: the published database and the
// Parquet mirror keep the tables as they were while it empties and
// rebuilds them, and its end publishes them rebuilt (each table of the
// mirror swapped whole, see load.Publish). A replay that stops — failed,
// interrupted, killed — publishes nothing: the responses it had not
// derived again are left to the next job of any kind (or a replay), which
// derives them and publishes.
func Replay(ctx context.Context, wh *load.Warehouse, opt ReplayOptions) (ReplayStats, error) {
	if opt.MaxBody == 0 {
		opt.MaxBody = DefaultMaxBody
	}
	if err := opt.Validate(); err != nil {
		return ReplayStats{}, fmt.Errorf("replay: %w", err)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	args := map[string]any{"from": dateOrNil(opt.From), "to": dateOrNil(opt.To)}
	run := &load.Run{ID: newRunID(opt.Now()), Job: "replay", StartedAt: opt.Now(), Status: load.StatusRunning, Version: opt.Version, Args: args}
	if err := begin(ctx, wh, run, opt.Now()); err != nil {
		return ReplayStats{}, err
	}
	s := newSink(wh, opt.MaxBody, opt.Now, opt.Log)
	defer s.batch.Release()
	stats, err := replay(ctx, wh, s, opt)
	stats.Outcome, err = endJob(ctx, wh, run, s, err, nil, opt.ExitCodes)
	return stats, err
}

// replay derives the range of opt through s, after emptying what it
// replaces.
func replay(ctx context.Context, wh *load.Warehouse, s *sink, opt ReplayOptions) (ReplayStats, error) {
	filter := load.RawFilter{Since: opt.From, Until: opt.To}
	if opt.full() {
		if err := reset(ctx, wh, opt); err != nil {
			return ReplayStats{}, err
		}
	} else {
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
	stats := ReplayStats{}
	err := wh.Raw(ctx, filter, func(r *response.Landed) error {
		stats.Responses++
		if stats.Responses%10000 == 0 {
			opt.Log.Info("replay: progress", "responses", stats.Responses)
		}
		return s.derive(ctx, r)
	})
	if err == nil {
		err = s.flush(ctx)
	}
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
