package load_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/etalake/etalake/load"
)

// page is the n-th page of the port schedule of NLRTM, naming the
// (n+1)-th unless last; pages are asked with cursor=pN after the first.
func page(n int, last bool, status int) load.RawResponse {
	r := response(t0.Add(time.Duration(n)*time.Minute), fmt.Sprintf(`[{"page":%d}]`, n))
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
	day := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		landed  []load.RawResponse
		done    bool
		pending string // the page to resume at
	}{
		{"one page, not paged", []load.RawResponse{page(1, true, 200)}, true, ""},
		{"3 of 7 pages", []load.RawResponse{page(1, false, 200), page(2, false, 200), page(3, false, 200)}, false, "cursor=p4"},
		{"page 4 failed", []load.RawResponse{page(1, false, 200), page(2, false, 200), page(3, false, 200), page(4, false, 500)}, false, "cursor=p4"},
		{"every page", []load.RawResponse{page(1, false, 200), page(2, false, 200), page(3, true, 200)}, true, ""},
		{"no data", []load.RawResponse{page(1, false, 404)}, true, ""},
		{"cursors came round", []load.RawResponse{page(1, false, 200), page(2, false, 200), roundTo(page(3, false, 200), 2)}, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := openWarehouse(t, t.TempDir())
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
func roundTo(r load.RawResponse, n int) load.RawResponse {
	r.NextPage = fmt.Sprintf("/cs/v1/port-schedules?UNLocationCode=NLRTM&date=2024-03-01&cursor=p%d", n)
	return r
}
