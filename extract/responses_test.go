package extract_test

import (
	"context"
	"testing"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// A call yields each response before it sends anything more: when the
// loop holds a response — a page, an attempt that is retried — the
// server has seen exactly the requests of the responses yielded so far,
// so that a job lands each one before the client goes on.
func TestEachResponseIsYieldedBeforeTheClientGoesOn(t *testing.T) {
	t.Run("the pages of a walk", func(t *testing.T) {
		r := newRig(t, simtest.Options{ScheduleAPI: sim.ScheduleAPIDCSA, PageSize: 1}, "test", func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIDCSA })
		day := r.env.Service.Clock().Now()
		n := 0
		for rec, err := range r.client.WithLogicalDate(day).PointToPoint(context.Background(), "CNSHA", "NLRTM", extract.P2POptions{DepartureStart: day}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if seen := len(r.ledger()); seen != n {
				t.Fatalf("holding response %d (%s), the server has seen %d requests: want %d", n, rec.Request, seen, n)
			}
		}
		if n < 2 {
			t.Fatalf("%d pages: the walk proves nothing", n)
		}
	})
	t.Run("the attempts of a retried call", func(t *testing.T) {
		r := newRig(t, simtest.Options{Faults: sim.Faults{ErrorRate: 1}}, "test", nil)
		n := 0
		for rec, err := range r.client.PortSchedule(context.Background(), "NLRTM") {
			if err != nil {
				break
			}
			n++
			if seen := len(r.ledger()); seen != n || rec.Attempt != n {
				t.Fatalf("holding attempt %d, the server has seen %d requests: want %d", rec.Attempt, seen, n)
			}
		}
		if n != 6 {
			t.Fatalf("%d attempts yielded, want 6", n)
		}
	})
}

// Stopping the loop stops the call where it is: no further page, no
// retry, nothing left reserved, no error.
func TestStoppingTheLoopStopsTheCall(t *testing.T) {
	t.Run("after the first page", func(t *testing.T) {
		r := newRig(t, simtest.Options{ScheduleAPI: sim.ScheduleAPIDCSA, PageSize: 1}, "test", func(cfg *extract.Config) { cfg.ScheduleAPI = wire.ScheduleAPIDCSA })
		day := r.env.Service.Clock().Now()
		pages := 0
		for rec, err := range r.client.WithLogicalDate(day).PointToPoint(context.Background(), "CNSHA", "NLRTM", extract.P2POptions{DepartureStart: day}) {
			if err != nil {
				t.Fatal(err)
			}
			if rec.NextPage == "" {
				t.Fatal("a single page: the test proves nothing")
			}
			pages++
			break
		}
		if n := len(r.ledger()); n != 1 || pages != 1 {
			t.Errorf("the server saw %d requests after the loop stopped at page 1, want 1", n)
		}
		if st := r.client.Budget(wire.ProductSchedule).State(); st.Spent != 1 || st.Reserved != 0 {
			t.Errorf("budget = %+v, want the one page spent and nothing reserved", st)
		}
	})
	t.Run("at an attempt that would be retried", func(t *testing.T) {
		r := newRig(t, simtest.Options{Faults: sim.Faults{ErrorRate: 1}}, "test", nil)
		for range r.client.PortSchedule(context.Background(), "NLRTM") {
			break
		}
		if n := len(r.ledger()); n != 1 {
			t.Errorf("the server saw %d requests, want 1: no retry once the loop stopped", n)
		}
	})
}

// The current period is the one answer the client decodes, and only once
// its consumer has taken it (the loop went on past it): one that stops at
// the answer — a job whose landing failed — leaves the budget as it was.
func TestTheCurrentPeriodIsDecodedOnceTaken(t *testing.T) {
	r := newRig(t, simtest.Options{}, "test", nil)
	budget := r.client.Budget(wire.ProductSchedule)
	for rec, err := range r.client.CurrentPeriod(context.Background(), wire.ProductSchedule) {
		if err != nil || !rec.OK() {
			t.Fatalf("%v, %+v: want the answer", err, rec)
		}
		break
	}
	if p, st := budget.Reported(), budget.State(); p != nil || st.Cap != extract.Unlimited {
		t.Fatalf("reported %+v, cap %d, after an answer not taken: want nothing decoded", p, st.Cap)
	}
	if _, err := r.do(r.client.CurrentPeriod(context.Background(), wire.ProductSchedule)); err != nil {
		t.Fatal(err)
	}
	p := budget.Reported()
	if p == nil || p.Credits == nil || budget.State().Cap != *p.Credits {
		t.Fatalf("reported %+v, cap %d: want the period, and the cap lowered to its credits", p, budget.State().Cap)
	}
	body, err := wire.DecodeCurrentPeriod(last(r.raws).Body)
	if err != nil || *body.Credits != *p.Credits || !body.PeriodStart.Equal(*p.PeriodStart) {
		t.Errorf("reported %+v, the answer yielded says %+v (%v)", p, body, err)
	}
}
