package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// ProductCredits is what the service says of one product's credits.
type ProductCredits struct {
	Product wire.Product `json:"product"`
	// NotConfigured: the product has no URL (a schedule-only or
	// tracking-only setup); it was not asked.
	NotConfigured bool                     `json:"not_configured,omitempty"`
	Current       *wire.ConsumptionPeriod  `json:"current,omitempty"`
	Periods       []wire.ConsumptionPeriod `json:"periods,omitempty"`
	// Error says why the service reported nothing (e.g. the product's
	// provider has no consumption endpoint).
	Error string `json:"error,omitempty"`
}

// Credits reads the current period and the period history of every
// product that has a URL; one without is reported NotConfigured, unasked.
// The calls are free but each takes a rate-limit slot. A product whose
// consumption endpoints answer an error is reported with that error; only
// an authentication failure, a cancelled context or a failure of every
// product asked is returned as an error.
func Credits(ctx context.Context, c *extract.Client) ([]ProductCredits, error) {
	var out []ProductCredits
	asked, failed := 0, 0
	for _, p := range wire.Products {
		pc := ProductCredits{Product: p}
		if !c.HasURL(p) {
			pc.NotConfigured = true
			out = append(out, pc)
			continue
		}
		asked++
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
	if failed == asked {
		var why []string
		for _, pc := range out {
			if pc.Error != "" {
				why = append(why, pc.Error)
			}
		}
		return out, fmt.Errorf("no product reported its credits: %s", strings.Join(why, "; "))
	}
	return out, nil
}
