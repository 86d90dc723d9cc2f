package load

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/etalake/etalake/schema"
)

// Run statuses of etl_runs.
const (
	StatusRunning = "running"
	StatusOK      = "ok"
	StatusPartial = "partial"
	StatusFailed  = "failed"
)

// Run is a job's row in etl_runs: saved when it starts (status running)
// and again when it ends. A row left running after the process is gone was
// cut off by a crash or kill (see EndUnfinishedRuns).
type Run struct {
	ID          string
	Job         string
	LogicalDate *time.Time
	StartedAt   time.Time
	EndedAt     time.Time // zero while running
	Status      string
	ExitCode    *int
	StopReason  string
	Error       string
	Requests    int64
	ByStatus    map[int]int64
	// Credits by our own count, and those possibly charged (timeouts).
	SpentSchedule, UncertainSchedule int64
	CallsTracking, UncertainTracking int64
	// Balances the server reported, nil when unknown.
	BalanceScheduleBefore, BalanceScheduleAfter *int64
	BalanceTrackingBefore, BalanceTrackingAfter *int64
	Rows                                        map[string]int64
	// Shortfalls counts, by reason, what the run did not get
	// (etl_runs.shortfalls): any count makes it partial.
	Shortfalls map[string]int64
	// GivenUp lists the resources given up for the logical date when the
	// run ended (etl_runs.given_up), with the command that asks each again.
	GivenUp []GivenUp
	Args    map[string]any
	Version string
	// Shard is the worker's part, I/N (etl_runs.shard); "" when the run
	// asked everything.
	Shard string
}

// GivenUp is a resource whose answer for a run's logical date was not had
// in as many jobs as a job asks it (--max-reasks): the next jobs of the
// date ask it only once the service answers its product well again.
type GivenUp struct {
	Resource string `json:"resource"` // as raw_responses.resource names it
	// FailedJobs counts the jobs whose answer stayed broken or stopped
	// paging; Why says what was wrong with the latest.
	FailedJobs int    `json:"failed_jobs"`
	Why        string `json:"why"`
	// Asked: this run asked it, in vain; else it did not ask it.
	Asked bool `json:"asked"`
	// Command asks it again now, whatever the rule: a person pastes it.
	Command string `json:"command"`
}

// DriftSchedule is what the server charged beyond our count of schedule
// credits, nil when it cannot be known (see Drift).
func (r *Run) DriftSchedule() *int64 {
	return Drift(r.BalanceScheduleBefore, r.BalanceScheduleAfter, r.SpentSchedule+r.UncertainSchedule)
}

// DriftTracking is DriftSchedule for the tracking product.
func (r *Run) DriftTracking() *int64 {
	return Drift(r.BalanceTrackingBefore, r.BalanceTrackingAfter, r.CallsTracking+r.UncertainTracking)
}

// Drift is (before − after) − ours when both balances are known and in the
// same period; nil otherwise (a new period may have started meanwhile).
func Drift(before, after *int64, ours int64) *int64 {
	if before == nil || after == nil || *after > *before {
		return nil
	}
	d := (*before - *after) - ours
	return &d
}

// SaveRun writes the run's row of etl_runs (the last write of a run wins).
func (w *Warehouse) SaveRun(ctx context.Context, r *Run) error {
	rec, err := recordOf(schema.ETLRuns, []map[string]any{r.values()})
	if err != nil {
		return fmt.Errorf("recording run %s: %w", r.ID, err)
	}
	defer rec.Release()
	if _, err := w.Load(ctx, []schema.Rows{{Table: schema.ETLRuns, Rec: rec}}); err != nil {
		return fmt.Errorf("recording run %s: %w", r.ID, err)
	}
	w.mu.Lock()
	w.lastRun = r.ID
	w.mu.Unlock()
	return nil
}

// values is the run's row by column name.
func (r *Run) values() map[string]any {
	v := map[string]any{
		"run_id":                     r.ID,
		"job":                        r.Job,
		"started_at":                 r.StartedAt,
		"status":                     r.Status,
		"requests":                   r.Requests,
		"credits_spent_schedule":     r.SpentSchedule,
		"credits_uncertain_schedule": r.UncertainSchedule,
		"calls_tracking":             r.CallsTracking,
		"calls_uncertain_tracking":   r.UncertainTracking,
		"version":                    r.Version,
		"started_date":               r.StartedAt,
	}
	if r.LogicalDate != nil {
		v["logical_date"] = *r.LogicalDate
	}
	if !r.EndedAt.IsZero() {
		v["ended_at"] = r.EndedAt
		v["duration_seconds"] = r.EndedAt.Sub(r.StartedAt).Seconds()
	}
	if r.ExitCode != nil {
		v["exit_code"] = int32(*r.ExitCode)
	}
	for col, s := range map[string]string{"stop_reason": r.StopReason, "error": r.Error} {
		if s != "" {
			v[col] = s
		}
	}
	for col, n := range map[string]*int64{
		"balance_schedule_before": r.BalanceScheduleBefore, "balance_schedule_after": r.BalanceScheduleAfter,
		"balance_tracking_before": r.BalanceTrackingBefore, "balance_tracking_after": r.BalanceTrackingAfter,
		"drift_schedule": r.DriftSchedule(), "drift_tracking": r.DriftTracking(),
	} {
		if n != nil {
			v[col] = *n
		}
	}
	if len(r.ByStatus) > 0 {
		byStatus := map[string]int64{}
		for s, n := range r.ByStatus {
			byStatus[strconv.Itoa(s)] = n
		}
		v["requests_by_status"] = jsonText(byStatus)
	}
	if len(r.Rows) > 0 {
		v["rows_loaded"] = jsonText(r.Rows)
	}
	if len(r.Args) > 0 {
		v["args"] = jsonText(r.Args)
	}
	if len(r.Shortfalls) > 0 {
		v["shortfalls"] = jsonText(r.Shortfalls)
	}
	if len(r.GivenUp) > 0 {
		v["given_up"] = jsonText(r.GivenUp)
	}
	if r.Shard != "" {
		v["shard"] = r.Shard
	}
	return v
}

// jsonText encodes v with sorted keys (encoding/json sorts map keys).
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// EndUnfinishedRuns marks every run still "running" as failed at now,
// with reason as its error and the requests and credits of what it landed
// (landedFigures), and returns how many it ended; their exit
// code stays unknown (null). Only a writer calls it, and the writer lock guarantees
// that no other job is writing: a run left running is one whose process
// died (killed, crashed, machine lost) before it could record its end.
func (w *Warehouse) EndUnfinishedRuns(ctx context.Context, now time.Time, reason string) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var n int64
	err := w.inTx(ctx, func(s *session) error {
		// The mirror's partitions of those runs change too.
		if _, err := s.exec(ctx, pendingSQL(schema.ETLRuns, "SELECT started_date FROM etl_runs WHERE status = 'running'")); err != nil {
			return err
		}
		var err error
		n, err = s.exec(ctx, fmt.Sprintf(`UPDATE etl_runs SET status = %s, ended_at = %s, error = %s,
  duration_seconds = epoch(%[2]s) - epoch(started_at),
%[4]s
WHERE status = 'running'`, literal(StatusFailed), timestampLiteral(now), literal(reason), landedFigures))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("load: ending unfinished runs: %w", err)
	}
	return n, nil
}

// landedFigures sets the figures of a run that died from what it landed:
// its row still holds those it was saved with when it started (none), yet
// its responses are in raw_responses by its run id (the journal of the
// run is drained into it as the writer opens). A 2xx answer of a paid
// endpoint was charged, one that stayed broken possibly so; each counts
// where the run's own end would have counted it, never below what the row
// already says.
const landedFigures = `  requests = greatest(requests, (SELECT count(*) FROM raw_responses r WHERE r.run_id = etl_runs.run_id AND r.source = 'fetch')),
  requests_by_status = coalesce(requests_by_status, (SELECT json_group_object(CAST(status AS VARCHAR), n) FROM
      (SELECT r.status, count(*) AS n FROM raw_responses r WHERE r.run_id = etl_runs.run_id AND r.source = 'fetch' GROUP BY r.status ORDER BY r.status))),
  credits_spent_schedule = greatest(credits_spent_schedule, (SELECT count(*) FROM raw_responses r WHERE r.run_id = etl_runs.run_id AND ` + chargedSchedule + ` AND r.broken IS NULL)),
  credits_uncertain_schedule = greatest(credits_uncertain_schedule, (SELECT count(*) FROM raw_responses r WHERE r.run_id = etl_runs.run_id AND ` + chargedSchedule + ` AND r.broken IS NOT NULL)),
  calls_tracking = greatest(calls_tracking, (SELECT count(*) FROM raw_responses r WHERE r.run_id = etl_runs.run_id AND ` + chargedTracking + ` AND r.broken IS NULL)),
  calls_uncertain_tracking = greatest(calls_uncertain_tracking, (SELECT count(*) FROM raw_responses r WHERE r.run_id = etl_runs.run_id AND ` + chargedTracking + ` AND r.broken IS NOT NULL))`

// The landed answers that cost a credit: 2xx answers to a job's requests
// of a paid endpoint (wire.Endpoint.Paid; the balance is free).
const (
	chargedSchedule = `r.source = 'fetch' AND r.product = 'schedule' AND r.status BETWEEN 200 AND 299 AND r.endpoint NOT LIKE 'consumption%'`
	chargedTracking = `r.source = 'fetch' AND r.product = 'tracking' AND r.status BETWEEN 200 AND 299 AND r.endpoint NOT LIKE 'consumption%'`
)

// timestampLiteral renders t as a TIMESTAMPTZ literal, to the microsecond.
func timestampLiteral(t time.Time) string {
	return "TIMESTAMPTZ " + literal(t.UTC().Format("2006-01-02 15:04:05.999999Z07:00"))
}

// RunsByJob counts the runs of each job recorded in the warehouse db (a
// writer's, or one opened with OpenReadOnly).
func RunsByJob(ctx context.Context, db *sql.DB) (map[string]int64, error) {
	rows, err := db.QueryContext(ctx, "SELECT job, count(*) FROM etl_runs GROUP BY job")
	if err != nil {
		return nil, fmt.Errorf("load: reading etl_runs: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var job string
		var n int64
		if err := rows.Scan(&job, &n); err != nil {
			return nil, err
		}
		out[job] = n
	}
	return out, rows.Err()
}
