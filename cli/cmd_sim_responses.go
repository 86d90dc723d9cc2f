package cli

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/sim"
)

// simResponsesCommand writes the simulated tracking answers as NDJSON
// files, one a day, for etalake import.
func simResponsesCommand() *cli.Command {
	return &cli.Command{
		Name:  "responses",
		Usage: "write the simulated service's tracking responses as NDJSON, one file per day, ready for import",
		Description: "For each day from --start, writes <out>/YYYY-MM-DD.ndjson holding the tracking response of\n" +
			"every shipment visible that day at --hour, and sets the file's modification time to that moment,\n" +
			"which is what `etalake import` takes as observed_at:\n" +
			"   etalake sim responses --days 30 --out responses/ && etalake import responses/",
		Flags: append(append(worldFlags(),
			&cli.StringFlag{Category: catOutput, Name: "out", Required: true, Usage: "directory to write the files to (created)"},
			&cli.IntFlag{Category: catWorld, Name: "hour", Value: 2, Usage: "hour of the day (UTC) of each snapshot"},
		), logFlags()...),
		OnUsageError: usageError,
		Action:       writeSimResponses,
	}
}

// writeSimResponses writes a day's tracking responses per file, ready for
// import, and says how many.
func writeSimResponses(c *cli.Context) error {
	wcfg, err := worldConfig(c)
	if err != nil {
		return err
	}
	if h := c.Int("hour"); h < 0 || h > 23 {
		return configError("--hour %d: want 0 to 23", h)
	}
	n, err := sim.WriteResponses(sim.NewWorld(wcfg), c.String("out"), time.Duration(c.Int("hour"))*time.Hour)
	if err != nil {
		return err
	}
	if jsonLog(c) {
		events(c).LogAttrs(c.Context, slog.LevelInfo, "summary", slog.String("job", "sim responses"), slog.Int("exit_code", exitOK),
			slog.Int("responses", n), slog.Int("days", wcfg.Days), slog.String("out", c.String("out")))
		return nil
	}
	fmt.Fprintf(c.App.Writer, "wrote %d responses for %d days to %s\n", n, wcfg.Days, c.String("out"))
	return nil
}
