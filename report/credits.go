package report

import (
	"context"
	"database/sql"
	"errors"
)

// Credits sums up credit_usage: what the runs recorded in the warehouse
// spent.
type Credits struct {
	Runs      int
	RunsNotOK int
	Days      int // logical dates with a run
	Requests  int64
	// Schedule credits spent and tracking calls made, by our count;
	// Uncertain* are those possibly charged by requests that timed out.
	Schedule, UncertainSchedule int64
	Tracking, UncertainTracking int64
	// Drift* are the credits the server counted that we did not (0 when our
	// count is right).
	DriftSchedule, DriftTracking int64
	// BalanceSchedule and BalanceTracking are the balances the server
	// reported after the last run that saw both; BalanceKnown says whether
	// one did.
	BalanceSchedule, BalanceTracking int64
	BalanceKnown                     bool
}

// readCredits reads the totals of credit_usage and the last balances of
// the run ledger.
func readCredits(ctx context.Context, db *sql.DB, r *Report) error {
	c := &r.Credits
	err := db.QueryRowContext(ctx, `
		SELECT coalesce(sum(runs), 0), coalesce(sum(runs_not_ok), 0), count(DISTINCT logical_date),
		       coalesce(sum(requests), 0),
		       coalesce(sum(credits_schedule), 0), coalesce(sum(credits_uncertain_schedule), 0),
		       coalesce(sum(calls_tracking), 0), coalesce(sum(calls_uncertain_tracking), 0),
		       coalesce(sum(drift_schedule), 0), coalesce(sum(drift_tracking), 0)
		FROM credit_usage`).Scan(&c.Runs, &c.RunsNotOK, &c.Days, &c.Requests,
		&c.Schedule, &c.UncertainSchedule, &c.Tracking, &c.UncertainTracking, &c.DriftSchedule, &c.DriftTracking)
	if err != nil {
		return err
	}
	err = db.QueryRowContext(ctx, `
		SELECT balance_schedule_after, balance_tracking_after
		FROM etl_runs
		WHERE balance_schedule_after IS NOT NULL AND balance_tracking_after IS NOT NULL
		ORDER BY started_at DESC, run_id DESC
		LIMIT 1`).Scan(&c.BalanceSchedule, &c.BalanceTracking)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	c.BalanceKnown = true
	return nil
}
