package main

import (
	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
)

func creditsCommand() *cli.Command {
	return &cli.Command{
		Name:  "credits",
		Usage: "show the credit balance and the period history of each product (free calls)",
		Description: "Reads GET /consumption/current-period and /consumption/periods of the schedule and the\n" +
			"tracking product. These calls cost no credit but each takes one slot of the rate limit.\n" +
			"A product whose provider reports no balance is shown as not reported.",
		Flags: append(sourceFlags(),
			&cli.StringFlag{Name: "format", Value: "table", Usage: "table or json"},
		),
		OnUsageError: usageError,
		Action: func(c *cli.Context) error {
			format := c.String("format")
			if format != "table" && format != "json" {
				return configError("--format %q: want table or json", format)
			}
			log, err := newLogger(c)
			if err != nil {
				return err
			}
			client, err := newClient(c, log, extract.Unlimited, extract.Unlimited)
			if err != nil {
				return err
			}
			report, err := jobs.Credits(c.Context, client)
			if err != nil {
				return err
			}
			if format == "json" {
				return jobs.WriteCreditsJSON(c.App.Writer, report)
			}
			return jobs.WriteCreditsTable(c.App.Writer, report)
		},
	}
}
