package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

func creditsCommand() *cli.Command {
	return &cli.Command{
		Name:  "credits",
		Usage: "show the credit balance and the period history of each product (free calls)",
		Description: "Reads GET /consumption/current-period and /consumption/periods of the schedule and the\n" +
			"tracking product. These calls cost no credit but each takes one slot of the rate limit.\n" +
			"A product whose provider reports no balance is shown as not reported; one whose URL is not set\n" +
			"(ETALAKE_SCHEDULE_URL, ETALAKE_TRACKING_URL) as not configured, and is not asked.",
		Flags: append(append(sourceFlags(), logFlags()...),
			&cli.StringFlag{Category: catOutput, Name: "format", Value: "table", Usage: "table or json (with --log-format json and no --format: a \"credits\" event per product)"},
		),
		OnUsageError: usageError,
		Action:       credits,
	}
}

// credits reads each product's balance and periods (free) and writes
// them as a table or JSON.
func credits(c *cli.Context) error {
	format := c.String("format")
	if format != "table" && format != "json" {
		return configError("--format %q: want table or json", format)
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	client, err := newClient(c, log, extract.Unlimited, extract.Unlimited, 0)
	if err != nil {
		return err
	}
	report, err := jobs.Credits(c.Context, client)
	if err != nil {
		return authHint(err, client.Auth())
	}
	for i, pc := range report {
		if pc.NotConfigured {
			setting, _ := urlSetting(c, pc.Product)
			report[i].Error = "not configured: " + setting + " is not set"
		}
	}
	if jsonLog(c) && !c.IsSet("format") {
		for _, pc := range report {
			events(c).LogAttrs(c.Context, slog.LevelInfo, "credits", slog.String("product", string(pc.Product)), slog.Bool("not_configured", pc.NotConfigured),
				slog.Any("current", pc.Current), slog.Any("periods", emptyList(pc.Periods)), slog.String("error", pc.Error))
		}
		return nil
	}
	if format == "json" {
		return writeCreditsJSON(c.App.Writer, report)
	}
	return writeCreditsTable(c.App.Writer, report)
}

// writeCreditsJSON writes the report as indented JSON.
func writeCreditsJSON(w io.Writer, report []jobs.ProductCredits) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

// writeCreditsTable writes the report as an aligned table, current period
// first, then the history newest first.
func writeCreditsTable(w io.Writer, report []jobs.ProductCredits) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PRODUCT\tPERIOD START\tPERIOD END\tINITIAL\tUSED\tREMAINING\tSTATE\t")
	for _, pc := range report {
		if pc.NotConfigured {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t%s\t\n", pc.Product, pc.Error)
			continue
		}
		if pc.Error != "" {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\tnot reported: %s\t\n", pc.Product, pc.Error)
			continue
		}
		rows := []wire.ConsumptionPeriod{*pc.Current}
		for i := len(pc.Periods) - 1; i >= 0; i-- {
			if !samePeriod(pc.Periods[i], *pc.Current) {
				rows = append(rows, pc.Periods[i])
			}
		}
		for i, p := range rows {
			state := "expired"
			if i == 0 {
				state = "current"
			} else if p.Expired != nil && !*p.Expired {
				state = "open"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", pc.Product, periodBound(p.PeriodStart), periodBound(p.PeriodEnd),
				reportedCount(p.CreditsInitial), creditsUsed(p), reportedCount(p.Credits), state)
		}
	}
	return tw.Flush()
}

func samePeriod(a, b wire.ConsumptionPeriod) bool {
	return a.PeriodStart != nil && b.PeriodStart != nil && a.PeriodStart.Equal(*b.PeriodStart)
}

// periodBound writes a period's start or end: its date when it is a
// midnight, else the time; "?" when the provider did not say it.
func periodBound(t *time.Time) string {
	if t == nil {
		return "?"
	}
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.UTC().Format(time.DateOnly)
	}
	return t.UTC().Format(time.RFC3339)
}

// reportedCount writes a count the provider reported, "?" when it did not.
func reportedCount(n *int64) string {
	if n == nil {
		return "?"
	}
	return fmt.Sprint(*n)
}

// creditsUsed writes the credits a period used, "?" when its counts do
// not say.
func creditsUsed(p wire.ConsumptionPeriod) string {
	if u, ok := p.Used(); ok {
		return fmt.Sprint(u)
	}
	return "?"
}
