package metrics

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/etalake/etalake/internal/setting"
)

// The metric names, each documented in docs/operations.md ("A fleet you can watch").
// Every one is a gauge: the file holds one job's figures and the next job
// replaces it, so a figure is the last job's, not a running total.
const (
	NameRequests       = "etalake_job_requests"
	NameCreditsSpent   = "etalake_job_credits_spent"
	NameCreditsUnsure  = "etalake_job_credits_uncertain"
	NameRows           = "etalake_job_rows_loaded"
	NameDeadLetters    = "etalake_job_dead_letters"
	NameDuration       = "etalake_job_duration_seconds"
	NameStatus         = "etalake_job_status"
	NameExitCode       = "etalake_job_exit_code"
	NameStart          = "etalake_job_start_timestamp_seconds"
	NameEnd            = "etalake_job_end_timestamp_seconds"
	NameLastSuccess    = "etalake_job_last_success_timestamp_seconds"
	NameInfo           = "etalake_job_info"
	labelCommand       = "command"
	labelKeyID         = "key_id"
	labelShard         = "shard"
	labelStatus        = "status"
	labelProduct       = "product"
	labelTable         = "table"
	labelRunID         = "run_id"
	labelVersion       = "version"
	statusNoResponse   = "no_response"
	lastSuccessUnknown = 0
)

// Statuses are the values of etalake_job_status's status label, one of
// them 1 and the others 0, so that an alert can say
// etalake_job_status{status="ok"} == 0 without knowing the others.
var Statuses = []string{"ok", "partial", "failed", "refused", "busy"}

// Job is what one job did, as its summary and etl_runs say it.
type Job struct {
	// Command is the command that ran (run, backfill); KeyID the key's
	// fingerprint ("" when the key was not read), never the key; Shard
	// the worker's part, "I/N" ("1/1": everything).
	Command, KeyID, Shard string
	// RunID is etl_runs.run_id ("" when the job began no run); Version
	// the binary's.
	RunID, Version string
	// Status is one of Statuses; ExitCode what the process exits with.
	Status   string
	ExitCode int
	// Start and End bound the job.
	Start, End time.Time
	// ByStatus counts the requests answered, by HTTP status; NoResponse
	// those that had no answer at all.
	ByStatus   map[int]int64
	NoResponse int64
	// Spent and Uncertain are the credits counted and those possibly
	// charged (timed out, broken in transfer), by product.
	Spent, Uncertain map[string]int64
	// Rows counts the rows loaded, by table.
	Rows map[string]int64
	// DeadLetters counts the responses dead-lettered.
	DeadLetters int64
	// LastSuccess is the end of the last job that ended ok: End when this
	// one did; else what the file this one replaces said (Previous).
	LastSuccess time.Time
}

// File is where the figures go: the --metrics-file setting.
type File struct {
	Path string
}

// Validate refuses a path whose directory does not exist, before the job
// asks anything: the file is written at the job's end, when finding out
// costs a night's figures.
func (f File) Validate() error {
	if f.Path == "" {
		return nil
	}
	dir := filepath.Dir(f.Path)
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return setting.Refuse("MetricsFile", strconv.Quote(f.Path), fmt.Sprintf("a file in an existing directory (%v)", errors.Unwrap(err)))
	case !st.IsDir():
		return setting.Refuse("MetricsFile", strconv.Quote(f.Path), dir+" is not a directory")
	}
	if st, err := os.Stat(f.Path); err == nil && st.IsDir() {
		return setting.Refuse("MetricsFile", strconv.Quote(f.Path), "a file, not a directory")
	}
	return nil
}

// Write replaces the file with j's figures: a temporary file in the same
// directory, renamed over it (prometheus.WriteToTextfile), mode 0644 for
// the collector.
func (f File) Write(j Job) error {
	reg := prometheus.NewPedanticRegistry()
	if err := register(reg, j); err != nil {
		return fmt.Errorf("metrics file %s: %w", f.Path, err)
	}
	if err := prometheus.WriteToTextfile(f.Path, reg); err != nil {
		return fmt.Errorf("metrics file %s: %w", f.Path, err)
	}
	return nil
}

// register adds j's figures to reg, each labelled with the command, the
// key id and the shard.
func register(reg *prometheus.Registry, j Job) error {
	constant := prometheus.Labels{labelCommand: j.Command, labelKeyID: j.KeyID, labelShard: j.Shard}
	gauge := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: constant})
		reg.MustRegister(g)
		return g
	}
	vec := func(name, help string, labels ...string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: constant}, labels)
		reg.MustRegister(g)
		return g
	}
	info := vec(NameInfo, "The last job: its run id (etl_runs.run_id) and the binary's version; always 1.", labelRunID, labelVersion)
	info.WithLabelValues(j.RunID, j.Version).Set(1)

	status := vec(NameStatus, "How the last job ended: 1 for its status, 0 for the others.", labelStatus)
	known := false
	for _, s := range Statuses {
		v := 0.0
		if s == j.Status {
			v, known = 1, true
		}
		status.WithLabelValues(s).Set(v)
	}
	if !known {
		return fmt.Errorf("status %q is none of %v", j.Status, Statuses)
	}
	gauge(NameExitCode, "The exit code of the last job: 0 ok, 1 failed, 2 refused, 3 partial, 75 busy, 130 interrupted (SIGINT), 143 terminated (SIGTERM).").Set(float64(j.ExitCode))
	gauge(NameStart, "When the last job began, in seconds since the epoch.").Set(seconds(j.Start))
	gauge(NameEnd, "When the last job ended, in seconds since the epoch.").Set(seconds(j.End))
	gauge(NameDuration, "How long the last job took.").Set(j.End.Sub(j.Start).Seconds())
	gauge(NameLastSuccess, "When the last job that ended ok ended, in seconds since the epoch; 0 when none is known.").Set(seconds(j.LastSuccess))

	requests := vec(NameRequests, "The last job's requests, by HTTP status (no_response: none came).", labelStatus)
	for code, n := range j.ByStatus {
		requests.WithLabelValues(strconv.Itoa(code)).Set(float64(n))
	}
	requests.WithLabelValues(statusNoResponse).Set(float64(j.NoResponse))

	spent := vec(NameCreditsSpent, "The credits the last job spent by our count, by product (tracking: calls).", labelProduct)
	unsure := vec(NameCreditsUnsure, "The credits the last job possibly spent (timed out, broken in transfer), by product.", labelProduct)
	for _, p := range []string{"schedule", "tracking"} {
		spent.WithLabelValues(p).Set(float64(j.Spent[p]))
		unsure.WithLabelValues(p).Set(float64(j.Uncertain[p]))
	}
	rows := vec(NameRows, "The rows the last job loaded, by table.", labelTable)
	for t, n := range j.Rows {
		rows.WithLabelValues(t).Set(float64(n))
	}
	gauge(NameDeadLetters, "The responses the last job dead-lettered (kept in raw_responses, the reasons in dead_letters).").Set(float64(j.DeadLetters))
	return nil
}

// seconds is t in seconds since the epoch; the zero time is 0.
func seconds(t time.Time) float64 {
	if t.IsZero() {
		return lastSuccessUnknown
	}
	return float64(t.UnixNano()) / 1e9
}

// Previous reads the last success time from the file a job is about to
// replace: the zero time when there is no file, or it says none. A file
// that does not parse is an error (something else writes there).
func (f File) Previous() (time.Time, error) {
	r, err := os.Open(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("metrics file %s: %w", f.Path, err)
	}
	defer r.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return time.Time{}, fmt.Errorf("metrics file %s: not the Prometheus text format: %w", f.Path, err)
	}
	mf, ok := families[NameLastSuccess]
	if !ok || len(mf.GetMetric()) == 0 {
		return time.Time{}, nil
	}
	v := mf.GetMetric()[0].GetGauge().GetValue()
	if v <= 0 {
		return time.Time{}, nil
	}
	sec, frac := int64(v), v-float64(int64(v))
	return time.Unix(sec, int64(frac*1e9)).UTC(), nil
}
