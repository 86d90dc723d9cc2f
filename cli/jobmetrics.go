package cli

import (
	"context"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/metrics"
	"github.com/etalake/etalake/wire"
)

const flagMetricsFile = "metrics-file"

func metricsFileFlag() cli.Flag {
	return &cli.StringFlag{Category: catOutput, Name: flagMetricsFile, EnvVars: []string{"ETALAKE_METRICS_FILE"},
		Usage: "at the job's end, however it ended, write its figures to this file in the Prometheus text format (for node_exporter's textfile collector; replaced whole, by a rename in the same directory): requests by status, credits, rows, dead letters, duration, status, key id and shard (docs/operations.md, \"A fleet you can watch\"); a dry run writes none"}
}

// jobFigures gathers what a run or backfill did for --metrics-file, as
// the job goes: the key id once the client is built, the result once the
// job ran; written when runJob returns, whatever it returns.
type jobFigures struct {
	file    metrics.File
	command string
	start   time.Time
	keyID   string
	shard   string
	res     *jobs.RunResult
}

// readMetricsFile reads --metrics-file and validates it
// (metrics.File.Validate): a directory that does not exist is refused
// before anything is asked, not found out at the end.
func readMetricsFile(c *cli.Context, command string) (*jobFigures, error) {
	f := metrics.File{Path: c.String(flagMetricsFile)}
	if f.Path == "" || c.Bool("dry-run") {
		return nil, nil
	}
	if err := f.Validate(); err != nil {
		return nil, settingError(c, err)
	}
	return &jobFigures{file: f, command: command, start: time.Now(), shard: "1/1"}, nil
}

// setKey and setResult record what the job learned, when there is a
// file to write it to.
func (f *jobFigures) setKey(id string) {
	if f != nil {
		f.keyID = id
	}
}

func (f *jobFigures) setShard(s jobs.Shard) {
	if f != nil {
		f.shard = s.String()
	}
}

func (f *jobFigures) setResult(res jobs.RunResult) {
	if f != nil {
		f.res = &res
	}
}

// write writes the job's figures as it ended with err: those of its run
// when it began one, else only how it ended (refused, busy, failed before
// its run). A file that cannot be written is logged as an error and the
// exit code stays the job's, as etl_runs.exit_code recorded it: the
// file's end timestamp going stale is what an alert sees.
func (f *jobFigures) write(c *cli.Context, log *slog.Logger, err error) error {
	if f == nil {
		return err
	}
	j := metrics.Job{Command: f.command, KeyID: f.keyID, Shard: f.shard, Version: version,
		Status: string(verdictOf(err)), ExitCode: exitCode(err), Start: f.start, End: time.Now()}
	if f.res != nil && f.res.Run.ID != "" {
		figuresOf(&j, f.res)
	}
	if j.Status == string(jobs.VerdictOK) {
		j.LastSuccess = j.End
	} else if prev, perr := f.file.Previous(); perr != nil {
		log.Warn("metrics: the last success time is not carried over", "error", perr)
	} else {
		j.LastSuccess = prev
	}
	if werr := f.file.Write(j); werr != nil {
		log.LogAttrs(context.WithoutCancel(c.Context), slog.LevelError, "metrics: not written", slog.String("error", werr.Error()))
	}
	return err
}

// figuresOf copies a run's figures, as its summary and etl_runs say
// them, into j.
func figuresOf(j *metrics.Job, res *jobs.RunResult) {
	r := res.Run
	j.RunID = r.ID
	if !r.StartedAt.IsZero() {
		j.Start = r.StartedAt
	}
	if !r.EndedAt.IsZero() {
		j.End = r.EndedAt
	}
	j.ByStatus = r.ByStatus
	j.NoResponse = max(0, r.Requests-sumStatuses(r.ByStatus))
	j.Spent = map[string]int64{string(wire.ProductSchedule): r.SpentSchedule, string(wire.ProductTracking): r.CallsTracking}
	j.Uncertain = map[string]int64{string(wire.ProductSchedule): r.UncertainSchedule, string(wire.ProductTracking): r.UncertainTracking}
	j.Rows = r.Rows
	j.DeadLetters = int64(res.DeadLetters)
}
