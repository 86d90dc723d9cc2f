package extract_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/wire"
)

// pager is a provider of our own making that answers the port schedule of
// NLAMS in pages of one DCSA item each, naming the next page the way its
// mode says: the standard's Next-Page-Cursor header, an RFC 8288 Link
// header, or a cursor or link in a service-profile body.
type pager struct {
	mode  string // cursor, link, body-cursor, body-link, loop, offhost
	pages int

	mu       sync.Mutex
	requests []string
}

func (p *pager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.URL.RequestURI())
	p.mu.Unlock()
	page := 1
	if c := r.URL.Query().Get("cursor"); c != "" {
		page, _ = strconv.Atoi(strings.TrimPrefix(c, "p"))
	}
	if page < 1 || page > p.pages {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	item := fmt.Sprintf(`{"location":{"UNLocationCode":"NLAMS"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU","carrierImportVoyageNumber":"%dW"}],`+
		`"vessel":{"vesselIMONumber":"9321483"},"isDummyVessel":false,"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-01-0%dT06:00:00Z"}]}]}`, page, page)
	body := "[" + item + "]"
	next := page + 1
	if p.mode == "loop" && page == 3 {
		next = 2
	}
	last := page == p.pages && p.mode != "loop"
	q := r.URL.Query()
	q.Set("cursor", "p"+strconv.Itoa(next))
	nextURL := *r.URL
	nextURL.RawQuery = q.Encode()
	switch {
	case last:
	case p.mode == "cursor" || p.mode == "loop":
		w.Header().Set("Next-Page-Cursor", "p"+strconv.Itoa(next))
	case p.mode == "link":
		w.Header().Add("Link", `<https://elsewhere.example/first>; rel="first"`)
		w.Header().Add("Link", fmt.Sprintf(`<%s>; title="a, b"; rel="last next", <https://elsewhere.example/prev>; rel=prev`, nextURL.RequestURI()))
	case p.mode == "offhost":
		w.Header().Set("Link", `<https://elsewhere.example/cs/v1/port-schedules?cursor=p2>; rel="next"`)
	case p.mode == "body-cursor":
		body = fmt.Sprintf(`{"location":{"locode":"NLAMS"},"vesselSchedules":[],"pagination":{"nextCursor":"p%d"}}`, next)
	case p.mode == "body-link":
		body = fmt.Sprintf(`{"location":{"locode":"NLAMS"},"vesselSchedules":[],"links":{"next":{"href":%q}}}`, nextURL.RequestURI())
	}
	if last && strings.HasPrefix(p.mode, "body") {
		body = `{"location":{"locode":"NLAMS"},"vesselSchedules":[],"pagination":{"nextCursor":null}}`
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

func (p *pager) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// pagedClient is the real client against p, in the dcsa-cs-1.0 profile,
// with a schedule budget of capSchedule credits.
func pagedClient(t *testing.T, p http.Handler, capSchedule int64, mod func(*extract.Config)) (*extract.Client, *[]*extract.Raw) {
	t.Helper()
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	clock := fakeclock.New(time.Date(2026, 1, 5, 3, 0, 0, 0, time.UTC))
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: extract.DefaultRate, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	key, err := extract.NewKey("pager-secret-key")
	if err != nil {
		t.Fatal(err)
	}
	var raws []*extract.Raw
	cfg := extract.Config{
		ScheduleURL: srv.URL + "/cs", TrackingURL: srv.URL + wire.TrackingBasePath, Key: key,
		ScheduleAPI: wire.ScheduleAPIDCSA, Clock: clock, Limiter: lim,
		ScheduleBudget: extract.NewBudget(wire.ProductSchedule, capSchedule),
		Observe:        func(r *extract.Raw) error { raws = append(raws, r); return nil },
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := extract.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c.WithLogicalDate(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)), &raws
}

func TestEveryPageIsAskedOnceWhateverTheConvention(t *testing.T) {
	for _, mode := range []string{"cursor", "link", "body-cursor", "body-link"} {
		t.Run(mode, func(t *testing.T) {
			p := &pager{mode: mode, pages: 7}
			c, raws := pagedClient(t, p, extract.Unlimited, nil)
			got, _, err := c.PortSchedule(t.Context(), "NLAMS")
			if err != nil {
				t.Fatal(err)
			}
			asked := p.asked()
			if len(asked) != 7 {
				t.Fatalf("asked %d pages, want 7: %q", len(asked), asked)
			}
			seen := map[string]bool{}
			for i, a := range asked {
				if seen[a] {
					t.Errorf("page %d asked twice: %s", i+1, a)
				}
				seen[a] = true
				u, _ := url.Parse(a)
				if q := u.Query(); q.Get("UNLocationCode") != "NLAMS" || q.Get("date") != "2026-01-05" {
					t.Errorf("page %d dropped the filters: %s", i+1, a)
				}
			}
			if strings.HasPrefix(mode, "body") {
				if len(got.Items) != 7 {
					t.Errorf("%d items, want one per page", len(got.Items))
				}
			} else if len(got.Items) != 7 || len(got.Items[6].VesselSchedules) != 1 || *got.Items[6].VesselSchedules[0].CarrierImportVoyageNumber != "7W" {
				t.Errorf("items = %+v, want the 7 pages' items in order", got.Items)
			}
			if s := c.Budget(wire.ProductSchedule).State(); s.Spent != 7 {
				t.Errorf("spent %d credits, want one a page: 7", s.Spent)
			}
			for i, r := range *raws {
				want := ""
				if i+1 < len(asked) {
					want = asked[i+1]
				}
				if r.Next != want {
					t.Errorf("page %d lands Next = %q, want the request of the next page %q", i+1, r.Next, want)
				}
			}
		})
	}
}

func TestACursorSeenTwiceStopsTheResource(t *testing.T) {
	p := &pager{mode: "loop", pages: 9}
	c, _ := pagedClient(t, p, extract.Unlimited, nil)
	_, _, err := c.PortSchedule(t.Context(), "NLAMS")
	if !errors.Is(err, extract.ErrPageLoop) || !strings.Contains(err.Error(), "page 3 points back to page 2") {
		t.Fatalf("err = %v, want ErrPageLoop naming the pages", err)
	}
	if n := len(p.asked()); n != 3 {
		t.Errorf("asked %d pages, want 3: no page is bought again", n)
	}
}

func TestANextPageOnAnotherHostIsNotFollowed(t *testing.T) {
	p := &pager{mode: "offhost", pages: 3}
	c, raws := pagedClient(t, p, extract.Unlimited, nil)
	_, _, err := c.PortSchedule(t.Context(), "NLAMS")
	if !errors.Is(err, extract.ErrPageLoop) || !strings.Contains(err.Error(), "another host") {
		t.Fatalf("err = %v, want a refusal naming another host", err)
	}
	if n := len(p.asked()); n != 1 || len(*raws) != 1 || (*raws)[0].Next != "" {
		t.Errorf("asked %d, landed %d (Next %q): want the first page only, landed with no next page", n, len(*raws), (*raws)[0].Next)
	}
}

func TestAStoppedResourceResumesAtItsNextPage(t *testing.T) {
	p := &pager{mode: "cursor", pages: 7}
	c, raws := pagedClient(t, p, 3, nil)
	_, _, err := c.PortSchedule(t.Context(), "NLAMS")
	if !errors.Is(err, extract.ErrBudgetSpent) {
		t.Fatalf("err = %v, want the cap of 3 to stop the pages", err)
	}
	resume := (*raws)[len(*raws)-1].Next
	c2, _ := pagedClient(t, p, extract.Unlimited, nil)
	// The second client is another server's; point it at page 4 of this one.
	u, _ := url.Parse(resume)
	got, _, err := c2.ResumeAt(u.RequestURI()).PortSchedule(t.Context(), "NLAMS")
	if err != nil {
		t.Fatal(err)
	}
	asked := p.asked()
	if len(asked) != 7 || !strings.Contains(asked[3], "cursor=p4") {
		t.Fatalf("asked %q: want pages 1–3, then 4–7 once each", asked)
	}
	if len(got.Items) != 4 {
		t.Errorf("the resumed call returned %d pages' items, want 4", len(got.Items))
	}
}

func TestTheDCSAProfileAsksTheStandardsRequests(t *testing.T) {
	p := &pager{mode: "cursor", pages: 1}
	c, raws := pagedClient(t, p, extract.Unlimited, func(cfg *extract.Config) { cfg.PageSize = 2; cfg.ScheduleDays = 14 })
	ctx := context.Background()
	if _, _, err := c.PortSchedule(ctx, "nlams"); err != nil {
		t.Fatal(err)
	}
	_, _, _ = c.VesselSchedule(ctx, 9321483)
	_, _, _ = c.PointToPoint(ctx, "NLAMS", "SGSIN", extract.P2POptions{DepartureStart: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)})
	want := []string{
		"/cs/v1/port-schedules?UNLocationCode=NLAMS&date=2026-01-05&limit=2",
		"/cs/v1/vessel-schedules?endDate=2026-01-19&limit=2&startDate=2026-01-05&vesselIMONumber=9321483",
		"/cs/v1/point-to-point-routes?departureEndDate=2026-01-19&departureStartDate=2026-01-05&limit=2&placeOfDelivery=SGSIN&placeOfReceipt=NLAMS",
	}
	if got := p.asked(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("asked\n%q\nwant\n%q", got, want)
	}
	if _, _, err := c.CurrentPeriod(ctx, wire.ProductSchedule); !errors.Is(err, extract.ErrNoConsumption) {
		t.Errorf("schedule balance: err = %v, want ErrNoConsumption", err)
	}
	if n := len(p.asked()); n != 3 || len(*raws) != 3 {
		t.Errorf("%d requests: the balance of a provider without one must cost no request", n)
	}
}
