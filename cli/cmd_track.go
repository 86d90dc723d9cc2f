package cli

import "github.com/urfave/cli/v2"

// trackCommand groups the commands of the tracked set: add and rm, one
// change in two directions (cmd_track_change.go), and list
// (cmd_track_list.go).
func trackCommand() *cli.Command {
	refsUsage := "NUMBER[:TYPE[:SEALINE]]… (TYPE CT, BL or BK; CT by default), or --shipments FILE.csv"
	return &cli.Command{
		Name:  "track",
		Usage: "manage the tracked set: the shipments the nightly run refreshes until they are finished",
		Subcommands: []*cli.Command{
			trackChange("add", "track shipments", refsUsage, false, "%d added, %d already tracked\n"),
			trackChange("rm", "stop tracking shipments (their history stays)", refsUsage, true, "%d removed, %d were not tracked\n"),
			trackListCommand(),
		},
	}
}
