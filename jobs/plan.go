package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// workItem is one request of a run: a resource and how to ask for it.
type workItem struct {
	resource Resource
	product  wire.Product
	call     func(ctx context.Context, c *extract.Client) error
}

// items turns a selection into requests, in a stable order: schedules
// first (ports, lanes, vessels), then shipments.
func items(sel Selection, logical time.Time) []workItem {
	var out []workItem
	for _, p := range sel.Ports {
		out = append(out, workItem{portResource(p), wire.ProductSchedule, func(ctx context.Context, c *extract.Client) error {
			_, _, err := c.PortSchedule(ctx, p)
			return err
		}})
	}
	for _, l := range sel.Lanes {
		out = append(out, workItem{laneResource(l), wire.ProductSchedule, func(ctx context.Context, c *extract.Client) error {
			_, _, err := c.PointToPoint(ctx, l.POL, l.POD, extract.P2POptions{DepartureStart: logical})
			return err
		}})
	}
	for _, v := range sel.Vessels {
		out = append(out, workItem{vesselResource(v), wire.ProductSchedule, func(ctx context.Context, c *extract.Client) error {
			_, _, err := c.VesselSchedule(ctx, v)
			return err
		}})
	}
	for _, s := range sel.Shipments {
		out = append(out, workItem{shipmentResource(s), wire.ProductTracking, func(ctx context.Context, c *extract.Client) error {
			_, _, err := c.Shipment(ctx, s)
			return err
		}})
	}
	return out
}

// landedFor returns the resources already answered for a logical date: a
// success or a 404 (no data) was landed. A run fetches only what is
// missing, so a second run of the same date spends nothing.
func landedFor(ctx context.Context, db *sql.DB, logical time.Time) (map[Resource]bool, error) {
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT resource FROM raw_responses
WHERE logical_date = ? AND (status BETWEEN 200 AND 299 OR status = 404) AND source = 'fetch'`, logical.Format(time.DateOnly))
	if err != nil {
		return nil, fmt.Errorf("reading the checkpoint: %w", err)
	}
	defer rows.Close()
	out := map[Resource]bool{}
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		out[Resource(r)] = true
	}
	return out, rows.Err()
}

// Plan is what a run will do, computed before any paid request.
type Plan struct {
	Job         string
	LogicalDate time.Time
	// Requests to send per kind, after the checkpoint.
	Ports, Lanes, Vessels, Shipments int
	// AlreadyLanded were answered earlier for this date; Finished are
	// tracked shipments no longer refreshed.
	AlreadyLanded, Finished int
	// Free is the consumption requests (balance before and after).
	Free int
	// Balances the server reported before the run; nil when unknown.
	BalanceSchedule, BalanceTracking *int64
	// User caps; extract.Unlimited when none.
	CapSchedule, CapTracking int64
	Rate                     extract.Rate
}

// Paid is the number of paid requests per product.
func (p Plan) Paid() (schedule, tracking int) {
	return p.Ports + p.Lanes + p.Vessels, p.Shipments
}

// Affordable is how many paid requests of a product the caps and the
// balance allow.
func affordable(want int, userCap int64, balance *int64) int {
	n := int64(want)
	if userCap >= 0 {
		n = min(n, userCap)
	}
	if balance != nil {
		n = min(n, max(*balance, 0))
	}
	return int(n)
}

// Spend is how many credits of each product the run will spend if nothing
// fails: the paid requests, bounded by the caps and the balances.
func (p Plan) Spend() (schedule, tracking int) {
	s, t := p.Paid()
	return affordable(s, p.CapSchedule, p.BalanceSchedule), affordable(t, p.CapTracking, p.BalanceTracking)
}

// Requests is every request the run will send if nothing fails.
func (p Plan) Requests() int {
	s, t := p.Spend()
	return s + t + p.Free
}

// Duration is the time the requests take at the rate limit.
func (p Plan) Duration() time.Duration {
	n := p.Requests()
	if n <= p.Rate.N || p.Rate.N == 0 {
		return 0
	}
	return time.Duration((n-1)/p.Rate.N) * (p.Rate.Window + extract.DefaultMargin(p.Rate))
}

// Write renders the plan for a person.
func (p Plan) Write(w io.Writer) {
	ps, pt := p.Paid()
	ss, st := p.Spend()
	fmt.Fprintf(w, "plan of %s for %s:\n", p.Job, p.LogicalDate.Format(time.DateOnly))
	fmt.Fprintf(w, "  schedule  %4d requests (%d ports, %d lanes, %d vessels) → %d credits%s\n", ps, p.Ports, p.Lanes, p.Vessels, ss, short(ps, ss))
	fmt.Fprintf(w, "  tracking  %4d requests (shipments) → %d credits%s\n", pt, st, short(pt, st))
	fmt.Fprintf(w, "  free      %4d consumption requests (balance before and after)\n", p.Free)
	if p.AlreadyLanded > 0 || p.Finished > 0 {
		fmt.Fprintf(w, "  skipped   %4d already landed for this date, %d finished shipments\n", p.AlreadyLanded, p.Finished)
	}
	fmt.Fprintf(w, "  balance   schedule %s, tracking %s\n", after(p.BalanceSchedule, ss), after(p.BalanceTracking, st))
	fmt.Fprintf(w, "  caps      schedule %s, tracking %s\n", capText(p.CapSchedule), capText(p.CapTracking))
	fmt.Fprintf(w, "  time      ~%s at %s\n", p.Duration().Round(time.Second), p.Rate)
}

func short(want, can int) string {
	if can < want {
		return fmt.Sprintf(" — %d over the cap or balance: the run stops there (exit 3)", want-can)
	}
	return ""
}

func after(balance *int64, spend int) string {
	if balance == nil {
		return "not reported"
	}
	return fmt.Sprintf("%d → %d after", *balance, *balance-int64(spend))
}

func capText(c int64) string {
	if c < 0 {
		return "none"
	}
	return fmt.Sprint(c)
}
