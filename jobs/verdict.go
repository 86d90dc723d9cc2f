package jobs

import (
	"errors"
	"syscall"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
)

// Verdict is how a job ended, in the terms a scheduler acts on: whether
// everything was had, something was not, nothing more could be done, a
// setting is the user's to fix, or another writer held the warehouse.
// Every job returns one (RunResult, TrackResult, Outcome); the command
// line maps it to its exit code, and records that code in
// etl_runs.exit_code through the options' ExitCodes.
type Verdict string

// The verdicts.
const (
	// VerdictOK: everything asked was answered and loaded.
	VerdictOK Verdict = "ok"
	// VerdictPartial: something was not had — a cap or quota reached,
	// requests failed after retries, answers broken or paging stopped,
	// resources given up, responses dead-lettered, input rows skipped
	// (etl_runs.shortfalls counts each); everything landed is kept.
	VerdictPartial Verdict = "partial"
	// VerdictFailed: nothing more could be done (the warehouse could not
	// be written or published, a declined backfill, a canceled job).
	VerdictFailed Verdict = "failed"
	// VerdictRefused: the job stopped on something the user must fix: the
	// key (401), a product's URL unset or wrong for its profile, input
	// the client refuses.
	VerdictRefused Verdict = "refused"
	// VerdictBusy: another job held the warehouse past the lock timeout;
	// nothing was done.
	VerdictBusy Verdict = "busy"
	// VerdictInterrupted and VerdictTerminated: a SIGINT or a SIGTERM
	// stopped the job (Stopped); what landed is kept.
	VerdictInterrupted Verdict = "interrupted"
	VerdictTerminated  Verdict = "terminated"
)

// Judge is the verdict of a job that ended with status (as
// etl_runs.status) and err: err decides when there is one, by what it
// matches; else the status.
func Judge(status string, err error) Verdict {
	var stopped *Stopped
	switch {
	case err == nil && status == load.StatusPartial:
		return VerdictPartial
	case err == nil && status == load.StatusFailed:
		return VerdictFailed
	case err == nil:
		return VerdictOK
	case errors.As(err, &stopped):
		if stopped.Signal == syscall.SIGINT {
			return VerdictInterrupted
		}
		return VerdictTerminated
	case errors.Is(err, load.ErrBusy):
		return VerdictBusy
	case errors.Is(err, extract.ErrUnauthorized), errors.Is(err, extract.ErrInvalidInput),
		errors.Is(err, extract.ErrNoURL), errors.Is(err, extract.ErrMisconfigured), errors.Is(err, load.ErrNotWarehouse):
		return VerdictRefused
	case errors.Is(err, extract.ErrBudgetSpent), errors.Is(err, extract.ErrQuotaExhausted), errors.Is(err, extract.ErrCoordinatorLost):
		return VerdictPartial
	}
	return VerdictFailed
}

// ExitCodes are the exit codes the command line gives each verdict: the
// table it defines, handed to a job so that etl_runs.exit_code records
// the code the process exits with. Nil records none.
type ExitCodes map[Verdict]int

// of is the exit code of v to record, nil when there is no table.
func (c ExitCodes) of(v Verdict) *int {
	code, ok := c[v]
	if !ok {
		return nil
	}
	return &code
}
