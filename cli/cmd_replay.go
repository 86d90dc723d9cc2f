package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:  "replay",
		Usage: "rebuild the derived tables and the Parquet mirror from the raw landing, without a request",
		Description: "Without --from/--to, every derived table is emptied and rebuilt from every landed response:\n" +
			"the result equals the original loads. With a range, the responses observed in it are derived\n" +
			"again (their history rows rebuilt, latest states refreshed). Replaying twice changes nothing.\n" +
			"Responses a job quarantined (dead-lettered whole: larger than --max-body, or refused by the\n" +
			"warehouse) are derived again: after a fix, or with a larger --max-body, they load.\n" +
			"Readers of etalake.duckdb and of the Parquet mirror keep the tables as they were until the replay\n" +
			"ends and publishes them rebuilt. A replay that stops publishes nothing: the next job (any writer,\n" +
			"or replaying again) derives what it had not and publishes.\n\n" +
			"Exit codes: 0 ok, 1 failure, 2 usage, 3 partial (responses were dead-lettered), 75 busy, 130 and 143 stopped by SIGINT or SIGTERM (what landed is kept).",
		Flags: append(writerFlags(),
			&cli.StringFlag{Category: catSelection, Name: "from", Usage: "first observed date to replay (YYYY-MM-DD or RFC 3339)"},
			&cli.StringFlag{Category: catSelection, Name: "to", Usage: "end of the range, exclusive (YYYY-MM-DD or RFC 3339)"},
			maxBodyFlag(),
		),
		OnUsageError: usageError,
		Action:       replay,
	}
}

// replay rebuilds the derived tables from the raw landing (jobs.Replay)
// and says what it did.
func replay(c *cli.Context) error {
	opt, err := replayOptions(c)
	if err != nil {
		return err
	}
	st, err := onWarehouse(c, func(wh *load.Warehouse) (jobs.ReplayStats, error) {
		return jobs.Replay(c.Context, wh, opt)
	})
	switch {
	case st.Run == "": // no job began: the error says why
	case jsonLog(c):
		events(c).LogAttrs(context.WithoutCancel(c.Context), endLevel(st.Status), "summary",
			append(outcomeAttrs("replay", st.Outcome, err), slog.Int("responses", st.Responses))...)
	default:
		fmt.Fprintf(c.App.Writer, "replayed %d responses (run %s, %s): %s; %s\n", st.Responses, st.Run, st.Status, rowsSummary(st.Rows), jobs.DeadLetters(st.DeadLetters, st.Quarantined))
	}
	if err == nil && st.Verdict != jobs.VerdictOK {
		return ended{st.Verdict, "replay ended " + st.Status + ": responses were dead-lettered (see dead_letters)"}
	}
	return err
}

// replayOptions reads replay's range and body limit, and validates them
// (jobs.ReplayOptions.Validate) before the warehouse is opened.
func replayOptions(c *cli.Context) (jobs.ReplayOptions, error) {
	if c.NArg() > 0 {
		return jobs.ReplayOptions{}, configError("replay takes no argument (got %q); the range is --from DATE --to DATE", c.Args().First())
	}
	log, err := newLogger(c)
	if err != nil {
		return jobs.ReplayOptions{}, err
	}
	opt := jobs.ReplayOptions{Version: version, Log: log, ExitCodes: exitCodes}
	if s := c.String("from"); s != "" {
		if opt.From, err = parseTime("from", s); err != nil {
			return opt, err
		}
	}
	if s := c.String("to"); s != "" {
		if opt.To, err = parseTime("to", s); err != nil {
			return opt, err
		}
	}
	if opt.MaxBody, err = maxBody(c); err != nil {
		return opt, err
	}
	return opt, settingError(c, opt.Validate())
}
