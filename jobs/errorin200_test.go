package jobs_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// refuser answers every schedule request, while on, 200 with a gateway's
// error instead of the schedule.
type refuser struct {
	on    atomic.Bool
	asked atomic.Int64
}

func (f *refuser) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !f.on.Load() || !strings.Contains(r.URL.Path, "/schedule/") || strings.Contains(r.URL.Path, "/consumption/") {
			next.ServeHTTP(w, r)
			return
		}
		f.asked.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"message":"Unauthorized"}`))
	})
}

// An error sent with 200 is no schedule: the job stops the product after
// the first, refused (exit 2) quoting what the provider said, and lands
// nothing the next job takes for answered: against a healthy server, the
// next job of the same date asks every port.
func TestAnErrorSentWith200IsAskedAgainByTheNextJob(t *testing.T) {
	slowtest.Long(t)
	f := &refuser{}
	b := newBench(t, 1000, 1000)
	b.wrap(t, f.wrap)
	w := b.env.Service.World()
	sel := jobs.Selection{Ports: portsOf(t, w, 5)}

	f.on.Store(true)
	first, err := b.runErr(t, jobs.RunOptions{Selection: sel, ExitCodes: exitCodes, Job: "run"})
	if err == nil || !strings.Contains(err.Error(), `"Unauthorized"`) {
		t.Fatalf("first job: err = %v, want the product stopped quoting the provider", err)
	}
	if first.Run.ExitCode == nil || *first.Run.ExitCode != 2 {
		t.Errorf("first job: exit %v, want 2", first.Run.ExitCode)
	}
	if n := f.asked.Load(); n != 1 {
		t.Errorf("%d of 5 ports asked, want 1: the first error stops the product", n)
	}

	f.on.Store(false)
	second := b.run(t, jobs.RunOptions{Selection: sel, ExitCodes: exitCodes, Job: "run"})
	if second.Plan.AlreadyLanded != 0 || second.Run.ExitCode == nil || *second.Run.ExitCode != 0 {
		t.Errorf("second job: %d skipped as already landed, exit %v: want every port asked, ok", second.Plan.AlreadyLanded, second.Run.ExitCode)
	}
	if n := queryCount(t, b.wh, "SELECT count(DISTINCT resource) FROM raw_responses WHERE broken IS NULL AND status = 200 AND endpoint = '"+string(wire.EndpointPortSchedule)+"'"); n != 5 {
		t.Errorf("%d ports answered, want 5", n)
	}
}
