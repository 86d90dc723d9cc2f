package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/etalake/etalake/load"
)

// newRunID is unique and sorts by start time: 20260105T020000Z-3f2a1c9d.
func newRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// diedReason is the error recorded for a run whose process ended without
// recording its end.
const diedReason = "the process ended without recording its end (killed, crashed or lost); what it landed was kept"

// endDeadRuns ends the rows of runs still "running": the writer lock
// guarantees no other job is writing, so their process died.
func endDeadRuns(ctx context.Context, wh *load.Warehouse, now time.Time) error {
	_, err := wh.EndUnfinishedRuns(ctx, now, diedReason)
	return err
}

// DeadLetters says how many dead letters a job loaded, and how many of
// them are responses kept but not derived at all.
func DeadLetters(dead, quarantined int) string {
	s := fmt.Sprintf("%d dead letters", dead)
	if quarantined > 0 {
		s += fmt.Sprintf(" (%d responses kept but not derived)", quarantined)
	}
	return s
}

// Shortfall reasons: the keys of etl_runs.shortfalls, each a count of
// what a job did not get. Any of them makes the job partial.
const (
	ShortDeadLetters   = "dead_letters"          // dead_letters rows loaded
	ShortNotDerived    = "responses_not_derived" // of them, whole responses kept but not derived
	ShortFailed        = "failed_after_retries"  // requests that failed after retries (no answer, 5xx, 429)
	ShortRefused       = "refused"               // requests the provider refused (400, another 4xx): not retried
	ShortBroken        = "broken_answers"        // answers that stayed broken in transfer: asked again next time
	ShortPagingStopped = "paging_stopped"        // answers not followed to their last page: asked again next time
	ShortNotAskedAgain = "not_asked_again"       // resources not asked again: broken or stopped paging in MaxReasks jobs
	ShortUnasked       = "stopped_unasked"       // requests not sent: their product stopped (cap, quota)
	ShortSkippedInput  = "skipped_input_rows"    // input rows skipped as malformed
)

// shortfalls adds the positive counts of by to the run's shortfalls.
func addShortfalls(r *load.Run, by map[string]int) {
	for k, n := range by {
		if n <= 0 {
			continue
		}
		if r.Shortfalls == nil {
			r.Shortfalls = map[string]int64{}
		}
		r.Shortfalls[k] += int64(n)
	}
}

// deadLetterShortfalls are the shortfalls of dead letters c.
func deadLetterShortfalls(c counts) map[string]int {
	return map[string]int{ShortDeadLetters: c.dead, ShortNotDerived: c.quarantined}
}

// deadLetterReason is the reason dead letters make a job partial, none
// when there are none.
func deadLetterReason(c counts) []string {
	if c.dead == 0 {
		return nil
	}
	return []string{DeadLetters(c.dead, c.quarantined) + ": see dead_letters"}
}

// settle records in r how its job ended: failed with err; partial when
// why gives reasons (they become the stop reason); else ok; and the exit
// code codes give that end's verdict, when there are codes.
func settle(r *load.Run, now time.Time, err error, why []string, codes ExitCodes) {
	r.EndedAt = now
	var stopped *Stopped
	switch {
	case errors.As(err, &stopped):
		// Not a failure: what landed is kept, the rest is asked by the
		// next job, as after a cap.
		r.Status, r.Error = load.StatusPartial, ""
		r.StopReason = oneLine(strings.Join(append([]string{stopped.Error()}, why...), "; "))
	case err != nil:
		r.Status, r.Error = load.StatusFailed, err.Error()
	case len(why) > 0:
		r.Status, r.StopReason = load.StatusPartial, oneLine(strings.Join(why, "; "))
	default:
		r.Status = load.StatusOK
	}
	r.ExitCode = codes.of(Judge(r.Status, err))
}

// oneLine folds a text of several lines (an error that indents its
// causes on lines of their own, as a database driver's does) into one:
// etl_runs.stop_reason is read a row at a time, and the log's line is one
// line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(slices.DeleteFunc(lines, func(l string) bool { return l == "" }), " ")
}

// logEnd logs how a job ended ("run: ended", "import: ended", …), with
// its shortfalls by reason: the line a log collector alerts on, at warn
// level unless the job was ok.
func logEnd(log *slog.Logger, r *load.Run) {
	level := slog.LevelInfo
	if r.Status != load.StatusOK {
		level = slog.LevelWarn
	}
	attrs := []any{"status", r.Status, "requests", r.Requests}
	if dry, _ := r.Args["dry_run"].(bool); dry {
		attrs = append(attrs, "dry_run", true) // planned only: nothing asked, nothing written
	}
	if r.ExitCode != nil {
		attrs = append(attrs, "exit_code", *r.ExitCode)
	}
	if len(r.Shortfalls) > 0 {
		attrs = append(attrs, "shortfalls", r.Shortfalls)
	}
	if r.StopReason != "" {
		attrs = append(attrs, "stop_reason", r.StopReason)
	}
	if r.Error != "" {
		attrs = append(attrs, "error", r.Error)
	}
	job := r.Job
	if job == "backfill" || job == "demo" {
		job = "run" // one message for every fetching job; job names it
		attrs = append(attrs, "job", r.Job)
	}
	log.Log(context.Background(), level, job+": ended", attrs...)
}

// Outcome is how a job that derives without fetching (an import, a
// replay) ended, as its etl_runs row says.
type Outcome struct {
	Run     string // the run's id
	Status  string // ok, partial or failed
	Verdict Verdict
	// DeadLetters counts the dead_letters rows the job loaded;
	// Quarantined, of them, the responses kept but not derived at all
	// (larger than MaxBody, or refused by the warehouse).
	DeadLetters, Quarantined int
	Rows                     map[string]int64
}

// endJob ends the run of a job that derived through s (see ending.end):
// it derives what is left when the job did not fail, then records and
// publishes its end. why are its reasons to be partial besides dead
// letters.
func endJob(ctx context.Context, wh *load.Warehouse, run *load.Run, s *sink, err error, why []string, codes ExitCodes) (Outcome, error) {
	err = StoppedBy(ctx, err)
	ctx = context.WithoutCancel(ctx)
	if err == nil {
		err = deriveLeft(ctx, s, run.Job)
	}
	run.Rows = s.loaded
	addShortfalls(run, deadLetterShortfalls(s.counts))
	err = ending{log: s.log, now: s.now, codes: codes}.end(ctx, wh, run, err, append(why, deadLetterReason(s.counts)...))
	return Outcome{Run: run.ID, Status: run.Status, Verdict: Judge(run.Status, err), DeadLetters: s.dead, Quarantined: s.quarantined, Rows: s.loaded}, err
}
