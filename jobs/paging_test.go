package jobs_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/wire"
)

// dcsaPager stands in front of the DCSA simulator and answers its
// port schedules itself, as a provider that pages wrongly does: mode
// "endless" answers [] with a fresh Next-Page-Cursor every time, "loop"
// names the same cursor again from the second page on, "refuse" answers
// 400 with the standard's ErrorResponse. Everything else goes to the
// simulator.
type dcsaPager struct {
	mode  string
	asked atomic.Int64
}

func (p *dcsaPager) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/v1/port-schedules") {
			next.ServeHTTP(w, r)
			return
		}
		n := p.asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("API-Version", "1.0.1")
		item := `[{"location":{"UNLocationCode":"NLAMS"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU","carrierImportVoyageNumber":"1W"}],` +
			`"vessel":{"vesselIMONumber":"9321483"},"isDummyVessel":false,"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-01-09T06:00:00Z"}]}]}]`
		switch p.mode {
		case "endless":
			w.Header().Set("Next-Page-Cursor", fmt.Sprintf("c%d", n))
			_, _ = w.Write([]byte("[]"))
		case "loop":
			w.Header().Set("Next-Page-Cursor", "again")
			_, _ = w.Write([]byte(item))
		case "refuse":
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"httpMethod":"GET","requestUri":"` + r.URL.RequestURI() + `","statusCode":400,"statusCodeText":"Bad Request",` +
				`"statusCodeMessage":"date is more than 30 days in the past","providerCorrelationReference":"p-1","errorDateTime":"2026-01-05T00:00:00Z",` +
				`"errors":[{"property":"date","value":"2026-01-05","errorCode":7003,"errorCodeText":"invalidQuery","errorCodeMessage":"too old"}]}`))
		}
	})
}

// pagingBench is a DCSA simulator behind p, with a warehouse.
func pagingBench(t *testing.T, mode string) (*bench, *dcsaPager) {
	t.Helper()
	b := newProfileBench(t, 1000, 1000, wire.ScheduleAPIDCSA, 0)
	p := &dcsaPager{mode: mode}
	b.wrap(t, p.wrap)
	return b, p
}

// A provider that answers [] with a fresh Next-Page-Cursor each time
// would be bought page after page: each job buys one page of it, ends
// partial saying so, and after --max-reasks jobs it is not asked again.
func TestAProviderThatPagesWithoutEndCostsOnePageAJob(t *testing.T) {
	slowtest.Long(t)
	b, p := pagingBench(t, "endless")
	sel := jobs.Selection{Ports: []string{"NLAMS"}}
	for job := 1; job <= 2; job++ {
		res := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel, MaxReasks: 2, ExitCodes: exitCodes})
		if p.asked.Load() != int64(job) {
			t.Fatalf("job %d: %d pages asked in all, want one a job", job, p.asked.Load())
		}
		if res.Run.Status != load.StatusPartial || *res.Run.ExitCode != 3 || res.Run.Shortfalls[jobs.ShortPagingStopped] != 1 ||
			len(res.PagingStopped) != 1 || !strings.Contains(res.PagingStopped[0], "empty page") || res.Run.Shortfalls[jobs.ShortFailed] != 0 {
			t.Fatalf("job %d: %s, exit %d, shortfalls %v, paging %q: want partial (3), one answer stopped at an empty page, nothing 'failed after retries'",
				job, res.Run.Status, *res.Run.ExitCode, res.Run.Shortfalls, res.PagingStopped)
		}
		if !strings.Contains(res.Run.StopReason, "not followed to their last page") {
			t.Errorf("job %d: stop reason %q does not say the paging stopped", job, res.Run.StopReason)
		}
		if job == 2 && res.Plan.Resumed != 1 {
			t.Errorf("job 2 resumed %d answers, want the one stopped: it is not answered", res.Plan.Resumed)
		}
	}
	third := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel, MaxReasks: 2, ExitCodes: exitCodes})
	if p.asked.Load() != 2 || strings.Join(third.Plan.GivenUp, ",") != "port:NLAMS" || third.Run.Status != load.StatusPartial ||
		third.Run.Shortfalls[jobs.ShortNotAskedAgain] != 1 {
		t.Fatalf("job 3: asked %d in all, given up %v, %s %v: want it left after 2 jobs, said", p.asked.Load(), third.Plan.GivenUp, third.Run.Status, third.Run.Shortfalls)
	}
	if n := queryCount(t, b.wh, "SELECT count(*) FROM raw_responses WHERE paging_stop LIKE 'empty page%'"); n != 2 {
		t.Errorf("%d landed pages say where the paging stopped, want 2", n)
	}
}

// A cursor seen twice stops the walk; the resource is not taken for
// answered: the next job asks it again from its first page.
func TestALoopedAnswerIsAskedAgainNotTakenForAnswered(t *testing.T) {
	slowtest.Long(t)
	b, p := pagingBench(t, "loop")
	sel := jobs.Selection{Ports: []string{"NLAMS"}}
	first := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel, ExitCodes: exitCodes})
	if p.asked.Load() != 2 || first.Run.Status != load.StatusPartial || len(first.PagingStopped) != 1 || !strings.Contains(first.PagingStopped[0], "loop") {
		t.Fatalf("first job: %d asked, %s, paging %q: want 2 pages, partial, a loop", p.asked.Load(), first.Run.Status, first.PagingStopped)
	}
	second := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel, ExitCodes: exitCodes})
	if second.Plan.AlreadyLanded != 0 || second.Plan.Ports != 1 || second.Plan.Resumed != 0 || p.asked.Load() != 4 {
		t.Fatalf("second job: %d already landed, %d ports asked (%d resumed), %d asked in all: want the port asked again from page 1",
			second.Plan.AlreadyLanded, second.Plan.Ports, second.Plan.Resumed, p.asked.Load())
	}
}

// A 400 is the provider's refusal: said with its message, counted apart,
// never "failed after retries", and asked once.
func TestARefusedRequestIsSaidAsRefused(t *testing.T) {
	b, p := pagingBench(t, "refuse")
	res := b.run(t, jobs.RunOptions{Job: "backfill", Selection: jobs.Selection{Ports: []string{"NLAMS"}}, ExitCodes: exitCodes})
	if p.asked.Load() != 1 || res.Run.Status != load.StatusPartial || len(res.Refused) != 1 || len(res.Failed) != 0 ||
		res.Run.Shortfalls[jobs.ShortRefused] != 1 || res.Run.Shortfalls[jobs.ShortFailed] != 0 {
		t.Fatalf("asked %d, %s, refused %q, failed %q, shortfalls %v: want one request, refused, partial", p.asked.Load(), res.Run.Status, res.Refused, res.Failed, res.Run.Shortfalls)
	}
	if !strings.Contains(res.Refused[0], "400") || !strings.Contains(res.Refused[0], "date is more than 30 days in the past") ||
		!strings.Contains(res.Run.StopReason, "refused by the provider") || strings.Contains(res.Run.StopReason, "after retries") {
		t.Errorf("refused %q, stop reason %q: want the provider's message, and no retries claimed", res.Refused[0], res.Run.StopReason)
	}
}

// More pages than --max-pages stop the walk where it is; the next job
// resumes there, and every page is bought once.
func TestAnAnswerLongerThanMaxPagesIsFinishedByTheNextJob(t *testing.T) {
	slowtest.Long(t)
	b := newProfileBench(t, 1000, 1000, wire.ScheduleAPIDCSA, 1)
	b.mod = func(cfg *extract.Config) { cfg.MaxPages = 2 }
	sel := dcsaSelection(t, b)
	sel.Ports, sel.Vessels = sel.Ports[:1], nil
	first := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel, ExitCodes: exitCodes})
	if first.Run.Status != load.StatusPartial || len(first.PagingStopped) != 1 || !strings.Contains(first.PagingStopped[0], "page limit") || b.charged() != 2 {
		t.Fatalf("first job: %s, paging %q, %d charged: want a stop at the page limit after 2 pages", first.Run.Status, first.PagingStopped, b.charged())
	}
	for job := 2; ; job++ {
		res := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel, MaxReasks: 10, ExitCodes: exitCodes})
		if res.Plan.Resumed != 1 {
			t.Fatalf("job %d resumed %d answers, want the one stopped", job, res.Plan.Resumed)
		}
		if res.Run.Status == load.StatusOK {
			break
		}
		if job > 10 {
			t.Fatal("never finished")
		}
	}
	seen := map[string]bool{}
	for _, e := range b.env.Service.Ledger() {
		if e.Charged && seen[e.Request] {
			t.Errorf("%s bought twice", e.Request)
		}
		seen[e.Request] = true
	}
	if done := b.run(t, jobs.RunOptions{Job: "backfill", Selection: sel}); done.Plan.AlreadyLanded != 1 {
		t.Errorf("after the last page, the answer is not taken for answered: %+v", done.Plan)
	}
}

// A client of the service profile pointed at a DCSA provider (or the
// reverse) gets answers no server of its contract gives: the job stops
// the product after its first request and fails with a configuration
// error naming the URL asked and the profile; the other product is asked
// as usual.
func TestAWrongProfileIsAConfigurationErrorAfterOneRequest(t *testing.T) {
	slowtest.Long(t)
	for _, tc := range []struct {
		name   string
		served wire.ScheduleAPI // by the simulator
		asked  wire.ScheduleAPI // by the client
	}{
		{"the service profile against a DCSA provider", wire.ScheduleAPIDCSA, wire.ScheduleAPIService},
		{"the DCSA profile against the service", wire.ScheduleAPIService, wire.ScheduleAPIDCSA},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newProfileBench(t, 1000, 1000, tc.served, 0)
			b.api = tc.asked
			w := b.env.Service.World()
			sel := jobs.Selection{Ports: portsOf(t, w, 5), Shipments: visible(t, w, 3)}
			res, err := b.runErr(t, jobs.RunOptions{Job: "backfill", Selection: sel, ExitCodes: exitCodes})
			var me *extract.MisconfigError
			if !errors.As(err, &me) || me.Product != wire.ProductSchedule || me.Profile != tc.asked {
				t.Fatalf("err = %v, want a MisconfigError of the schedule product", err)
			}
			if !strings.Contains(err.Error(), b.env.Server.URL) || !strings.Contains(err.Error(), string(tc.asked)) {
				t.Errorf("the error names neither the URL asked nor the profile: %v", err)
			}
			schedule, tracking := 0, 0
			for _, e := range b.env.Service.Ledger() {
				if strings.Contains(e.Request, "/container-tracking/") {
					tracking++
				} else {
					schedule++
				}
			}
			if schedule != 1 || tracking < len(sel.Shipments) {
				t.Errorf("%d schedule requests, %d tracking: want 1 schedule request, and the shipments asked", schedule, tracking)
			}
			if res.Run.Status != load.StatusFailed || b.charged() != len(sel.Shipments) {
				t.Errorf("%s, %d charged: want failed, only the shipments charged", res.Run.Status, b.charged())
			}
		})
	}
}

// The plan prices a schedule request at the pages its last answer took;
// a confirmed backfill spends no more than the plan showed, and when the
// answers take more than that, stops partial saying how many more
// credits the rest needs.
func TestAConfirmedBackfillSpendsNoMoreThanItShowed(t *testing.T) {
	slowtest.Long(t)
	b := newProfileBench(t, 1000, 1000, wire.ScheduleAPIDCSA, 1)
	sel := dcsaSelection(t, b) // ports with the most terminals first: answers of several pages
	many, few := sel.Ports[0], ""
	w, at := b.env.Service.World(), b.env.Service.Clock().Now()
	for _, p := range w.Ports() {
		if ps, err := w.PortSchedule(p.Locode, at); err == nil && len(ps.VesselSchedules) > 0 && terminals(ps) == 1 {
			few = p.Locode
			break
		}
	}
	if few == "" {
		t.Fatal("no port with one terminal")
	}
	day := at

	// First, a port of one page: the history of ports is 1 page.
	var shown jobs.Plan
	confirm := func(p jobs.Plan) bool { shown = p; return true }
	b.run(t, jobs.RunOptions{Job: "backfill", LogicalDate: day, Selection: jobs.Selection{Ports: []string{few}}, Confirm: confirm})
	if lo, hi := shown.ScheduleCredits(); lo != 1 || hi != shown.MaxPages || shown.Guessed != 1 {
		t.Fatalf("a first answer is priced %d–%d (guessed %d), want 1 to --max-pages %d", lo, hi, shown.Guessed, shown.MaxPages)
	}

	// A port never asked, priced as ports were (1 page), that takes more:
	// the job stops at the 1 credit confirmed.
	before := b.charged()
	res := b.run(t, jobs.RunOptions{Job: "backfill", LogicalDate: day.AddDate(0, 0, 1), Selection: jobs.Selection{Ports: []string{many}}, Confirm: confirm, ExitCodes: exitCodes})
	if lo, hi := shown.ScheduleCredits(); lo != 1 || hi != 1 {
		t.Fatalf("a port never asked is priced %d–%d, want the 1 page ports took", lo, hi)
	}
	if spent := b.charged() - before; spent != 1 || res.Run.Status != load.StatusPartial ||
		!strings.Contains(res.Run.StopReason, "the rest needs at least 1 more schedule credits") {
		t.Fatalf("spent %d, %s, %q: want the 1 credit confirmed, partial, and what the rest needs", spent, res.Run.Status, res.Run.StopReason)
	}

	// Once it has answered whole, its price is its pages.
	b.run(t, jobs.RunOptions{Job: "backfill", LogicalDate: day.AddDate(0, 0, 1), Selection: jobs.Selection{Ports: []string{many}}})
	pages := b.charged() - before
	before = b.charged()
	b.run(t, jobs.RunOptions{Job: "backfill", LogicalDate: day.AddDate(0, 0, 2), Selection: jobs.Selection{Ports: []string{many}}, Confirm: confirm})
	if lo, hi := shown.ScheduleCredits(); lo != pages || hi != pages || pages < 2 {
		t.Fatalf("priced %d–%d, want the %d pages it took (several)", lo, hi, pages)
	}
	if spent := b.charged() - before; spent > pages {
		t.Errorf("spent %d, more than the %d shown", spent, pages)
	}
}

// terminals counts the terminals a port schedule has calls at: the items
// of its DCSA answer.
func terminals(ps *wire.PortSchedule) int {
	seen := map[string]bool{}
	for _, vs := range ps.VesselSchedules {
		if vs.Facility != nil && vs.Facility.SMDGCode != nil {
			seen[*vs.Facility.SMDGCode] = true
		}
	}
	return len(seen)
}
