package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
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

// deadLettersText says what a job dead-lettered, for its stop reason.
func deadLettersText(dead, quarantined int) string {
	s := fmt.Sprintf("%d dead letters", dead)
	if quarantined > 0 {
		s += fmt.Sprintf(" (%d responses kept but not derived)", quarantined)
	}
	return s + ": see dead_letters"
}

// ended records how a job that is not a run (an import, a replay) ended:
// failed with err, partial when it dead-lettered anything or refused
// input (refused, which says how), else ok.
func ended(r *load.Run, now time.Time, err error, c counts, refused string, exitCode func(string, error) int) {
	r.EndedAt = now
	switch {
	case err != nil:
		r.Status, r.Error = load.StatusFailed, err.Error()
	case c.dead > 0 || refused != "":
		r.Status = load.StatusPartial
		var why []string
		if refused != "" {
			why = append(why, refused)
		}
		if c.dead > 0 {
			why = append(why, deadLettersText(c.dead, c.quarantined))
		}
		r.StopReason = strings.Join(why, "; ")
	default:
		r.Status = load.StatusOK
	}
	if exitCode != nil {
		code := exitCode(r.Status, err)
		r.ExitCode = &code
	}
}
