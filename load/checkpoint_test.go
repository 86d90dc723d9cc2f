package load_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// page is the n-th page of the port schedule of NLRTM, naming the
// (n+1)-th unless last; pages are asked with cursor=pN after the first.
func page(n int, last bool, status int) response.Landed {
	r := fetched(t0.Add(time.Duration(n)*time.Minute), fmt.Sprintf(`[{"page":%d}]`, n))
	r.Request = "/cs/v1/port-schedules?UNLocationCode=NLRTM&date=2024-03-01"
	if n > 1 {
		r.Request += fmt.Sprintf("&cursor=p%d", n)
	}
	r.Resource, r.Status = "port:NLRTM", status
	if !last && status == 200 {
		r.NextPage = fmt.Sprintf("/cs/v1/port-schedules?UNLocationCode=NLRTM&date=2024-03-01&cursor=p%d", n+1)
	}
	return r
}

func TestAPagedAnswerIsAnsweredOnlyOnceItsLastPageLanded(t *testing.T) {
	slowtest.Long(t)
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		landed  []response.Landed
		done    bool
		pending string // the page to resume at
	}{
		{"one page, not paged", []response.Landed{page(1, true, 200)}, true, ""},
		{"3 of 7 pages", []response.Landed{page(1, false, 200), page(2, false, 200), page(3, false, 200)}, false, "cursor=p4"},
		{"page 4 failed", []response.Landed{page(1, false, 200), page(2, false, 200), page(3, false, 200), page(4, false, 500)}, false, "cursor=p4"},
		{"every page", []response.Landed{page(1, false, 200), page(2, false, 200), page(3, true, 200)}, true, ""},
		{"no data", []response.Landed{page(1, false, 404)}, true, ""},
		{"cursors came round", []response.Landed{page(1, false, 200), page(2, false, 200), roundTo(page(3, false, 200), 2)}, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := freshWarehouse(t)
			land(t, w, tc.landed...)
			answered, err := w.Answered(t.Context(), day)
			if err != nil {
				t.Fatal(err)
			}
			pending, err := w.PendingPages(t.Context(), day)
			if err != nil {
				t.Fatal(err)
			}
			if answered["port:NLRTM"] != tc.done {
				t.Errorf("answered = %v, want %v", answered["port:NLRTM"], tc.done)
			}
			want := ""
			if tc.pending != "" {
				want = "/cs/v1/port-schedules?UNLocationCode=NLRTM&date=2024-03-01&" + tc.pending
			}
			if pending["port:NLRTM"] != want {
				t.Errorf("resume at %q, want %q", pending["port:NLRTM"], want)
			}
			rs, _ := all(t, w, load.RawFilter{})
			if rs[0].NextPage != tc.landed[0].NextPage {
				t.Errorf("next_page reads back as %q, want %q", rs[0].NextPage, tc.landed[0].NextPage)
			}
		})
	}
}

// roundTo makes r name page n as its next page.
func roundTo(r response.Landed, n int) response.Landed {
	r.NextPage = fmt.Sprintf("/cs/v1/port-schedules?UNLocationCode=NLRTM&date=2024-03-01&cursor=p%d", n)
	return r
}

// FailedAsks counts the jobs that asked a resource in vain for a date,
// says why the latest did, and whether a later job has since had a whole
// answer of the same product (a paid one: a balance proves nothing).
func TestFailedAsksSayWhenTheServiceAnswersTheProductWellAgain(t *testing.T) {
	slowtest.Long(t)
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(run string, minute int, resource, product, endpoint, broken string) response.Landed {
		r := fetched(t0.Add(time.Duration(minute)*time.Minute), fmt.Sprintf(`{"n":%d}`, minute))
		r.RunID, r.Resource, r.Product, r.Endpoint, r.Broken = run, resource, wire.Product(product), wire.Endpoint(endpoint), broken
		r.Request = "/" + resource
		return r
	}
	broken := func(run string, minute int) response.Landed {
		return at(run, minute, "port:NLRTM", "schedule", "schedule_port", fmt.Sprintf("cut at minute %d", minute))
	}
	cases := []struct {
		name      string
		landed    []response.Landed
		jobs      int
		recovered bool
	}{
		{"broken in two jobs", []response.Landed{broken("r1", 1), broken("r2", 2)}, 2, false},
		{"then answered", []response.Landed{broken("r1", 1), at("r2", 2, "port:NLRTM", "schedule", "schedule_port", "")}, 0, false},
		{"another port whole in a later job", []response.Landed{broken("r1", 1), at("r2", 2, "port:DEHAM", "schedule", "schedule_port", "")}, 1, true},
		{"another port whole in the same job", []response.Landed{broken("r1", 1), at("r1", 2, "port:DEHAM", "schedule", "schedule_port", "")}, 1, false},
		{"another port whole before", []response.Landed{at("r0", 0, "port:DEHAM", "schedule", "schedule_port", ""), broken("r1", 1)}, 1, false},
		{"another port broken in a later job", []response.Landed{broken("r1", 1), at("r2", 2, "port:DEHAM", "schedule", "schedule_port", "cut")}, 1, false},
		{"a shipment whole in a later job", []response.Landed{broken("r1", 1), at("r2", 2, "shipment:CT:MSCU1234566", "tracking", "shipment", "")}, 1, false},
		{"a balance in a later job", []response.Landed{broken("r1", 1), at("r2", 2, "consumption:schedule:current-period", "schedule", "consumption_current_period", "")}, 1, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := freshWarehouse(t)
			land(t, w, tc.landed...)
			failed, err := w.FailedAsks(t.Context(), day)
			if err != nil {
				t.Fatal(err)
			}
			f, ok := failed["port:NLRTM"]
			if tc.jobs == 0 {
				if ok {
					t.Fatalf("answered, yet failed asks %+v", f)
				}
				return
			}
			if f.Jobs != tc.jobs || f.Recovered != tc.recovered {
				t.Errorf("%+v: want %d jobs, recovered %v", f, tc.jobs, tc.recovered)
			}
			last := tc.landed[0]
			for _, r := range tc.landed {
				if r.Resource == "port:NLRTM" && r.Broken != "" {
					last = r
				}
			}
			if f.Why != last.Broken || !f.Last.Equal(last.FetchedAt) {
				t.Errorf("latest failure %q at %v, want %q at %v", f.Why, f.Last, last.Broken, last.FetchedAt)
			}
		})
	}
}
