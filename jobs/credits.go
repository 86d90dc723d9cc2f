package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// ProductCredits is what the service says of one product's credits.
type ProductCredits struct {
	Product wire.Product             `json:"product"`
	Current *wire.ConsumptionPeriod  `json:"current,omitempty"`
	Periods []wire.ConsumptionPeriod `json:"periods,omitempty"`
	// Error says why the service reported nothing (e.g. the product's
	// provider has no consumption endpoint).
	Error string `json:"error,omitempty"`
}

// Credits reads the current period and the period history of every product.
// The calls are free but each takes a rate-limit slot. A product whose
// consumption endpoints answer an error is reported with that error; only
// an authentication failure, a cancelled context or a failure of both
// products is returned as an error.
func Credits(ctx context.Context, c *extract.Client) ([]ProductCredits, error) {
	var out []ProductCredits
	failed := 0
	for _, p := range wire.Products {
		pc := ProductCredits{Product: p}
		cur, _, err := c.CurrentPeriod(ctx, p)
		if err == nil {
			pc.Current = cur
			pc.Periods, _, err = c.Periods(ctx, p)
		}
		if err != nil {
			if errors.Is(err, extract.ErrUnauthorized) || ctx.Err() != nil {
				return nil, err
			}
			pc.Error = err.Error()
			failed++
		}
		out = append(out, pc)
	}
	if failed == len(out) {
		return out, fmt.Errorf("no product reported its credits: %s", out[0].Error)
	}
	return out, nil
}

// WriteCreditsJSON writes the report as indented JSON.
func WriteCreditsJSON(w io.Writer, report []ProductCredits) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

// WriteCreditsTable writes the report as an aligned table, current period
// first, then the history newest first.
func WriteCreditsTable(w io.Writer, report []ProductCredits) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PRODUCT\tPERIOD START\tPERIOD END\tINITIAL\tUSED\tREMAINING\tSTATE\t")
	for _, pc := range report {
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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", pc.Product, day(p.PeriodStart), day(p.PeriodEnd),
				count(p.CreditsInitial), used(p), count(p.Credits), state)
		}
	}
	return tw.Flush()
}

func samePeriod(a, b wire.ConsumptionPeriod) bool {
	return a.PeriodStart != nil && b.PeriodStart != nil && a.PeriodStart.Equal(*b.PeriodStart)
}

func day(t *time.Time) string {
	if t == nil {
		return "?"
	}
	if t.Equal(t.Truncate(24 * time.Hour)) {
		return t.UTC().Format(time.DateOnly)
	}
	return t.UTC().Format(time.RFC3339)
}

func count(n *int64) string {
	if n == nil {
		return "?"
	}
	return fmt.Sprint(*n)
}

func used(p wire.ConsumptionPeriod) string {
	if u, ok := p.Used(); ok {
		return fmt.Sprint(u)
	}
	return "?"
}
