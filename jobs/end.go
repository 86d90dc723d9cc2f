package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// Every writer — run, backfill, a demo's last night, import, replay,
// track add and rm — begins and ends the same way, so that what readers
// see is always whole and etl_runs always says how each job ended:
//
//	begin: end the rows of runs whose process died (a crash found by the
//	       next writer), record the job's run as running;
//	end:   derive what is left landed and not derived (when the job did
//	       not fail), record how the job ended, and publish (load.Publish:
//	       the analytic tables rebuilt, the Parquet mirror written,
//	       etl_runs last, then the database copied for readers).
//
// A publish that fails makes the job failed, whatever it was before: its
// row is saved again saying why, in the working copy — the next writer's
// publish carries it to readers of the database — and in the mirror's
// etl_runs where the disk lets it; the summary and the exit code say it
// at once. Until then readers of the database keep the state of the last
// publish, which is whole: a failed publish shows them nothing of the
// job, rather than its tables without their analytics.

// begin ends the rows of runs that died and records run as running.
func begin(ctx context.Context, wh *load.Warehouse, run *load.Run, now time.Time) error {
	if err := endDeadRuns(ctx, wh, now); err != nil {
		return err
	}
	return wh.SaveRun(ctx, run)
}

// deriveLeft derives, through s, the responses landed and not derived —
// pushed by the vendor, left by a job that died, or outside a replay's
// range — for the job named job that
// did not fail (a failed job stops; the next one derives them). Without
// any it costs a count.
func deriveLeft(ctx context.Context, s *sink, job string) error {
	c, err := s.catchUp(ctx)
	c.log(s.log, job)
	if err != nil {
		return fmt.Errorf("deriving responses landed earlier but never loaded: %w", err)
	}
	return nil
}

// ending says how a writer's end goes.
type ending struct {
	log   *slog.Logger
	now   func() time.Time
	codes ExitCodes // for etl_runs.exit_code
	// hold keeps the end from readers: a demo night before the last, whose
	// job publishes at its last night.
	hold bool
}

// end settles run with err and why (see settle), saves its row and
// publishes, then logs how the job ended. It returns err, joined with
// the failure to record or publish the end.
func (e ending) end(ctx context.Context, wh *load.Warehouse, run *load.Run, err error, why []string) error {
	err = StoppedBy(ctx, err)
	ctx = context.WithoutCancel(ctx)
	defer func() { logEnd(e.log, run) }()
	settle(run, e.now(), err, why, e.codes)
	if serr := wh.SaveRun(ctx, run); serr != nil {
		// Nothing to publish that says how the job ended: readers keep
		// the state before, and the next writer ends the row as died.
		err = also(err, fmt.Errorf("recording the job's end in etl_runs failed, so the warehouse was not published (readers keep the state before): %w", serr))
		settle(run, e.now(), err, why, e.codes)
		return err
	}
	if e.hold {
		return err
	}
	st, perr := wh.Publish(ctx)
	if perr == nil {
		logPublished(e.log, st)
		return err
	}
	err = also(err, notPublished(perr))
	settle(run, e.now(), err, why, e.codes)
	if serr := wh.SaveRun(ctx, run); serr != nil {
		e.log.Error("the job's end could not be recorded in etl_runs either: the next writer ends its row as died", "run", run.ID, "error", serr)
		return err
	}
	// Only etl_runs: the other tables' partitions wait for a publish that
	// refreshes the analytic tables with them.
	if _, serr := wh.SyncParquet(ctx, schema.ETLRuns); serr != nil {
		e.log.Warn("the Parquet mirror's etl_runs could not say how the job ended: the next publish writes it", "run", run.ID, "error", serr)
	}
	return err
}

// also is err and then more, on one line (etl_runs.error and the
// summary's line): both match errors.Is.
func also(err, more error) error {
	if err == nil {
		return more
	}
	return fmt.Errorf("%w; then %w", err, more)
}

// notPublished says what a failed publish means for readers and what
// brings them the job.
func notPublished(err error) error {
	if errors.Is(err, load.ErrLake) {
		return fmt.Errorf("the warehouse and its Parquet mirror were published, but %w; the lake's readers keep its last commit, and the next job commits this one's partitions", err)
	}
	if errors.Is(err, load.ErrUnderived) {
		return fmt.Errorf("the warehouse was not published: %w; readers keep it as the last job published it, and the next job derives them and publishes", err)
	}
	return fmt.Errorf("publishing the warehouse for readers failed: %w; readers keep it as the last job published it, and the next job publishes this one's tables and its end (recorded as failed)", err)
}

// logPublished logs what a publish did and what each step cost.
func logPublished(log *slog.Logger, st load.PublishStats) {
	if !st.Published && !st.Refreshed && st.Mirror == (load.SyncStats{}) {
		return
	}
	ms := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	attrs := []any{"version", st.Version, "took", ms(st.Took), "swap", ms(st.SwapTook)}
	if st.Refreshed {
		attrs = append(attrs, "refresh", ms(st.RefreshTook))
	}
	if m := st.Mirror; m != (load.SyncStats{}) {
		attrs = append(attrs, "mirror", ms(st.MirrorTook), "analytics_files", ms(st.AnalyticsTook), "partitions_written", m.Written, "partitions_removed", m.Removed, "rows_written", m.Rows,
			"files_linked", m.Linked, "segments", m.Segments, "segment_responses", m.SegmentRows)
	}
	if st.Swept > 0 {
		attrs = append(attrs, "versions_removed", st.Swept)
	}
	if l := st.Lake; l != (load.LakeStats{}) {
		attrs = append(attrs, "lake", ms(l.Took), "lake_tables", l.Tables, "lake_files", l.Files, "lake_rows", l.Rows, "lake_deleted", l.Deleted, "lake_bytes", l.Bytes, "lake_retries", l.Retries, "lake_compacted", l.Compacted, "lake_compacted_rows", l.CompactedRows)
		if l.Orphans > 0 {
			attrs = append(attrs, "lake_orphans_removed", l.Orphans)
		}
		if l.UpkeepError != "" {
			attrs = append(attrs, "lake_upkeep_failed", l.UpkeepError)
		}
	}
	log.Info("published the warehouse for readers", attrs...)
}
