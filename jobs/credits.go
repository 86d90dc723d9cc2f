package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/response"
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
		err := final(c.CurrentPeriod(ctx, p), nil)
		if err == nil {
			pc.Current = c.Budget(p).Reported()
			err = final(c.Periods(ctx, p), func(rec *response.Received) (err error) {
				pc.Periods, err = wire.DecodePeriods(rec.Body)
				return err
			})
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

// final runs a call to its end, landing nothing (the command shows the
// balance, the warehouse keeps none of it), and hands its final answer,
// whole, to show when show is not nil.
func final(responses extract.Responses, show func(*response.Received) error) error {
	var last *response.Received
	for rec, err := range responses {
		if err != nil {
			return err
		}
		last = rec
	}
	if show == nil || last == nil {
		return nil
	}
	if err := show(last); err != nil {
		return fmt.Errorf("%s %s: %w", last.Endpoint, last.Request, err)
	}
	return nil
}
