package extract

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/etalake/etalake/wire"
)

// DefaultScheduleDays is the schedule window of the requests that take a
// date range (the dcsa-cs-1.0 profile's vessel schedules and routings):
// four weeks from the logical date.
const DefaultScheduleDays = 28

// DefaultMaxPages is how many pages of one answer a call follows at most
// (Config.MaxPages): far more than any schedule the service answers, few
// enough that a provider paging without end costs a bounded sum.
const DefaultMaxPages = 100

// ErrPagingStopped: a paged answer was not followed to its end — its next
// page was one already asked in the same walk (a cursor seen twice), a
// page held the items of one asked already (PagingRepeat), an empty page
// named a next page, the walk reached Config.MaxPages, or the
// next page was on another host. Every page asked was landed; the error
// is a *PagingError saying which and why.
var ErrPagingStopped = errors.New("paging stopped")

// ErrNoConsumption: the provider has no consumption endpoints for the
// product (the dcsa-cs-1.0 profile's schedules): its balance is unknown,
// and only the run's own cap bounds the spending. No request was sent.
var ErrNoConsumption = errors.New("the provider reports no credit balance for this product")

// Why a walk through the pages of an answer stopped before its end.
const (
	PagingLoop    = "loop"       // the next page was asked already in this walk
	PagingEmpty   = "empty page" // a page without items named a next page
	PagingLimit   = "page limit" // the walk reached Config.MaxPages
	PagingOffHost = "off host"   // the next page is on another host (it would be sent the key)
	PagingBadLink = "bad link"   // the next page's link does not parse, or a resume point is not ours
)

// PagingError is a walk through a paged answer that stopped before its end.
type PagingError struct {
	Endpoint wire.Endpoint
	// Request is the page whose answer stopped the walk (path and query,
	// never the key); Page its number in this walk, from 1.
	Request string
	Page    int
	Reason  string // one of the Paging* reasons
	Detail  string // what was seen, for a person
}

func (e *PagingError) Error() string {
	return fmt.Sprintf("%s %s: paging stopped at page %d (%s): %s", e.Endpoint, e.Request, e.Page, e.Reason, e.Detail)
}

// Unwrap makes every PagingError match ErrPagingStopped.
func (e *PagingError) Unwrap() error { return ErrPagingStopped }

// pagedEndpoint reports whether e's answers may come in pages: the three
// schedules, in both profiles.
func pagedEndpoint(e wire.Endpoint) bool {
	switch e {
	case wire.EndpointPortSchedule, wire.EndpointP2PSchedule, wire.EndpointVesselSchedule:
		return true
	}
	return false
}

// ResumeAt returns a client that shares everything with c and starts its
// next paged call at request (a page's path and query, as
// response.Received.NextPage gave it) instead of the first page: how a job stopped after page 3 of 7
// asks page 4 and buys none of the first three again.
func (c *Client) ResumeAt(request string) *Client {
	cc := *c
	cc.resume = request
	return &cc
}

// How a DCSA consumer asks for the page a Next-Page-Cursor names. The
// standard has said both: Commercial Schedules 1.0.0 and 1.0.1 "with only
// ?cursor=… as query parameter … should return a 400 error if any other
// query parameter is passed along with the cursor"; 1.0.2 and 1.0.3 "with
// cursor=… as query parameter along with the limit of items per page and
// any other query parameters used in the original request. Filter
// parameters may not be altered and MUST be preserved". The provider's
// API-Version header says which it follows, and the page is asked so
// only; without one, the cursor goes alone (the standard's first text),
// and a 400 to one form is asked once in the other, which the client then
// prefers: a refused request costs no credit.
type cursorForm int32

const (
	cursorAlone     cursorForm = iota // ?cursor=… only (CS 1.0.0, 1.0.1)
	cursorWithQuery                   // the first request's parameters and cursor (CS 1.0.2 and later)
)

func (f cursorForm) other() cursorForm { return 1 - f }

// formOfVersion is the cursor form of a DCSA API-Version header (SemVer):
// ok is false when the header is absent or names no 1.0.x version.
func formOfVersion(v string) (cursorForm, bool) {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 3 || parts[0] != "1" || parts[1] != "0" {
		return 0, false
	}
	patch := parts[2]
	if i := strings.IndexAny(patch, "-+"); i >= 0 {
		patch = patch[:i]
	}
	n, err := strconv.Atoi(patch)
	if err != nil || n < 0 {
		return 0, false
	}
	if n <= 1 {
		return cursorAlone, true
	}
	return cursorWithQuery, true
}

// cursorURL is the request of the page cursor names, in form f, for the
// walk whose first page was first.
func cursorURL(first *url.URL, cursor string, f cursorForm) *url.URL {
	u := *first
	q := url.Values{}
	if f == cursorWithQuery {
		q = first.Query()
	}
	q.Set("cursor", cursor)
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return &u
}

// walk is the state of one paged call: its first page's request (the
// filters a follow-up page may need), the pages asked so far by identity
// (a cursor, else the request), and how many; and how many answers of its
// pages broke in transfer (RetryPolicy.MaxBrokenAttempts bounds them for
// the whole walk).
type walk struct {
	first  *url.URL
	asked  map[string]int
	pages  int
	broken int
	// contents are the pages' contents asked so far (pageContent), by
	// page number.
	contents map[string]int
}

// pageRef is a next page: its request, the form it was built in when it
// came from a DCSA cursor (alt then being the other form), and its
// identity in the walk.
type pageRef struct {
	url *url.URL
	alt *url.URL // nil unless a DCSA cursor
	id  string
}

// nextPage is the page a 2xx answer to r points to, in the order the
// conventions are looked for: a Next-Page-Cursor header (DCSA), a Link
// header with rel="next" (RFC 8288), then a next link or cursor in the
// body (wire.NextInBody). nil when it names none. A link to another host
// is refused: following it would carry the API key away.
func (c *Client) nextPage(r *request, h http.Header, body []byte) (*pageRef, error) {
	if !pagedEndpoint(r.endpoint) {
		return nil, nil
	}
	first := r.url
	if r.walk != nil {
		first = r.walk.first
	}
	withCursor := func(cursor string, header bool) *pageRef {
		if header && c.cfg.ScheduleAPI == wire.ScheduleAPIDCSA {
			f, declared := formOfVersion(h.Get("API-Version"))
			if declared {
				// The provider said which text it follows: the page is
				// asked so, and a 400 to it is its answer, not a cue to
				// resend the filters a 1.0.0 provider must refuse.
				return &pageRef{url: cursorURL(first, cursor, f), id: "cursor " + cursor}
			}
			f = c.cursorForm()
			return &pageRef{url: cursorURL(first, cursor, f), alt: cursorURL(first, cursor, f.other()), id: "cursor " + cursor}
		}
		// Our own contract names no paging, nor do the conventions of a
		// cursor in the body: it is sent back with the request it came
		// with.
		u := *r.url
		q := u.Query()
		q.Set("cursor", cursor)
		u.RawQuery = q.Encode()
		return &pageRef{url: &u, id: "cursor " + cursor}
	}
	if cursor := strings.TrimSpace(h.Get("Next-Page-Cursor")); cursor != "" {
		return withCursor(cursor, true), nil
	}
	link := linkNext(h.Values("Link"))
	if link == "" {
		var cursor string
		if link, cursor = wire.NextInBody(body); cursor != "" {
			return withCursor(cursor, false), nil
		}
	}
	if link == "" {
		return nil, nil
	}
	u, err := r.url.Parse(link)
	if err != nil {
		return nil, r.pagingError(PagingBadLink, fmt.Sprintf("the next page's link %q does not parse: %v", link, err))
	}
	if u.Scheme != r.url.Scheme || u.Host != r.url.Host {
		return nil, r.pagingError(PagingOffHost, fmt.Sprintf("the next page is on another host (%s://%s), which would be sent the API key", u.Scheme, u.Host))
	}
	u.Fragment = ""
	return &pageRef{url: u, id: u.RequestURI()}, nil
}

// checkNext stops the walk of r at the page whose answer (body) names
// next: when next was asked already, when the page holds the items of a
// page asked already, when the page is empty, or when the walk has
// reached max pages.
func (r *request) checkNext(next *pageRef, body []byte, max int) error {
	w := r.walk
	if w == nil {
		return nil
	}
	content := pageContent(body)
	same, repeated := w.contents[content]
	if content != "" && !repeated {
		if w.contents == nil {
			w.contents = map[string]int{}
		}
		w.contents[content] = w.pages
	}
	switch n, seen := w.asked[next.id]; {
	case seen:
		return r.pagingError(PagingLoop, fmt.Sprintf("the next page (%s) is page %d again: the cursor was seen twice", next.url.RequestURI(), n))
	case content != "" && repeated:
		return r.pagingError(PagingRepeat, fmt.Sprintf("this page holds the items of page %d again under another cursor or link: a provider that serves the same items under fresh cursors would be bought page after page", same))
	case wire.EmptyPage(body):
		return r.pagingError(PagingEmpty, "a page without items names a next page: a provider that pages without end would be bought page after page")
	case w.pages >= max:
		return r.pagingError(PagingLimit, fmt.Sprintf("%d pages, the most one answer may take (--max-pages)", max))
	}
	return nil
}

func (r *request) pagingError(reason, detail string) *PagingError {
	page := 1
	if r.walk != nil {
		page = r.walk.pages
	}
	return &PagingError{Endpoint: r.endpoint, Request: r.url.RequestURI(), Page: page, Reason: reason, Detail: detail}
}

// cursorForm is the form the client asks DCSA cursors in when the
// provider does not say: cursor alone until a provider refused it and
// took the other.
func (c *Client) cursorForm() cursorForm {
	if c.pref == nil {
		return cursorAlone
	}
	return cursorForm(c.pref.Load())
}

// walkPages makes a paged call: r, or the page ResumeAt named, and every
// page after it, each a request of its own under the limiter and, for a
// paid endpoint, a credit of its own, each page's responses handed over
// as they arrive. An error stops the call where it happened: the pages
// before it were handed over (landed), so a later call resumes after
// them. A follow-up page in a DCSA cursor form the provider refuses (400)
// is asked once in the other form.
func (c *Client) walkPages(ctx context.Context, r *request, give hand) error {
	w := &walk{first: r.url, asked: map[string]int{}}
	rr := *r
	rr.walk = w
	r = &rr
	if c.resume != "" {
		u, err := r.url.Parse(c.resume)
		if err != nil || u.Host != r.url.Host {
			return r.pagingError(PagingBadLink, fmt.Sprintf("cannot resume at %q: not a page of %s", c.resume, r.url.Host))
		}
		r.url = u
		if cursor := u.Query().Get("cursor"); cursor != "" && c.cfg.ScheduleAPI == wire.ScheduleAPIDCSA {
			// Landed in one form; the other is asked should the
			// provider refuse it.
			f := cursorWithQuery
			if len(u.Query()) == 1 {
				f = cursorAlone
			}
			r.alt = cursorURL(w.first, cursor, f.other())
			r.id = "cursor " + cursor
		}
	}
	for {
		w.pages++
		w.asked[r.pageID()] = w.pages
		raw, err := c.answer(ctx, r, give)
		if err != nil && r.alt != nil && errors.Is(err, ErrBadRequest) {
			// Refused in this form: the standard has said both.
			var retry request = *r
			retry.url, retry.alt = r.alt, nil
			if c.pref != nil {
				c.pref.Store(int32(formOf(r.alt)))
			}
			r = &retry
			raw, err = c.answer(ctx, r, give)
		}
		if err != nil {
			return err
		}
		if raw.next == nil {
			return nil
		}
		next := *r
		next.url, next.alt, next.id = raw.next.url, raw.next.alt, raw.next.id
		r = &next
	}
}

// formOf is the cursor form of a follow-up page's request.
func formOf(u *url.URL) cursorForm {
	if len(u.Query()) == 1 {
		return cursorAlone
	}
	return cursorWithQuery
}

// pageID is the identity of r's page in its walk: its cursor when it was
// built from one, else its request.
func (r *request) pageID() string {
	if r.id != "" {
		return r.id
	}
	return r.url.RequestURI()
}

// newCursorPref is the shared memory of the cursor form a provider took.
func newCursorPref() *atomic.Int32 { return new(atomic.Int32) }
