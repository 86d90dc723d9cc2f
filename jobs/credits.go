package jobs

import (
	"context"
	"errors"
	"fmt"

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
