package extract_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// pager is a provider of our own making that answers the port schedule of
// NLAMS in pages of one DCSA item each, naming the next page the way its
// mode says: the standard's Next-Page-Cursor header, an RFC 8288 Link
// header, or a cursor or link in a service-profile body.
type pager struct {
	mode  string // cursor, link, body-cursor, body-link, loop, offhost, empty, cycle
	pages int
	// version is the API-Version header sent; strict, when set, refuses
	// (400) a follow-up page asked in the other DCSA cursor form: alone
	// refuses anything beside cursor (CS 1.0.0, 1.0.1), query a cursor
	// without the first request's filters (CS 1.0.2, 1.0.3).
	version, strict string

	mu       sync.Mutex
	requests []string
}

func (p *pager) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r.URL.RequestURI())
	p.mu.Unlock()
	page := 1
	q := r.URL.Query()
	if c := q.Get("cursor"); c != "" {
		page, _ = strconv.Atoi(strings.TrimPrefix(c, "p"))
		if (p.strict == "alone" && len(q) > 1) || (p.strict == "query" && q.Get("UNLocationCode") == "") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"httpMethod":"GET","requestUri":"/","statusCode":400,"statusCodeText":"Bad Request","statusCodeMessage":"cursor form refused","providerCorrelationReference":"x","errorDateTime":"2026-01-05T03:00:00Z","errors":[]}`))
			return
		}
	}
	if p.version != "" {
		w.Header().Set("API-Version", p.version)
	}
	if page < 1 || page > p.pages {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	n := page
	if p.mode == "cycle" {
		n = (page-1)%4 + 1 // the same 4 pages' items, again and again, under fresh cursors
	}
	item := fmt.Sprintf(`{"location":{"UNLocationCode":"NLAMS"},"vesselSchedules":[{"servicePartners":[{"carrierCode":"MAEU","carrierImportVoyageNumber":"%dW"}],`+
		`"vessel":{"vesselIMONumber":"9321483"},"isDummyVessel":false,"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-01-0%dT06:00:00Z"}]}]}`, n, n)
	body := "[" + item + "]"
	next := page + 1
	if p.mode == "loop" && page == 3 {
		next = 2
	}
	if p.mode == "empty" && page >= 2 {
		body = "[]"
	}
	last := page == p.pages && p.mode != "loop"
	q.Set("cursor", "p"+strconv.Itoa(next))
	nextURL := *r.URL
	nextURL.RawQuery = q.Encode()
	switch {
	case last:
	case p.mode == "cursor" || p.mode == "loop" || p.mode == "empty" || p.mode == "cycle":
		w.Header().Set("Next-Page-Cursor", "p"+strconv.Itoa(next))
	case p.mode == "link":
		// RFC 8288, section 3: "Link = #link-value" and "link-value = "<"
		// URI-Reference ">" *( OWS ";" OWS link-param )" — several values in
		// one header and in several, a quoted parameter holding a comma; and
		// section 3.3: "The "rel" parameter can, however, contain multiple
		// link relation types." Only the value whose rel names next counts.
		w.Header().Add("Link", `<https://elsewhere.example/first>; rel="first"`)
		w.Header().Add("Link", fmt.Sprintf(`<%s>; title="a, b"; rel="last next", <https://elsewhere.example/prev>; rel=prev`, nextURL.RequestURI()))
	case p.mode == "offhost":
		w.Header().Set("Link", `<https://elsewhere.example/cs/v1/port-schedules?cursor=p2>; rel="next"`)
	case p.mode == "body-cursor":
		body = fmt.Sprintf(`{"location":{"locode":"NLAMS"},"vesselSchedules":[%s],"pagination":{"nextCursor":"p%d"}}`, serviceCall(page), next)
	case p.mode == "body-link":
		body = fmt.Sprintf(`{"location":{"locode":"NLAMS"},"vesselSchedules":[%s],"links":{"next":{"href":%q}}}`, serviceCall(page), nextURL.RequestURI())
	}
	if last && strings.HasPrefix(p.mode, "body") {
		body = fmt.Sprintf(`{"location":{"locode":"NLAMS"},"vesselSchedules":[%s],"pagination":{"nextCursor":null}}`, serviceCall(page))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

// serviceCall is a service-profile vessel schedule of page n.
func serviceCall(n int) string {
	return fmt.Sprintf(`{"carrierCode":"MAEU","vessel":{"imo":9321483},"carrierImportVoyageNumber":"%dW","timestamps":[]}`, n)
}

func (p *pager) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// pagedClient is the real client against p, in the dcsa-cs-1.0 profile,
// with a schedule budget of capSchedule credits.
func pagedClient(t *testing.T, p http.Handler, capSchedule int64, mod func(*extract.Config)) (*extract.Client, *[]*response.Received) {
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
	var raws []*response.Received
	cfg := extract.Config{
		ScheduleURL: srv.URL + "/cs", TrackingURL: srv.URL + wire.TrackingBasePath, Key: key,
		ScheduleAPI: wire.ScheduleAPIDCSA, Clock: clock, Limiter: lim,
		ScheduleBudget: extract.NewBudget(wire.ProductSchedule, capSchedule),
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

// keep runs a call to its end, keeping every response it yielded in raws.
func keep(raws *[]*response.Received, responses extract.Responses) error {
	got, err := simtest.Drain(responses)
	*raws = append(*raws, got...)
	return err
}

// portPages runs a port schedule call to its end, keeping every response
// it yielded in raws, and returns its pages' items, decoded as the
// transform decodes them.
func portPages(t *testing.T, raws *[]*response.Received, responses extract.Responses) (wire.Schedules[wire.PortSchedule], error) {
	t.Helper()
	got, err := simtest.Drain(responses)
	*raws = append(*raws, got...)
	return decoded(t, got, wire.DecodePortSchedules), err
}

func TestEveryPageIsAskedOnceWhateverTheConvention(t *testing.T) {
	for _, mode := range []string{"cursor", "link", "body-cursor", "body-link"} {
		t.Run(mode, func(t *testing.T) {
			p := &pager{mode: mode, pages: 7}
			c, raws := pagedClient(t, p, extract.Unlimited, nil)
			got, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
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
				q := u.Query()
				switch {
				case i > 0 && mode == "cursor":
					// DCSA, no API-Version: the cursor alone.
					if len(q) != 1 || q.Get("cursor") == "" {
						t.Errorf("page %d asked %s, want the cursor alone", i+1, a)
					}
				case q.Get("UNLocationCode") != "NLAMS" || q.Get("date") != "2026-01-05":
					t.Errorf("page %d dropped the filters: %s", i+1, a)
				}
			}
			if len(got.Items) != 7 || len(got.Items[6].VesselSchedules) != 1 || *got.Items[6].VesselSchedules[0].CarrierImportVoyageNumber != "7W" {
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
				if r.NextPage != want {
					t.Errorf("page %d lands Next = %q, want the request of the next page %q", i+1, r.NextPage, want)
				}
			}
		})
	}
}

func TestACursorSeenTwiceStopsTheResource(t *testing.T) {
	p := &pager{mode: "loop", pages: 9}
	c, raws := pagedClient(t, p, extract.Unlimited, nil)
	_, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
	var pe *extract.PagingError
	if !errors.As(err, &pe) || pe.Reason != extract.PagingLoop || pe.Page != 3 || !strings.Contains(err.Error(), "is page 2 again") {
		t.Fatalf("err = %v, want a loop at page 3 naming page 2", err)
	}
	if n := len(p.asked()); n != 3 {
		t.Errorf("asked %d pages, want 3: no page is bought again", n)
	}
	if last := (*raws)[len(*raws)-1]; !strings.HasPrefix(last.PagingStop, extract.PagingLoop) {
		t.Errorf("the last page lands PagingStop %q, want the loop said: the next job must not take it for answered", last.PagingStop)
	}
}

func TestAnEmptyPageNamingANextPageStopsTheResource(t *testing.T) {
	// A provider that answers [] with a fresh Next-Page-Cursor each time
	// would be bought page after page.
	p := &pager{mode: "empty", pages: 1000}
	c, raws := pagedClient(t, p, extract.Unlimited, nil)
	_, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
	var pe *extract.PagingError
	if !errors.As(err, &pe) || pe.Reason != extract.PagingEmpty || pe.Page != 2 {
		t.Fatalf("err = %v, want an empty page 2 to stop the walk", err)
	}
	if n := len(p.asked()); n != 2 {
		t.Errorf("asked %d pages, want 2", n)
	}
	last := (*raws)[len(*raws)-1]
	if last.PagingStop == "" || last.NextPage == "" {
		t.Errorf("the empty page lands PagingStop %q, Next %q: want both, so that the next job resumes there", last.PagingStop, last.NextPage)
	}
}

func TestAWalkStopsAtMaxPages(t *testing.T) {
	p := &pager{mode: "cursor", pages: 50}
	c, raws := pagedClient(t, p, extract.Unlimited, func(cfg *extract.Config) { cfg.MaxPages = 5 })
	_, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
	var pe *extract.PagingError
	if !errors.As(err, &pe) || pe.Reason != extract.PagingLimit || pe.Page != 5 || !strings.Contains(err.Error(), "--max-pages") {
		t.Fatalf("err = %v, want the page limit at page 5", err)
	}
	if n, s := len(p.asked()), c.Budget(wire.ProductSchedule).State(); n != 5 || s.Spent != 5 {
		t.Errorf("asked %d pages for %d credits, want 5 and 5", n, s.Spent)
	}
	if last := (*raws)[4]; !strings.Contains(last.NextPage, "cursor=p6") {
		t.Errorf("page 5 lands Next %q, want page 6: where the next job resumes", last.NextPage)
	}
}

func TestANextPageOnAnotherHostIsNotFollowed(t *testing.T) {
	p := &pager{mode: "offhost", pages: 3}
	c, raws := pagedClient(t, p, extract.Unlimited, nil)
	_, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
	if !errors.Is(err, extract.ErrPagingStopped) || !strings.Contains(err.Error(), "another host") {
		t.Fatalf("err = %v, want a refusal naming another host", err)
	}
	if n := len(p.asked()); n != 1 || len(*raws) != 1 || (*raws)[0].NextPage != "" {
		t.Errorf("asked %d, landed %d (Next %q): want the first page only, landed with no next page", n, len(*raws), (*raws)[0].NextPage)
	}
}

func TestAStoppedResourceResumesAtItsNextPage(t *testing.T) {
	p := &pager{mode: "cursor", pages: 7}
	c, raws := pagedClient(t, p, 3, nil)
	_, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
	if !errors.Is(err, extract.ErrBudgetSpent) {
		t.Fatalf("err = %v, want the cap of 3 to stop the pages", err)
	}
	resume := (*raws)[len(*raws)-1].NextPage
	c2, _ := pagedClient(t, p, extract.Unlimited, nil)
	// The second client is another server's; point it at page 4 of this one.
	u, _ := url.Parse(resume)
	got, err := portPages(t, new([]*response.Received), c2.ResumeAt(u.RequestURI()).PortSchedule(t.Context(), "NLAMS"))
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
	if _, err := portPages(t, raws, c.PortSchedule(ctx, "nlams")); err != nil {
		t.Fatal(err)
	}
	_ = keep(raws, c.VesselSchedule(ctx, 9321483))
	_ = keep(raws, c.PointToPoint(ctx, "NLAMS", "SGSIN", extract.P2POptions{DepartureStart: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}))
	want := []string{
		"/cs/v1/port-schedules?UNLocationCode=NLAMS&date=2026-01-05&limit=2",
		"/cs/v1/vessel-schedules?endDate=2026-01-19&limit=2&startDate=2026-01-05&vesselIMONumber=9321483",
		"/cs/v1/point-to-point-routes?departureEndDate=2026-01-19&departureStartDate=2026-01-05&limit=2&placeOfDelivery=SGSIN&placeOfReceipt=NLAMS",
	}
	if got := p.asked(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("asked\n%q\nwant\n%q", got, want)
	}
	if err := keep(raws, c.CurrentPeriod(ctx, wire.ProductSchedule)); !errors.Is(err, extract.ErrNoConsumption) {
		t.Errorf("schedule balance: err = %v, want ErrNoConsumption", err)
	}
	if n := len(p.asked()); n != 3 || len(*raws) != 3 {
		t.Errorf("%d requests: the balance of a provider without one must cost no request", n)
	}
}

// The standard's two texts on how a next page is asked, both of DCSA
// Commercial Schedules 1.0 (cs/v1, the Next-Page-Cursor header's
// description, the same for the three operations):
const (
	// CS 1.0.0 and 1.0.1.
	cursorAloneRule = "To retrieve the next page, the API consumer sends a `GET` request to the endpoint URL with only `?cursor=fE9mZnNldHw9MTAmbGltaXQ9MTA` as query parameter. " +
		"The limit of items per page and any other query parameters may not be altered, therefore it may also not be specified when requesting subsequent pages. " +
		"The API provider must ignore any query parameters passed along with a cursor, and should return a `400` error if any other query parameter is passed along with the `cursor`."
	// CS 1.0.2 and 1.0.3.
	cursorWithQueryRule = "To retrieve the next page, the API consumer sends a `GET` request to the endpoint URL with `cursor=fE9mZnNldHw9MTAmbGltaXQ9MTA` as query parameter " +
		"along with the limit of items per page and any other query parameters used in the original request. Filter parameters may not be altered and MUST be preserved when requesting subsequent pages."
)

// TestANextPageIsAskedAsTheProvidersVersionOfTheStandardSays: the
// provider's API-Version header says which text it follows; without one
// the cursor goes alone (cursorAloneRule), and a provider that refuses
// that form is asked once in the other, which the client keeps using.
func TestANextPageIsAskedAsTheProvidersVersionOfTheStandardSays(t *testing.T) {
	cases := []struct {
		version, strict string
		wantAlone       bool
		refused         int // 400s on the way
	}{
		{"1.0.0", "alone", true, 0},
		{"1.0.1", "alone", true, 0},
		{"1.0.2", "query", false, 0},
		{"1.0.3", "query", false, 0},
		{"", "alone", true, 0},
		{"", "query", false, 1}, // learnt once, on page 2
	}
	for _, tc := range cases {
		t.Run(tc.version+"/"+tc.strict, func(t *testing.T) {
			p := &pager{mode: "cursor", pages: 4, version: tc.version, strict: tc.strict}
			c, raws := pagedClient(t, p, extract.Unlimited, func(cfg *extract.Config) { cfg.PageSize = 1 })
			got, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Items) != 4 {
				t.Fatalf("%d items, want the 4 pages'", len(got.Items))
			}
			asked := p.asked()
			if len(asked) != 4+tc.refused {
				t.Fatalf("asked %q: want 4 pages and %d refused", asked, tc.refused)
			}
			for _, a := range asked[1+tc.refused:] {
				u, _ := url.Parse(a)
				q := u.Query()
				rule := cursorWithQueryRule
				if tc.wantAlone {
					rule = cursorAloneRule
				}
				if alone := len(q) == 1 && q.Has("cursor"); alone != tc.wantAlone {
					t.Errorf("asked %s: cursor alone = %v, want %v: %q", a, alone, tc.wantAlone, rule)
				}
				if !tc.wantAlone && (q.Get("limit") != "1" || q.Get("UNLocationCode") != "NLAMS" || q.Get("date") != "2026-01-05") {
					t.Errorf("asked %s: want the first request's limit and filters with the cursor", a)
				}
			}
			if s := c.Budget(wire.ProductSchedule).State(); s.Spent != 4 {
				t.Errorf("spent %d, want 4: a refused page costs nothing", s.Spent)
			}
			// What is landed as the next page is what was asked.
			for i, r := range *raws {
				if r.Status == http.StatusOK && r.NextPage != "" && !slices.Contains(asked, r.NextPage) {
					t.Errorf("landed %d names Next %q, never asked", i, r.NextPage)
				}
			}
		})
	}
}

func TestAResumedCursorPageIsAskedInTheFormTheProviderTakes(t *testing.T) {
	// An earlier job landed page 2 as the cursor alone; this provider
	// wants the filters: asked once more with them, free.
	p := &pager{mode: "cursor", pages: 3, strict: "query"}
	c, _ := pagedClient(t, p, extract.Unlimited, nil)
	got, err := portPages(t, new([]*response.Received), c.ResumeAt("/cs/v1/port-schedules?cursor=p2").PortSchedule(t.Context(), "NLAMS"))
	if err != nil {
		t.Fatal(err)
	}
	asked := p.asked()
	if len(asked) != 3 || len(got.Items) != 2 || !strings.Contains(asked[1], "UNLocationCode=NLAMS") {
		t.Errorf("asked %q for %d items: want page 2 refused alone, then pages 2 and 3 with the filters", asked, len(got.Items))
	}
}

// A provider that serves the same items under fresh cursors is stopped at
// the first page that repeats one asked already: 5 credits for the 4
// distinct pages, not --max-pages (100).
func TestAPageRepeatingAnotherStopsTheResource(t *testing.T) {
	p := &pager{mode: "cycle", pages: 1000}
	c, raws := pagedClient(t, p, extract.Unlimited, nil)
	_, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
	var pe *extract.PagingError
	if !errors.As(err, &pe) || pe.Reason != extract.PagingRepeat || pe.Page != 5 || !strings.Contains(err.Error(), "page 1 again") {
		t.Fatalf("err = %v, want page 5 stopping the walk as page 1 again", err)
	}
	if s := c.Budget(wire.ProductSchedule).State(); s.Spent != 5 || len(p.asked()) != 5 {
		t.Errorf("asked %d pages, spent %d: want 5", len(p.asked()), s.Spent)
	}
	if last := (*raws)[len(*raws)-1]; !strings.HasPrefix(last.PagingStop, extract.PagingRepeat) {
		t.Errorf("the last page lands PagingStop %q, want the repeat said: the next job must not take it for answered", last.PagingStop)
	}
}

// A provider that declares API-Version 1.0.0 follows the standard's first
// text (cursorAloneRule): "the API consumer sends a `GET` request to the
// endpoint URL with only `?cursor=…` as query parameter … The API provider
// … should return a `400` error if any other query parameter is passed
// along with the `cursor`." Its 400 to a cursor sent alone is its answer:
// the page is not asked again with the filters.
func TestADeclaredVersionIsNotAskedInTheOtherCursorForm(t *testing.T) {
	for _, tc := range []struct{ version, strict string }{{"1.0.0", "query"}, {"1.0.3", "alone"}} {
		t.Run(tc.version, func(t *testing.T) {
			p := &pager{mode: "cursor", pages: 3, version: tc.version, strict: tc.strict}
			c, raws := pagedClient(t, p, extract.Unlimited, nil)
			_, err := portPages(t, raws, c.PortSchedule(t.Context(), "NLAMS"))
			if !errors.Is(err, extract.ErrBadRequest) {
				t.Fatalf("err = %v, want the provider's 400", err)
			}
			asked := p.asked()
			if len(asked) != 2 {
				t.Fatalf("asked %q: want page 1 and page 2 once, in the declared form", asked)
			}
			u, _ := url.Parse(asked[1])
			if alone := len(u.Query()) == 1; alone != (tc.version == "1.0.0") {
				t.Errorf("page 2 asked as %s, not in the form %s declares: %q", asked[1], tc.version, cursorAloneRule)
			}
		})
	}
}
