package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/jobs"
)

func backfillCommand() *cli.Command {
	return &cli.Command{
		Name:  "backfill",
		Usage: "an ad hoc run of the selection, without touching the tracked set",
		Description: runDescription + `

On a terminal it shows the cost and asks before spending, unless --yes or --max-credits is
given.`,
		Flags: append(runFlags(),
			&cli.BoolFlag{Category: catSelection, Name: "yes", Aliases: []string{"y"}, Usage: "do not ask before spending"},
			billingFlag(),
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			var confirm func(jobs.Plan) bool
			if !c.Bool("yes") && !c.IsSet(flagMaxCredits) && isTerminal(os.Stdin) && isTerminal(os.Stderr) {
				confirm = func(p jobs.Plan) bool { return askToSpend(c.App.ErrWriter, jsonLog(c), os.Stdin, p) }
			}
			return runJob(c, "backfill", false, confirm)
		},
	}
}

// askToSpend shows the plan and reads yes or no. The job then spends at
// most what it asked (jobs.RunOptions.Confirm). With asJSON, the plan and
// the question are events, each a line of JSON.
func askToSpend(w io.Writer, asJSON bool, in io.Reader, p jobs.Plan) bool {
	low, high := p.ScheduleCredits()
	_, t := p.Spend()
	most := ""
	if low != high {
		most = fmt.Sprintf(" (no more than %d)", high)
	}
	question := fmt.Sprintf("Spend %s schedule credits%s and %d tracking calls? [y/N] ", creditRange(low, high), most, t)
	if asJSON {
		ev := slog.New(slog.NewJSONHandler(w, nil))
		ev.LogAttrs(context.Background(), slog.LevelInfo, "plan", planAttrs(p)...)
		ev.Info("confirm", "question", question)
	} else {
		writePlan(w, p)
		fmt.Fprint(w, question)
	}
	line, _ := bufio.NewReader(in).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}
