package jobs

import (
	"context"
	"strings"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/wire"
)

// workItem is one request of a run: a resource and how to ask for it.
type workItem struct {
	resource Resource
	product  wire.Product
	// call asks for it: the responses as they arrive, for the job to
	// land each one.
	call func(ctx context.Context, c *extract.Client) extract.Responses
	// resume is the page to start at, when earlier jobs of the date landed
	// the pages before it.
	resume string
	// pages is the price of a schedule request in credits, the fewest and
	// the most pages its answer is expected to take (see Plan.Guessed).
	pages pageRange
	// landed counts the pages of this request's answer landed in this
	// job (set when its call has returned).
	landed int
	// askAs is its name as --reask takes it (a shipment's with its
	// sealine); failed counts the earlier jobs of the date that asked it
	// in vain (load.FailedAsk.Jobs).
	askAs  string
	failed int
}

// pageRange is the fewest and the most pages of an answer.
type pageRange struct{ low, high int }

// items turns a selection into requests, in a stable order: schedules
// first (ports, lanes, vessels), then shipments.
func items(sel Selection, logical time.Time) []workItem {
	var out []workItem
	for _, p := range sel.Ports {
		out = append(out, workItem{resource: portResource(p), askAs: portResource(p).String(), product: wire.ProductSchedule, call: func(ctx context.Context, c *extract.Client) extract.Responses {
			return c.PortSchedule(ctx, p)
		}})
	}
	for _, l := range sel.Lanes {
		out = append(out, workItem{resource: laneResource(l), askAs: laneResource(l).String(), product: wire.ProductSchedule, call: func(ctx context.Context, c *extract.Client) extract.Responses {
			return c.PointToPoint(ctx, l.POL, l.POD, extract.P2POptions{DepartureStart: logical})
		}})
	}
	for _, v := range sel.Vessels {
		out = append(out, workItem{resource: vesselResource(v), askAs: vesselResource(v).String(), product: wire.ProductSchedule, call: func(ctx context.Context, c *extract.Client) extract.Responses {
			return c.VesselSchedule(ctx, v)
		}})
	}
	for _, s := range sel.Shipments {
		out = append(out, workItem{resource: shipmentResource(s), askAs: reaskName(s), product: wire.ProductTracking, call: func(ctx context.Context, c *extract.Client) extract.Responses {
			return c.Shipment(ctx, s)
		}})
	}
	return out
}

// Requests counts requests by the kind of their resource.
type Requests struct{ Ports, Lanes, Vessels, Shipments int }

// countRequests counts the requests of work that keep says to count.
func countRequests(work []workItem, keep func(workItem) bool) Requests {
	var n Requests
	for _, it := range work {
		if !keep(it) {
			continue
		}
		switch it.resource.Kind {
		case KindPort:
			n.Ports++
		case KindLane:
			n.Lanes++
		case KindVessel:
			n.Vessels++
		case KindShipment:
			n.Shipments++
		}
	}
	return n
}

// Plan is what a run will do, computed before any paid request.
type Plan struct {
	Job         string
	LogicalDate time.Time
	// Requests to send per kind, after the checkpoint.
	Requests
	// AlreadyLanded were answered earlier for this date; Finished are
	// tracked shipments no longer refreshed; Resumed are among the requests
	// and start at the page after those landed earlier for this date.
	AlreadyLanded, Finished, Resumed int
	// Shard is the worker's part of the selection and the tracked set
	// (everything without --shard).
	Shard ShardPlan
	// Refresh is what the refresh policy made of the tracked set: what
	// is due tonight and why, what the pace deferred (the nightly run).
	Refresh RefreshPlan
	// Billing is how the tracking product is paid for. The tracking
	// requests cost a credit each billed per call, and ShipmentMonths
	// credits billed per shipment-month: those of shipments not answered
	// yet in the logical date's month (UTC).
	Billing        Billing
	ShipmentMonths int
	// Reasked are among the requests and ask again for what an earlier
	// job got broken in transfer or stopped paging. GivenUp are not among
	// them: their answer for this date was not had in MaxReasks jobs, and
	// the service has not answered their product well since; they are
	// asked at the end only if this job's answers of their product all
	// come whole (see askHeld). Reopened are among the requests although
	// given up: the service answered their product well since, or
	// RunOptions.Reask names them.
	Reasked, Reopened int
	GivenUp           []string
	// ScheduleAPI is the schedule product's profile.
	ScheduleAPI wire.ScheduleAPI
	// Schedule requests are priced at a credit a page, at the pages their
	// resource's latest answer took (load.PagesPerAnswer): ScheduleLow to
	// ScheduleHigh credits before caps and balances. Guessed of them have
	// no history of their own and are priced at the fewest and the most
	// pages of their kind's (ports, lanes, vessels), or, with none, at 1
	// to MaxPages pages; a resumed answer at 1 page to what it took last.
	ScheduleLow, ScheduleHigh, Guessed int
	MaxPages                           int
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

// Spend is how many credits of each product the run will spend at least
// if nothing fails, bounded by the caps and the balances: the schedule
// answers at their fewest pages, a tracking call per shipment.
func (p Plan) Spend() (schedule, tracking int) {
	s, _ := p.ScheduleCredits()
	_, t := p.Paid()
	return s, affordable(t, p.CapTracking, p.BalanceTracking)
}

// TrackingCredits is what the tracking requests cost under the plan's
// billing model if nothing fails, bounded by the caps and the balance:
// the calls per call, the new shipment-months per shipment-month.
func (p Plan) TrackingCredits() int {
	_, t := p.Spend()
	if p.Billing == BillPerShipmentMonth {
		return affordable(min(p.ShipmentMonths, t), extract.Unlimited, p.BalanceTracking)
	}
	return t
}

// ScheduleCredits is the least and the most schedule credits the run
// spends if nothing fails, bounded by the cap and the balance; equal when
// every answer's pages are known.
func (p Plan) ScheduleCredits() (low, high int) {
	return affordable(p.ScheduleLow, p.CapSchedule, p.BalanceSchedule), affordable(p.ScheduleHigh, p.CapSchedule, p.BalanceSchedule)
}

// price sets the price of each schedule request in work from the pages
// each resource's latest answer took (pages), or its kind's, or 1 to
// maxPages, and totals it in the plan.
func (p *Plan) price(work []workItem, pages map[string]int, maxPages int) {
	kinds := map[Kind]pageRange{}
	for res, n := range pages {
		kind, _, _ := strings.Cut(res, ":")
		k, ok := kinds[Kind(kind)]
		if !ok {
			k = pageRange{n, n}
		}
		kinds[Kind(kind)] = pageRange{min(k.low, n), max(k.high, n)}
	}
	p.MaxPages = maxPages
	for i := range work {
		it := &work[i]
		if it.product != wire.ProductSchedule {
			continue
		}
		n, known := pages[it.resource.String()]
		switch k, ok := kinds[it.resource.Kind]; {
		case known && it.resume == "":
			it.pages = pageRange{n, n}
		case known:
			it.pages = pageRange{1, n}
		case ok:
			it.pages = k
			p.Guessed++
		default:
			it.pages = pageRange{1, maxPages}
			p.Guessed++
		}
		p.ScheduleLow += it.pages.low
		p.ScheduleHigh += it.pages.high
	}
}

// Total is every request the run will send at least if nothing fails.
func (p Plan) Total() int {
	s, t := p.Spend()
	return s + t + p.Free
}

// Duration is the time the requests take at the rate limit.
func (p Plan) Duration() time.Duration {
	n := p.Total()
	if n <= p.Rate.N || p.Rate.N == 0 {
		return 0
	}
	return time.Duration((n-1)/p.Rate.N) * (p.Rate.Window + extract.DefaultMargin(p.Rate))
}
