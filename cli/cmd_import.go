package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "load archived API responses (files or directories of JSON) like fetched ones",
		ArgsUsage: "FILE|DIR…",
		Description: "Each .json file holds one response; each line of an .ndjson or .jsonl file holds one.\n" +
			"A directory is walked for those files, skipping others; a file of another name given outright (a .csv) is refused.\n" +
			"Which request a body answers is inferred from its shape: a shipment from its metadata or first\n" +
			"container, a port schedule from its location, port-to-port from its places, a vessel schedule\n" +
			"from its vessel, consumption periods from their fields. --endpoint and --request name it instead.\n" +
			"Imported bodies land in the raw landing like fetched ones; importing twice changes nothing.\n" +
			"A body larger than --max-body is landed and dead-lettered, not decoded. An interrupted or failed\n" +
			"import keeps every load it committed; importing again lands only what is new.\n\n" +
			"Every body read is landed: one that no shape identifies is kept as endpoint \"unidentified\" under\n" +
			"its file and line, and dead-lettered with the reason; one whose identifiers look odd (a container\n" +
			"number whose check digit fails) is derived like any other.\n\n" +
			"Exit codes: 0 ok, 1 failure, 2 usage, 3 partial (bodies or records dead-lettered), 75 busy, 130 and 143 stopped by SIGINT or SIGTERM (what landed is kept).",
		Flags: append(writerFlags(),
			&cli.StringFlag{Category: catSelection, Name: "observed-at", Usage: "when the responses were true (RFC 3339 or date); default: each file's modification time"},
			&cli.StringFlag{Category: catSelection, Name: "endpoint", Usage: "what every body answers: schedule_port, schedule_p2p, schedule_vessel, shipment, consumption_current_period, consumption_periods"},
			&cli.StringFlag{Category: catSelection, Name: "request", Usage: "with --endpoint: the request path and query, e.g. " + wire.ScheduleBasePath + "/schedule/NLRTM"},
			maxBodyFlag(),
		),
		OnUsageError: usageError,
		Action:       importResponses,
	}
}

// importResponses lands and derives the files' responses (jobs.Import)
// and says what it did.
func importResponses(c *cli.Context) error {
	opt, err := importOptions(c)
	if err != nil {
		return err
	}
	st, err := onWarehouse(c, func(wh *load.Warehouse) (jobs.ImportStats, error) {
		return jobs.Import(c.Context, wh, c.Args().Slice(), opt)
	})
	if errors.Is(err, jobs.ErrNothingToImport) { // the files went away meanwhile
		err = usageErr{err}
	}
	switch {
	case st.Run == "":
	case jsonLog(c):
		events(c).LogAttrs(context.WithoutCancel(c.Context), endLevel(st.Status), "summary", append(outcomeAttrs("import", st.Outcome, err),
			slog.Int("files", st.Files), slog.Int("bodies", st.Bodies), slog.Int("landed", st.Landed),
			slog.Int("already_there", st.AlreadyThere), slog.Int("unidentified", st.Unidentified))...)
	default:
		writeImportSummary(c.App.Writer, st)
	}
	if err == nil && st.Verdict != jobs.VerdictOK {
		return ended{st.Verdict, "import ended " + st.Status + ": bodies or records in them were dead-lettered (see dead_letters)"}
	}
	return err
}

// importOptions reads what the files answer, when they were true and the
// body limit, and validates them (jobs.ImportOptions.Validate) and the
// paths before the warehouse is opened (or created): a path that names
// nothing to import is the user's to fix.
func importOptions(c *cli.Context) (jobs.ImportOptions, error) {
	if err := flagsFirst(c); err != nil {
		return jobs.ImportOptions{}, err
	}
	if c.NArg() == 0 {
		return jobs.ImportOptions{}, configError("import wants files or directories of JSON responses")
	}
	log, err := newLogger(c)
	if err != nil {
		return jobs.ImportOptions{}, err
	}
	opt := jobs.ImportOptions{Endpoint: wire.Endpoint(c.String("endpoint")), Request: c.String("request"),
		Version: version, Log: log, ExitCodes: exitCodes}
	if s := c.String("observed-at"); s != "" {
		if opt.ObservedAt, err = parseTime("observed-at", s); err != nil {
			return opt, err
		}
	}
	if opt.MaxBody, err = maxBody(c); err != nil {
		return opt, err
	}
	if err := opt.Validate(); err != nil {
		return opt, settingError(c, err)
	}
	if err := jobs.CheckImportPaths(c.Args().Slice()); err != nil {
		return opt, configError("import: %v", err)
	}
	return opt, nil
}

// writeImportSummary says what an import did, in counts that add up:
// bodies read = landed new + already there; of them, some dead-lettered.
func writeImportSummary(w io.Writer, st jobs.ImportStats) {
	fmt.Fprintf(w, "import %s: %s\n", st.Run, st.Status)
	fmt.Fprintf(w, "  bodies     %d read from %d files: %d landed new, %d already there\n", st.Bodies, st.Files, st.Landed, st.AlreadyThere)
	fmt.Fprintf(w, "  rows       %s\n", rowsSummary(st.Rows))
	if st.DeadLetters > 0 {
		fmt.Fprintf(w, "  dead       %s", jobs.DeadLetters(st.DeadLetters, st.Quarantined))
		if st.Unidentified > 0 {
			fmt.Fprintf(w, ", %d of them identified as no known answer", st.Unidentified)
		}
		fmt.Fprintln(w, ": kept in raw_responses, the reasons in dead_letters")
	}
}
