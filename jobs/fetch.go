package jobs

import (
	"context"
	"errors"
	"fmt"

	"github.com/sourcegraph/conc/pool"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// How a response travels in a job: the client yields each one it
// receives (extract.Responses), every attempt's and every page's; ask
// lands it — appended to the job's journal and synced (writer.land) —
// before the loop asks the client for the next, so that nothing decodes a
// response that is not on disk; the writer then lands it in raw_responses
// and the sink derives its rows (transform) and loads them (load).

// fetch sends the work through a pool sized to keep the rate limit busy.
func (r *runner) fetch(ctx context.Context, work []workItem) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	rate := r.client.Limiter().Rate()
	workers := min(max(rate.N, 2), 32, max(len(work), 1))
	prog := r.progress(work, rate)
	defer prog.finish()
	p := pool.New().WithMaxGoroutines(workers)
	for _, it := range work {
		p.Go(func() {
			if ctx.Err() != nil {
				return
			}
			c := r.client
			if it.resume != "" {
				c = c.ResumeAt(it.resume)
			}
			err := r.ask(&it, it.call(ctx, c))
			r.classify(it, err, cancel)
			s, t := r.client.Budget(wire.ProductSchedule).State(), r.client.Budget(wire.ProductTracking).State()
			prog.ended(it, err, s.Spent+s.Uncertain, t.Spent+t.Uncertain)
		})
	}
	p.Wait()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return ctx.Err()
}

// ask lands every response of it as the client yields it, counting the
// pages of its answer landed whole, and returns how the call ended: its
// error, or the landing's, which stops the call.
func (r *runner) ask(it *workItem, responses extract.Responses) error {
	for rec, err := range responses {
		if err != nil {
			return err
		}
		if rec.OK() && rec.Broken == "" {
			it.landed++
			if rec.PagingStop == "" && rec.Endpoint.Paid() {
				r.mu.Lock()
				r.whole[rec.Product]++
				r.mu.Unlock()
			}
		}
		if err := r.land(rec, it.resource); err != nil {
			return err
		}
	}
	return nil
}

// land journals and lands a response received for resource res, before
// anything decodes it: when it returns nil, the response survives a
// crash. A broken answer asked again is counted, not landed: only the
// last attempt of an answer that stays broken is kept.
func (r *runner) land(rec *response.Received, res Resource) error {
	if rec.Broken != "" && rec.Retried {
		r.mu.Lock()
		r.retried[rec.Status]++
		r.mu.Unlock()
		r.log.Warn("run: answer broken in transfer: asking again", "resource", res.String(), "attempt", rec.Attempt, "reason", rec.Broken)
		return nil
	}
	logical := r.logical
	landed := &response.Landed{Received: *rec, RunID: r.run.ID, Resource: res.String(), Source: response.SourceFetch,
		ObservedAt: rec.DateOrFetched(), LogicalDate: &logical}
	if err := r.writer.land(landed); err != nil {
		return fmt.Errorf("landing %s response: %w", rec.Endpoint, err)
	}
	return nil
}

// balances reads the current period of each product paid (free calls,
// landed like any response) into the run's before or after balances (and
// before, the periods the pace reads). A product whose provider reports
// no balance stays unknown.
func (r *runner) balances(ctx context.Context, before bool, paid []wire.Product) {
	for _, p := range paid {
		period, err := r.balance(ctx, p)
		if errors.Is(err, extract.ErrNoConsumption) {
			if before {
				r.log.Info("run: balance unknown: the provider has no consumption endpoint; only the run's cap (--max-credits) bounds the spending",
					"product", p, "schedule_api", r.client.ScheduleAPI())
			}
			continue
		}
		if errors.Is(err, extract.ErrMisconfigured) {
			r.classify(workItem{resource: periodResource(p), product: p}, err, nil)
			continue
		}
		if err != nil {
			r.log.Warn("run: balance not reported", "product", p, "error", err)
			continue
		}
		if period.Credits == nil {
			continue
		}
		if before {
			r.periods[p] = period
		}
		n := *period.Credits
		switch {
		case p == wire.ProductSchedule && before:
			r.run.BalanceScheduleBefore = &n
		case p == wire.ProductSchedule:
			r.run.BalanceScheduleAfter = &n
		case before:
			r.run.BalanceTrackingBefore = &n
		default:
			r.run.BalanceTrackingAfter = &n
		}
	}
}

// balance asks the current period of product p, landing its responses
// (but in a dry run), and returns it as the client's budget took it.
func (r *runner) balance(ctx context.Context, p wire.Product) (*wire.ConsumptionPeriod, error) {
	for rec, err := range r.client.CurrentPeriod(ctx, p) {
		if err != nil {
			return nil, err
		}
		if r.opt.DryRun {
			continue
		}
		if err := r.land(rec, periodResource(p)); err != nil {
			return nil, err
		}
	}
	return r.client.Budget(p).Reported(), nil
}
