package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
)

// Names of the log's flags. Every command has --log-format and
// --log-level; the fetching jobs (run, backfill) --progress-interval.
const (
	flagLogFormat        = "log-format"
	flagLogLevel         = "log-level"
	flagProgressInterval = "progress-interval"
)

// The log formats.
const (
	logText = "text"
	logJSON = "json"
)

// logFlags are the flags of the log, on every command.
func logFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Category: catOutput, Name: flagLogFormat, EnvVars: []string{envLogFormat}, Value: logText,
			Usage: "text or json; with json every line etalake writes on stderr and stdout is one JSON object: the log, what a command did (a run's summary is its last \"summary\" event) and how it failed (a last \"exit\" event with the exit code); the output of sql, report and sim world is as their own options ask"},
		&cli.StringFlag{Category: catOutput, Name: flagLogLevel, EnvVars: []string{"ETALAKE_LOG_LEVEL"}, Value: "info",
			Usage: "the least severe log line written on stderr: debug, info, warn or error (what a command did is written whatever the level)"},
	}
}

// progressIntervalFlag is how often a fetching job without a terminal
// says how far it is.
func progressIntervalFlag() cli.Flag {
	return &cli.DurationFlag{Category: catOutput, Name: flagProgressInterval, EnvVars: []string{"ETALAKE_PROGRESS_INTERVAL"}, Value: jobs.DefaultProgressEvery,
		Usage: "off a terminal (or with --log-format json), log a \"run: progress\" event this often while the job fetches: requests done of those the caps and balances let it send, credits spent, pace and time left; 0: none"}
}

// jsonLog reports whether the command logs JSON.
func jsonLog(c *cli.Context) bool { return c.String(flagLogFormat) == logJSON }

// newLogger builds the stderr logger of --log-format and --log-level.
func newLogger(c *cli.Context) (*slog.Logger, error) { return newLoggerAt(c, slog.LevelInfo) }

// newLoggerAt is newLogger logging from level unless --log-level says
// otherwise (the demo's own lines say what its nights did: it logs from
// warn).
func newLoggerAt(c *cli.Context, level slog.Level) (*slog.Logger, error) {
	return newLoggerTo(c, c.App.ErrWriter, level)
}

// newLoggerTo is newLoggerAt writing to w.
func newLoggerTo(c *cli.Context, w io.Writer, level slog.Level) (*slog.Logger, error) {
	if c.IsSet(flagLogLevel) {
		s := strings.TrimSpace(c.String(flagLogLevel))
		if err := level.UnmarshalText([]byte(s)); err != nil {
			return nil, configError("%s %q: want debug, info, warn or error", settingName(c, flagLogLevel), s)
		}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch f := c.String(flagLogFormat); f {
	case logText, "":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case logJSON:
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	default:
		return nil, configError("%s %q: want text or json", settingName(c, flagLogFormat), f)
	}
}

// events writes what a command did on stdout as JSON objects, one a
// line, as the log's: for --log-format json. It writes whatever
// --log-level says: what a command did is its output, not its log.
func events(c *cli.Context) *slog.Logger {
	return slog.New(slog.NewJSONHandler(c.App.Writer, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// endLevel is the level of the event that says how a job ended.
func endLevel(status string) slog.Level {
	switch status {
	case "ok":
		return slog.LevelInfo
	case "partial":
		return slog.LevelWarn
	}
	return slog.LevelError
}

// writeExit writes, when the command failed, its last line on stderr:
// "etalake: <error>", or with --log-format json (in args, else in
// ETALAKE_LOG_FORMAT) an "exit" event with the exit code and the error.
func writeExit(w io.Writer, args []string, err error) {
	if err == nil {
		return
	}
	if logFormatOf(args, os.Getenv(envLogFormat)) != logJSON {
		fmt.Fprintln(w, "etalake:", err)
		return
	}
	code := exitCode(err)
	level := slog.LevelError
	if code == exitPartial || code == exitBusy || code == exitInterrupted || code == exitTerminated {
		level = slog.LevelWarn
	}
	slog.New(slog.NewJSONHandler(w, nil)).Log(context.Background(), level, "exit", "exit_code", code, "error", err.Error())
}

// logFormatOf is the log format a command line asks: the last
// --log-format among args (before a "--"), else env, the variable's value.
// It is read apart from cli's parsing, which may be what failed.
func logFormatOf(args []string, env string) string {
	format := env
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != flagLogFormat {
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				break
			}
			i++
			value = args[i]
		}
		format = value
	}
	return strings.TrimSpace(format)
}
