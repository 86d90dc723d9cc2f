package jobs

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// Run statuses of etl_runs.
const (
	StatusRunning = "running"
	StatusOK      = "ok"
	StatusPartial = "partial"
	StatusFailed  = "failed"
)

// Run is a job's row in etl_runs: written when it starts (status running)
// and again when it ends. A row left running after the process is gone was
// cut off by a crash or kill.
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
	Args                                        map[string]any
	Version                                     string
}

// newRunID is unique and sorts by start time: 20260105T020000Z-3f2a1c9d.
func newRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// drift is what the server charged beyond our count: (before − after) −
// (spent + uncertain) when both balances are known and in the same period.
func drift(before, after *int64, spent int64) *int64 {
	if before == nil || after == nil || *after > *before {
		return nil // unknown, or a new period started during the run
	}
	d := (*before - *after) - spent
	return &d
}

// save writes the run's row (last write wins).
func (r *Run) save(ctx context.Context, wh *load.Warehouse) error {
	rec, err := r.record(memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer rec.Release()
	if _, err := wh.Load(ctx, []load.Batch{{Table: schema.ETLRuns, Rec: rec}}); err != nil {
		return fmt.Errorf("recording run %s: %w", r.ID, err)
	}
	return nil
}

func (r *Run) record(mem memory.Allocator) (arrow.RecordBatch, error) {
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
		"drift_schedule": drift(r.BalanceScheduleBefore, r.BalanceScheduleAfter, r.SpentSchedule+r.UncertainSchedule),
		"drift_tracking": drift(r.BalanceTrackingBefore, r.BalanceTrackingAfter, r.CallsTracking+r.UncertainTracking),
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
	return rowRecord(mem, schema.ETLRuns, v)
}

// jsonText encodes v with sorted keys (encoding/json sorts map keys).
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// rowRecord builds a one-row record of table t from values by column name;
// a missing value is null. Timestamps are time.Time, dates time.Time (their
// UTC date), JSON and VARCHAR strings.
func rowRecord(mem memory.Allocator, t *schema.Table, v map[string]any) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(mem, t.Arrow())
	defer b.Release()
	var unknown []string
	for name := range v {
		if _, ok := t.Column(name); !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s has no column %v", t.Name, unknown)
	}
	for i, c := range t.Columns {
		f := b.Field(i)
		val, ok := v[c.Name]
		if !ok || val == nil {
			if !c.Nullable {
				return nil, fmt.Errorf("%s.%s: a value is required", t.Name, c.Name)
			}
			f.AppendNull()
			continue
		}
		switch fb := f.(type) {
		case *array.StringBuilder:
			fb.Append(val.(string))
		case *array.Int64Builder:
			fb.Append(val.(int64))
		case *array.Int32Builder:
			fb.Append(val.(int32))
		case *array.Float64Builder:
			fb.Append(val.(float64))
		case *array.BooleanBuilder:
			fb.Append(val.(bool))
		case *array.TimestampBuilder:
			fb.Append(arrow.Timestamp(val.(time.Time).UnixMicro()))
		case *array.Date32Builder:
			fb.Append(arrow.Date32FromTime(val.(time.Time).UTC()))
		default:
			return nil, fmt.Errorf("%s.%s: unsupported builder %T", t.Name, c.Name, f)
		}
	}
	return b.NewRecordBatch(), nil
}

// endDeadRuns ends the rows of runs that are still "running": the writer
// lock guarantees no other job is writing, so their process died (killed,
// crashed, machine lost) before it could record the end.
func endDeadRuns(ctx context.Context, wh *load.Warehouse, now time.Time) error {
	rows, err := wh.DB().QueryContext(ctx, `SELECT run_id, job, logical_date, started_at, requests,
  coalesce(requests_by_status::VARCHAR, '{}'), credits_spent_schedule, credits_uncertain_schedule, calls_tracking,
  calls_uncertain_tracking, balance_schedule_before, balance_tracking_before, coalesce(rows_loaded::VARCHAR, '{}'),
  coalesce(args::VARCHAR, '{}'), version
FROM etl_runs WHERE status = 'running'`)
	if err != nil {
		return fmt.Errorf("reading unfinished runs: %w", err)
	}
	var dead []*Run
	for rows.Next() {
		r := &Run{}
		var logical sql.NullTime
		var byStatus, loaded, args string
		var balS, balT sql.NullInt64
		if err := rows.Scan(&r.ID, &r.Job, &logical, &r.StartedAt, &r.Requests, &byStatus, &r.SpentSchedule,
			&r.UncertainSchedule, &r.CallsTracking, &r.UncertainTracking, &balS, &balT, &loaded, &args, &r.Version); err != nil {
			rows.Close()
			return err
		}
		if logical.Valid {
			d := logical.Time.UTC()
			r.LogicalDate = &d
		}
		r.BalanceScheduleBefore = nullInt(balS)
		r.BalanceTrackingBefore = nullInt(balT)
		var statuses map[string]int64
		_ = json.Unmarshal([]byte(byStatus), &statuses)
		for k, v := range statuses {
			if s, err := strconv.Atoi(k); err == nil {
				if r.ByStatus == nil {
					r.ByStatus = map[int]int64{}
				}
				r.ByStatus[s] = v
			}
		}
		_ = json.Unmarshal([]byte(loaded), &r.Rows)
		_ = json.Unmarshal([]byte(args), &r.Args)
		dead = append(dead, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range dead {
		r.StartedAt = r.StartedAt.UTC()
		r.Status, r.EndedAt, r.ExitCode = StatusFailed, now, intPtr(ExitFailure)
		r.Error = "the process ended without recording its end (killed, crashed or lost); what it landed was kept"
		if err := r.save(ctx, wh); err != nil {
			return err
		}
	}
	return nil
}

func nullInt(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}
