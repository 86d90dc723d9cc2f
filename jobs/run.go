package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// ErrDeclined: the user answered no to the cost of a backfill.
var ErrDeclined = errors.New("declined: nothing was spent")

// RunOptions configure the nightly run, a backfill or a day of the demo.
type RunOptions struct {
	Job         string    // run, backfill or demo
	LogicalDate time.Time // the date the run is for (its UTC date counts)
	Selection   Selection
	// Shard is the part of the selection and of the tracked set this
	// worker asks (--shard I/N; the zero Shard: everything): the nightly
	// run adds only its part of the selection's shipments to the tracked
	// set, asks only its part of the tracked set, and paces its part of
	// the key's allowance (1/N of it). Reask is asked whatever the shard.
	Shard Shard
	// Track makes it the nightly run: the selection's shipments join the
	// tracked set, and every tracked shipment not finished is refreshed. A
	// backfill leaves the tracked set alone and asks only the selection.
	Track bool
	// Caps of the run, extract.Unlimited for none. They are also set on the
	// client's budgets, which enforce them.
	CapSchedule, CapTracking int64
	// DryRun plans and reports without a paid request and without writing.
	DryRun bool
	// Grace is how long a shipment that arrived at its final place is
	// still refreshed (0: the refresh mode's default, DefaultGrace or
	// NightlyGrace; NoGrace: not at all).
	Grace time.Duration
	// Refresh is the policy that chooses which tracked shipments the
	// nightly run asks, paces the tracking credits and prices by the
	// billing model (nil: DefaultRefresh, the adaptive policy). RunJob
	// refuses one that does not Validate.
	Refresh *Refresh
	// Night makes the run one night of a longer job, the demo: the
	// publish for readers (the analytic tables, the Parquet mirror, the
	// database) waits for that job's last night, unless this night fails,
	// which ends the job.
	Night bool
	// MaxBody is the largest body derived; a larger one is landed and
	// dead-lettered (0: DefaultMaxBody).
	MaxBody int64
	// MaxReasks is how many jobs ask a resource whose answer for the date
	// stayed broken (a 2xx that did not arrive whole) or stopped paging
	// before it is given up: the next jobs of the date ask it only once
	// the service answers its product well again (0: DefaultMaxReasks;
	// see givenup.go).
	MaxReasks int
	// Reask names resources asked once more in this job even if given up
	// for the date (--reask); they join what the job asks, not the
	// tracked set.
	Reask Selection
	// ReaskCommand, when set, renders the command that asks resources
	// (named as ParseResource reads them) again for a logical date, as
	// the summary, etl_runs.given_up and data_freshness show it; else
	// DefaultReaskCommand.
	ReaskCommand func(logical time.Time, names []string) string
	// Skipped are the input rows the command skipped as bad ("file:line:
	// reason"), already reported: the run is partial for them. Warnings
	// are said of the input and change nothing (a container number whose
	// check digit fails is asked all the same).
	Skipped, Warnings []string
	// Confirm, when set, is asked with the plan before anything is spent;
	// false declines.
	Confirm func(Plan) bool
	// ExitCodes are the caller's exit codes of each verdict, recorded in
	// etl_runs.exit_code (nil: none). A dry run's verdict is its error's:
	// it plans, and the run it plans may well be partial.
	ExitCodes ExitCodes
	Version   string
	Log       *slog.Logger
	// Progress, when set (a terminal), shows the run's status line.
	Progress Status
	// ProgressEvery, when positive and Progress is not set, logs a
	// "run: progress" event that often while the run fetches: requests
	// done of those its caps and balances let it send, credits spent,
	// pace, time left. ProgressTicks, when set, ticks those events
	// instead (tests).
	ProgressEvery time.Duration
	ProgressTicks <-chan time.Time
	Now           func() time.Time
}

// RunResult is what a run did. Run.Status says how it ended: ok only when
// everything asked was answered and loaded; partial when a product
// stopped early, requests failed after retries, answers stayed broken in
// transfer, responses or records were dead-lettered or input rows were
// skipped (Run.Shortfalls counts each); failed with an error.
type RunResult struct {
	Run  load.Run
	Plan Plan
	// Verdict is how the run ended (a dry run: how the planning did).
	Verdict Verdict
	// NotFound lists resources the service has no data for (404): recorded,
	// not fatal. Failed lists those that failed after retries (no answer,
	// 5xx, 429); Refused those the provider refused without a retry (a
	// 400 or another 4xx, with its message); Broken those whose answer
	// stayed broken in transfer (extract.ErrBroken): landed and
	// dead-lettered, and asked again by the next job; PagingStopped those
	// whose walk through the pages stopped short (a cursor seen twice, an
	// empty page naming a next one, --max-pages): asked again by the next
	// job. Each entry is "resource: why". Reopened lists the resources
	// given up for the date that the job asked again (see Plan.Reopened,
	// and those of Plan.GivenUp asked at the end because the job answered
	// their product well); Run.GivenUp, those given up as it ended.
	NotFound, Failed, Refused, Broken, PagingStopped, Reopened []string
	// Reask is the command that asks every resource of Run.GivenUp again;
	// "" when none is given up.
	Reask string
	// Unasked counts, per product, the requests not sent because the
	// product had stopped (cap, quota).
	Unasked map[wire.Product]int
	// Rest is, per product, what its stop (cap, quota) left unanswered:
	// the requests not sent or answered partly, and the credits they need
	// at least.
	Rest map[wire.Product]Remainder
	// Skipped and Warnings are RunOptions'.
	Skipped, Warnings []string
	// Stopped says, per product, why it stopped early.
	Stopped map[wire.Product]string
	// DeadLetters counts the dead_letters rows the run loaded; Quarantined,
	// of them, the responses kept but not derived at all.
	DeadLetters, Quarantined int
}

// RunJob runs the nightly job (Track), a backfill, or one demo day: it
// derives what a crash left landed but not loaded, reads the balances
// (free), plans, asks only for what was not answered yet for the logical
// date, lands every response before it is parsed, loads the rows, and
// ends as every writer does (end.go): its end recorded in etl_runs, then
// published — whatever the end — with the analytic tables and the Parquet
// mirror as of it.
//
// A cap, a 403 quota or failures after retries stop that product or
// resource, keep everything landed, and end the run partial, as do
// dead-lettered responses; 404s are recorded, not fatal; a 401 stops the
// run with an error matching extract.ErrUnauthorized.
func RunJob(ctx context.Context, client *extract.Client, wh *load.Warehouse, opt RunOptions) (RunResult, error) {
	opt = withRunDefaults(opt)
	if err := opt.Validate(); err != nil {
		return RunResult{}, err
	}
	logical := dateOf(opt.LogicalDate)
	client = client.WithLogicalDate(logical) // a path template's {date}
	if !opt.DryRun {
		// A body larger than --max-body is not decoded, and goes to disk
		// as it arrives, where the journal takes it in (response.BodyFile).
		client = client.WithMaxDecode(maxBodyOr(opt.MaxBody)).WithSpillDir(wh.SpillDir())
	}
	r := &runner{client: client, wh: wh, opt: opt, logical: logical, retried: map[int]int64{},
		policy: *opt.Refresh, grace: opt.Refresh.grace(opt.Grace), periods: map[wire.Product]*wire.ConsumptionPeriod{},
		askAs: map[string]string{}, whole: map[wire.Product]int{}, inVain: map[wire.Product]int{},
		res: RunResult{Stopped: map[wire.Product]string{}, Unasked: map[wire.Product]int{}, Rest: map[wire.Product]Remainder{},
			Skipped: opt.Skipped, Warnings: opt.Warnings}}
	r.run = load.Run{ID: newRunID(opt.Now()), Job: opt.Job, LogicalDate: &logical, StartedAt: opt.Now(), Status: load.StatusRunning,
		Version: opt.Version, Args: selectionArgs(opt)}
	if !opt.Shard.Whole() {
		r.run.Shard = opt.Shard.String()
	}
	r.log = opt.Log.With("run", r.run.ID)
	err := r.execute(ctx)
	return r.finish(ctx, StoppedBy(ctx, err))
}

func withRunDefaults(o RunOptions) RunOptions {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Refresh == nil {
		r := DefaultRefresh()
		o.Refresh = &r
	}
	if o.Job == "" {
		o.Job = "run"
	}
	if o.MaxReasks == 0 {
		o.MaxReasks = DefaultMaxReasks
	}
	if o.MaxBody == 0 {
		o.MaxBody = DefaultMaxBody
	}
	return o
}

func dateOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

type runner struct {
	client  *extract.Client
	wh      *load.Warehouse
	opt     RunOptions
	logical time.Time
	log     *slog.Logger
	run     load.Run
	res     RunResult
	sink    *sink
	writer  *writer
	wg      sync.WaitGroup
	mu      sync.Mutex // res.NotFound, res.Failed, res.Refused, res.Broken, res.PagingStopped, res.Stopped, res.Unasked, retried, misconfig
	noResp  atomic.Int64
	// misconfig is the first answer that showed a product's URL or
	// profile wrong (extract.ErrMisconfigured): the job fails with it.
	misconfig error
	// retried counts, by status, the broken answers asked again and not
	// landed (only the last attempt of an answer that stays broken is).
	retried map[int]int64
	// How the date's resources were asked before (by resource), and their
	// --reask names. held are those given up and not asked yet; whole and
	// inVain count, by product, this job's whole paid answers and its
	// answers that stayed broken or stopped paging; spent, the resources
	// asked in vain in this job for the MaxReasks-th time or more.
	failed map[string]load.FailedAsk
	askAs  map[string]string
	held   []workItem
	whole  map[wire.Product]int
	inVain map[wire.Product]int
	spent  []load.GivenUp
	// The refresh policy and its grace; dues are the tracked shipments
	// due tonight, by resource, deferred those the pace left for a later
	// night; answered is when each shipment was last answered
	// (load.LastAnswered), periods the current period of each product as
	// the balance before the run read it.
	policy   Refresh
	grace    time.Duration
	dues     map[string]candidate
	deferred map[string]bool
	answered map[string]time.Time
	periods  map[wire.Product]*wire.ConsumptionPeriod
}

// DefaultMaxReasks is how many jobs ask a resource whose answer for the
// date stays broken before it is given up: the first and two more.
const DefaultMaxReasks = 3

func (r *runner) execute(ctx context.Context) error {
	if !r.opt.DryRun {
		if err := r.start(ctx); err != nil {
			return err
		}
	}
	work, err := r.worklist(ctx)
	if err != nil {
		return err
	}
	if err := r.needURLs(work); err != nil {
		return err
	}
	paid := r.products(work)
	if len(work) > 0 { // nothing to buy, no reason to spend rate-limit slots
		r.balances(ctx, true, paid)
	}
	// The pace needs the balance: what it defers is not asked.
	if work, err = r.pace(ctx, work); err != nil {
		return err
	}
	if r.res.Plan, err = r.plan(ctx, work, paid); err != nil {
		return err
	}
	if r.opt.Track {
		r.run.Args["refresh"] = refreshArgs(r.res.Plan.Refresh)
		rp := r.res.Plan.Refresh
		r.log.Info("run: due tonight", "refresh", rp.Mode, "billing", rp.Billing, "active", rp.Active, "due", rp.DueTotal(),
			"by_reason", rp.Due, "not_due", rp.NotDue, "finished", r.res.Plan.Finished, "deferred", len(rp.Deferred))
	}
	if r.opt.DryRun {
		return r.misconfig
	}
	if r.opt.Confirm != nil && len(work) > 0 {
		if !r.opt.Confirm(r.res.Plan) {
			return ErrDeclined
		}
		// What was confirmed is what may be spent: the most the plan
		// priced, no more.
		_, s := r.res.Plan.ScheduleCredits()
		_, t := r.res.Plan.Spend()
		r.client.Budget(wire.ProductSchedule).LowerCap(int64(s))
		r.client.Budget(wire.ProductTracking).LowerCap(int64(t))
	}
	r.log.Info("run: fetching", "logical_date", r.logical.Format(time.DateOnly), "requests", len(work),
		"skipped", r.res.Plan.AlreadyLanded, "finished", r.res.Plan.Finished)
	if err := r.fetch(ctx, work); err != nil {
		return err
	}
	if err := r.askHeld(ctx); err != nil {
		return err
	}
	r.run.GivenUp = r.givenUp()
	r.res.Reask = r.reaskAll()
	if r.misconfig != nil {
		return r.misconfig
	}
	if len(paid) > 0 && ctx.Err() == nil && r.writer.failure() == nil { // as before, were all deferred
		r.balances(ctx, false, paid)
	}
	return nil
}

// start records the run, ends the rows of runs that died, and derives the
// responses a crash left behind; then starts the writer.
func (r *runner) start(ctx context.Context) error {
	if err := endDeadRuns(ctx, r.wh, r.opt.Now()); err != nil {
		return err
	}
	if err := r.wh.SaveRun(ctx, &r.run); err != nil {
		return err
	}
	rec := r.wh.Recovered()
	if rec.Journals > 0 {
		r.log.Warn("run: landed the responses a job that died had received", "journals", rec.Journals,
			"responses", rec.Responses, "new", rec.Landed)
	}
	if rec.Pushes > 0 || rec.Live > 0 {
		r.log.Info("run: landed the bodies the vendor pushed (etalake webhook serve)", "journals", rec.Pushes,
			"bodies", rec.PushedBodies, "new", rec.PushedLanded, "left_to_a_later_writer", rec.Live)
	}
	for _, d := range rec.Damaged {
		r.log.Error("run: a journal of received responses is damaged: what preceded the damage was landed, the rest will be asked again; the file is kept", "file", d)
	}
	r.sink = newSink(r.wh, r.opt.MaxBody, r.opt.Now, r.log)
	c, err := r.sink.catchUp(ctx)
	if err != nil {
		return fmt.Errorf("deriving responses left by an earlier run: %w", err)
	}
	c.log(r.log, "run")
	j, err := r.wh.OpenJournal(r.run.ID)
	if err != nil {
		return err
	}
	r.writer = newWriter(r.sink, j)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.writer.run(context.WithoutCancel(ctx))
	}()
	return nil
}

// worklist is the requests of the run after the checkpoint: the selection,
// plus for the nightly run every tracked shipment not finished.
func (r *runner) worklist(ctx context.Context) ([]workItem, error) {
	sel, err := r.selection(ctx)
	if err != nil {
		return nil, err
	}
	// What --reask names joins the rest, asked even if given up.
	all := items(sel, r.logical)
	forced := map[string]bool{}
	for _, it := range items(r.opt.Reask, r.logical) {
		forced[it.resource.String()] = true
		all = append(all, it)
	}
	out, err := r.sift(ctx, all, forced)
	if err != nil {
		return nil, err
	}
	sort.Strings(r.res.Plan.GivenUp)
	if len(r.held) > 0 { // priced for askHeld's budget check, not in the plan
		var aside Plan
		pages, err := r.wh.PagesPerAnswer(ctx)
		if err != nil {
			return nil, err
		}
		aside.price(r.held, pages, r.client.MaxPages())
	}
	return out, nil
}

// selection is this worker's share of the selection; when the run
// tracks, its shipments are added to the tracked ones (counted only, on a
// dry run) and replaced by every tracked shipment due tonight. A run that
// does not track reads when its shipments were last answered, to price
// them both ways (Plan.ShipmentMonths).
func (r *runner) selection(ctx context.Context) (Selection, error) {
	sel, sp := r.opt.Shard.split(r.opt.Selection)
	r.res.Plan.Shard = sp
	if !r.opt.Track {
		if len(sel.Shipments) > 0 || len(r.opt.Reask.Shipments) > 0 {
			var err error
			if r.answered, err = r.wh.LastAnswered(ctx); err != nil {
				return Selection{}, err
			}
		}
		return sel, nil
	}
	if !r.opt.DryRun && len(sel.Shipments) > 0 {
		n, err := TrackAdd(ctx, r.wh, sel.Shipments, r.run.ID, r.opt.Now())
		if err != nil {
			return Selection{}, err
		}
		r.log.Info("run: tracking new shipments", "added", n)
	}
	var adding []wire.ShipmentRef
	if r.opt.DryRun { // not added yet: count them as they would be
		adding = sel.Shipments
	}
	ships, err := r.dueTonight(ctx, adding)
	if err != nil {
		return Selection{}, err
	}
	sel.Shipments = ships
	return sel, nil
}

// sift keeps of all the requests to ask, each once: not those already
// landed for the night, nor those given up after --max-reasks jobs
// (held aside) unless forced by --reask or recovered since; a request
// whose earlier answer stopped between pages resumes at the next.
func (r *runner) sift(ctx context.Context, all []workItem, forced map[string]bool) ([]workItem, error) {
	answered, err := r.wh.Answered(ctx, r.logical)
	if err != nil {
		return nil, err
	}
	pending, err := r.wh.PendingPages(ctx, r.logical)
	if err != nil {
		return nil, err
	}
	if r.failed, err = r.wh.FailedAsks(ctx, r.logical); err != nil {
		return nil, err
	}
	var out []workItem
	for _, it := range all {
		name := it.resource.String()
		if _, dup := r.askAs[name]; dup {
			continue
		}
		r.askAs[name] = it.askAs
		if answered[name] {
			r.res.Plan.AlreadyLanded++
			continue
		}
		f, failed := r.failed[name]
		it.failed = f.Jobs
		switch {
		case failed && f.Jobs >= r.opt.MaxReasks && !f.Recovered && !forced[name]:
			r.held = append(r.held, it)
			r.res.Plan.GivenUp = append(r.res.Plan.GivenUp, name)
			continue
		case failed && f.Jobs >= r.opt.MaxReasks:
			r.res.Plan.Reopened++
			r.res.Reopened = append(r.res.Reopened, name)
		case failed:
			r.res.Plan.Reasked++
		}
		if next, ok := pending[name]; ok {
			it.resume = next
			r.res.Plan.Resumed++
		}
		out = append(out, it)
	}
	return out, nil
}

// plan is what the run will ask and spend; it prices each schedule
// request in work (workItem.pages) from the pages its answers took
// before, and the tracking requests both ways (per call, per
// shipment-month). paid are the products whose balances it reads.
func (r *runner) plan(ctx context.Context, work []workItem, paid []wire.Product) (Plan, error) {
	p := r.res.Plan
	p.Job, p.LogicalDate, p.Rate = r.opt.Job, r.logical, r.client.Limiter().Rate()
	p.CapSchedule, p.CapTracking = r.opt.CapSchedule, r.opt.CapTracking
	p.BalanceSchedule, p.BalanceTracking = r.run.BalanceScheduleBefore, r.run.BalanceTrackingBefore
	p.Requests = countRequests(work, func(workItem) bool { return true })
	p.Billing, p.ShipmentMonths = r.policy.Billing, r.shipmentMonths(work)
	p.ScheduleAPI = r.client.ScheduleAPI()
	for _, prod := range paid {
		if prod != wire.ProductSchedule || p.ScheduleAPI.HasConsumption() {
			p.Free += 2
		}
	}
	if p.Ports+p.Lanes+p.Vessels > 0 {
		pages, err := r.wh.PagesPerAnswer(ctx)
		if err != nil {
			return p, err
		}
		p.price(work, pages, r.client.MaxPages())
	}
	return p, nil
}

// products are the products the run pays for.
func (r *runner) products(work []workItem) []wire.Product {
	seen := map[wire.Product]bool{}
	for _, it := range work {
		seen[it.product] = true
	}
	var out []wire.Product
	for _, p := range wire.Products {
		if seen[p] {
			out = append(out, p)
		}
	}
	return out
}

// errUnauthorized stops the run: the key is refused.
var errUnauthorized = errors.New("the service refused the API key (401): nothing more is asked")

// classify records how a request ended.
func (r *runner) classify(it workItem, err error, cancel context.CancelCauseFunc) {
	if err == nil {
		return
	}
	var te *extract.TransportError
	if errors.As(err, &te) {
		r.noResp.Add(1)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case errors.Is(err, extract.ErrNotFound):
		r.res.NotFound = append(r.res.NotFound, it.resource.String())
	case errors.Is(err, extract.ErrBudgetSpent), errors.Is(err, extract.ErrQuotaExhausted), errors.Is(err, extract.ErrForbidden),
		errors.Is(err, extract.ErrCoordinatorLost):
		// A lost coordinator stops every product as a spent cap stops
		// one: what is left is not asked (the limiter and the budgets
		// fail at once from then on), and the job ends partial.
		if !errors.Is(err, extract.ErrForbidden) && it.landed == 0 {
			r.res.Unasked[it.product]++
		}
		r.res.Rest[it.product] = r.res.Rest[it.product].add(it)
		if _, ok := r.res.Stopped[it.product]; !ok {
			r.res.Stopped[it.product] = err.Error()
			r.log.Warn("run: product stopped", "product", it.product, "reason", err)
		}
	case errors.Is(err, extract.ErrUnauthorized):
		cancel(fmt.Errorf("%w: %w", errUnauthorized, err))
	case errors.Is(err, extract.ErrTooLarge):
		// Landed; the sink dead-letters it undecoded, counts it and says
		// so: the run goes on.
	case errors.Is(err, extract.ErrBroken):
		// Landed and dead-lettered by the sink; not an answer, so the
		// next job asks again (up to MaxReasks jobs).
		r.res.Broken = append(r.res.Broken, it.resource.String())
		why := err.Error()
		var be *extract.BrokenError
		if errors.As(err, &be) {
			why = be.Reason
		}
		r.askedInVain(it, "answer stayed broken in transfer: landed and dead-lettered", why, err)
	case errors.Is(err, extract.ErrMisconfigured):
		if _, ok := r.res.Stopped[it.product]; !ok {
			r.res.Stopped[it.product] = err.Error()
			r.log.Error("run: product stopped: its URL or profile is wrong", "product", it.product, "error", err)
		}
		if r.misconfig == nil {
			r.misconfig = err
		}
	case errors.Is(err, extract.ErrPagingStopped):
		// Every page asked was landed; the resource is not answered, so
		// the next job asks again (up to MaxReasks jobs).
		var pe *extract.PagingError
		why := err.Error()
		if errors.As(err, &pe) {
			why = fmt.Sprintf("%s at page %d: %s", pe.Reason, pe.Page, pe.Detail)
		}
		r.res.PagingStopped = append(r.res.PagingStopped, fmt.Sprintf("%s: %s", it.resource, why))
		r.askedInVain(it, "paging stopped: the pages landed are kept", why, err)
	case refused(err):
		r.res.Refused = append(r.res.Refused, fmt.Sprintf("%s: %v", it.resource, err))
		r.log.Warn("run: request refused by the provider", "resource", it.resource.String(), "error", err)
	case errors.Is(err, context.Canceled):
	default:
		r.res.Failed = append(r.res.Failed, fmt.Sprintf("%s: %v", it.resource, err))
		r.log.Warn("run: request failed", "resource", it.resource.String(), "error", err)
	}
}

// Remainder is what a product's stop left unanswered: Requests not sent
// or answered partly, needing at least Credits more.
type Remainder struct{ Requests, Credits int }

// add counts it, stopped with it.landed pages landed: it needs the rest
// of its pages, at least one.
func (m Remainder) add(it workItem) Remainder {
	need := 1
	if it.product == wire.ProductSchedule {
		need = max(1, it.pages.low-it.landed)
	}
	return Remainder{m.Requests + 1, m.Credits + need}
}

// askedInVain records that it was asked and its answer for the date not
// had (what says how, why for the ledger), and logs whether the next job
// asks it again or it is now given up for the date.
func (r *runner) askedInVain(it workItem, what, why string, err error) {
	r.spend(it, why)
	if it.failed+1 >= r.opt.MaxReasks {
		r.log.Warn("run: "+what+"; given up for the date after --max-reasks jobs, asked again once the service answers its product well",
			"resource", it.resource.String(), "failed_jobs", it.failed+1, "reask", r.command([]string{it.askAs}), "error", err)
		return
	}
	r.log.Warn("run: "+what+", the next job asks again", "resource", it.resource.String(), "error", err)
}

// refused reports whether err is an answer the provider gave that no retry
// changes: a 4xx other than those with a meaning of their own (401, 403,
// 404, 429).
func refused(err error) bool {
	var apiErr *extract.APIError
	return errors.As(err, &apiErr) && apiErr.Status >= 400 && apiErr.Status < 500 && !extract.Retryable(err)
}

// finish stops the writer, derives what is left, and records and
// publishes the run's end (see ending.end): a night of the demo before
// its last keeps it from readers, unless it failed, which ends the demo.
func (r *runner) finish(ctx context.Context, err error) (RunResult, error) {
	ctx = context.WithoutCancel(ctx)
	if r.writer != nil {
		jerr := r.writer.close(r.wg.Wait)
		if ferr := r.writer.failure(); ferr != nil && err == nil {
			err = ferr
		}
		if err == nil {
			err = jerr
		}
		if err == nil {
			err = deriveLeft(ctx, r.sink, r.run.Job)
		}
		if err == nil && r.opt.Track {
			err = r.saveDue(ctx)
		}
		r.run.Rows = r.sink.loaded
		r.run.ByStatus = r.writer.statuses()
	}
	s, t := r.client.Budget(wire.ProductSchedule).State(), r.client.Budget(wire.ProductTracking).State()
	r.run.SpentSchedule, r.run.UncertainSchedule = s.Spent, s.Uncertain
	r.run.CallsTracking, r.run.UncertainTracking = t.Spent, t.Uncertain
	for _, n := range r.run.ByStatus {
		r.run.Requests += n
	}
	r.run.Requests += r.noResp.Load()
	for status, n := range r.retried {
		if r.run.ByStatus == nil {
			r.run.ByStatus = map[int]int64{}
		}
		r.run.ByStatus[status] += n
		r.run.Requests += n
	}
	for _, l := range [][]string{r.res.NotFound, r.res.Failed, r.res.Refused, r.res.Broken, r.res.PagingStopped} {
		sort.Strings(l)
	}
	if r.sink != nil {
		r.res.DeadLetters, r.res.Quarantined = r.sink.dead, r.sink.quarantined
	}
	addShortfalls(&r.run, r.shortfalls())
	if r.opt.DryRun {
		settle(&r.run, r.opt.Now(), err, r.stopReasons(), nil)
		// The plan says how the run would end; the dry run is ok when it
		// planned.
		r.res.Verdict = Judge(load.StatusOK, err)
		r.run.ExitCode = r.opt.ExitCodes.of(r.res.Verdict)
		logEnd(r.log, &r.run)
		r.res.Run = r.run
		return r.res, err
	}
	e := ending{log: r.log, now: r.opt.Now, codes: r.opt.ExitCodes, hold: r.opt.Night && err == nil}
	err = e.end(ctx, r.wh, &r.run, err, r.stopReasons())
	r.res.Run, r.res.Verdict = r.run, Judge(r.run.Status, err)
	return r.res, err
}

// stopReasons are the reasons the run is partial, none when it is not.
func (r *runner) stopReasons() []string {
	var parts []string
	for _, p := range wire.Products {
		if why, ok := r.res.Stopped[p]; ok {
			if m := r.res.Rest[p]; m.Requests > 0 {
				why += fmt.Sprintf(" — the rest needs at least %d more %s (%d requests)", m.Credits, creditsOf(p), m.Requests)
			}
			parts = append(parts, fmt.Sprintf("%s stopped: %s", p, why))
		}
	}
	if n := len(r.res.Failed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d requests failed after retries", n))
	}
	if n := len(r.res.Refused); n > 0 {
		parts = append(parts, fmt.Sprintf("%d requests refused by the provider (%s)", n, firstOf(r.res.Refused, 2)))
	}
	// Those asked in vain for the MaxReasks-th time are said given up
	// below, not asked again by the next job.
	spent := map[string]bool{}
	for _, g := range r.spent {
		spent[g.Resource] = true
	}
	next := func(entries []string) string {
		again := 0
		for _, e := range entries {
			if res, _, _ := strings.Cut(e, ": "); !spent[res] {
				again++
			}
		}
		switch again {
		case len(entries):
			return "the next job of the date asks again"
		case 0:
			return "given up (below)"
		}
		return fmt.Sprintf("the next job of the date asks %d again, the rest are given up (below)", again)
	}
	if n := len(r.res.Broken); n > 0 {
		parts = append(parts, fmt.Sprintf("%d answers stayed broken in transfer: %s", n, next(r.res.Broken)))
	}
	if n := len(r.res.PagingStopped); n > 0 {
		parts = append(parts, fmt.Sprintf("%d answers not followed to their last page (%s): %s", n, firstOf(r.res.PagingStopped, 2), next(r.res.PagingStopped)))
	}
	if n := len(r.res.Skipped); n > 0 {
		parts = append(parts, fmt.Sprintf("%d bad input rows skipped (%s)", n, firstOf(r.res.Skipped, 3)))
	}
	if n := len(r.run.GivenUp); n > 0 {
		names := make([]string, n)
		for i, g := range r.run.GivenUp {
			names[i] = g.Resource
		}
		parts = append(parts, fmt.Sprintf("%d resources given up for the date (%s): their answer stayed broken or stopped paging in %d jobs (--max-reasks); "+
			"a job of the date asks them again once the service answers their product well; to ask them now: %s", n, firstOf(names, 3), r.opt.MaxReasks, r.res.Reask))
	}
	if r.sink != nil {
		parts = append(parts, deadLetterReason(r.sink.counts)...)
	}
	return parts
}

// shortfalls counts by reason what the run did not get.
func (r *runner) shortfalls() map[string]int {
	by := map[string]int{
		ShortFailed:        len(r.res.Failed),
		ShortRefused:       len(r.res.Refused),
		ShortBroken:        len(r.res.Broken),
		ShortPagingStopped: len(r.res.PagingStopped),
		ShortNotAskedAgain: len(r.held),
		ShortSkippedInput:  len(r.res.Skipped),
	}
	for _, n := range r.res.Unasked {
		by[ShortUnasked] += n
	}
	if r.sink != nil {
		for k, n := range deadLetterShortfalls(r.sink.counts) {
			by[k] += n
		}
	}
	return by
}

// creditsOf names what product p is paid in.
func creditsOf(p wire.Product) string {
	if p == wire.ProductTracking {
		return "tracking calls"
	}
	return "schedule credits"
}

// selectionArgs is the selection as recorded in etl_runs.args.
func selectionArgs(o RunOptions) map[string]any {
	args := map[string]any{
		"ports": o.Selection.Ports, "lanes": len(o.Selection.Lanes), "vessels": o.Selection.Vessels,
		"shipments": len(o.Selection.Shipments), "track": o.Track, "dry_run": o.DryRun,
		"max_credits": o.CapSchedule, "max_tracking_calls": o.CapTracking, "max_reasks": o.MaxReasks,
	}
	if !o.Reask.Empty() {
		var names []string
		for _, it := range items(o.Reask, time.Time{}) {
			names = append(names, it.askAs)
		}
		args["reask"] = names
	}
	return args
}

// firstOf renders the first n of items, and how many more.
func firstOf(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}
