package jobs_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// How a job ended, as a scheduler acts on it: by the error when there is
// one, wrapped as the jobs wrap it; else by the status.
func TestJudge(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("run: night of 2026-01-05: %w", err) }
	for _, tc := range []struct {
		status string
		err    error
		want   jobs.Verdict
	}{
		{load.StatusOK, nil, jobs.VerdictOK},
		{load.StatusPartial, nil, jobs.VerdictPartial},
		{load.StatusFailed, nil, jobs.VerdictFailed},
		{load.StatusOK, wrap(extract.ErrUnauthorized), jobs.VerdictRefused},
		{load.StatusFailed, wrap(&jobs.MissingURLError{}), jobs.VerdictRefused},
		{load.StatusFailed, wrap(extract.ErrMisconfigured), jobs.VerdictRefused},
		{load.StatusFailed, wrap(extract.ErrInvalidInput), jobs.VerdictRefused},
		{load.StatusFailed, wrap(load.ErrBusy), jobs.VerdictBusy},
		{load.StatusFailed, wrap(extract.ErrQuotaExhausted), jobs.VerdictPartial},
		{load.StatusFailed, wrap(jobs.ErrDeclined), jobs.VerdictFailed},
		{load.StatusOK, wrap(context.Canceled), jobs.VerdictFailed},
	} {
		if got := jobs.Judge(tc.status, tc.err); got != tc.want {
			t.Errorf("Judge(%s, %v) = %s, want %s", tc.status, tc.err, got, tc.want)
		}
	}
}
