package extract

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/etalake/etalake/wire"
)

// DefaultScheduleDays is the schedule window of the requests that take a
// date range (the dcsa-cs-1.0 profile's vessel schedules and routings):
// four weeks from the logical date.
const DefaultScheduleDays = 28

// ErrPageLoop: a paged answer pointed to a page already asked for in the
// same call (a cursor seen twice), or to a page on another host; the
// resource stops there instead of spending without end.
var ErrPageLoop = errors.New("paging stopped")

// ErrNoConsumption: the provider has no consumption endpoints for the
// product (the dcsa-cs-1.0 profile's schedules): its balance is unknown,
// and only the run's own cap bounds the spending. No request was sent.
var ErrNoConsumption = errors.New("the provider reports no credit balance for this product")

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
// next paged call at request (a page's path and query, as Raw.Next gave
// it) instead of the first page: how a job stopped after page 3 of 7
// asks page 4 and buys none of the first three again.
func (c *Client) ResumeAt(request string) *Client {
	cc := *c
	cc.resume = request
	return &cc
}

// nextPage is the page a 2xx answer to r points to, in the order the
// conventions are looked for: a Next-Page-Cursor header (DCSA: the same
// request with cursor set), a Link header with rel="next" (RFC 8288), then
// a next link or cursor in the body (wire.NextInBody). nil when it names
// none. A link to another host is refused: following it would carry the
// API key away.
func (c *Client) nextPage(r *request, h http.Header, body []byte) (*url.URL, error) {
	if !pagedEndpoint(r.endpoint) {
		return nil, nil
	}
	withCursor := func(cursor string) *url.URL {
		u := *r.url
		q := u.Query()
		q.Set("cursor", cursor)
		u.RawQuery = q.Encode()
		return &u
	}
	if cursor := strings.TrimSpace(h.Get("Next-Page-Cursor")); cursor != "" {
		return withCursor(cursor), nil
	}
	link := linkNext(h.Values("Link"))
	if link == "" {
		var cursor string
		if link, cursor = wire.NextInBody(body); cursor != "" {
			return withCursor(cursor), nil
		}
	}
	if link == "" {
		return nil, nil
	}
	u, err := r.url.Parse(link)
	if err != nil {
		return nil, fmt.Errorf("%w: the next page's link %q does not parse: %v", ErrPageLoop, link, err)
	}
	if u.Scheme != r.url.Scheme || u.Host != r.url.Host {
		return nil, fmt.Errorf("%w: the next page is on another host (%s://%s), which would be sent the API key", ErrPageLoop, u.Scheme, u.Host)
	}
	u.Fragment = ""
	return u, nil
}

// linkNext finds the target of rel="next" in Link header values (RFC 8288:
// comma-separated <target>; param=value…, rel holding space-separated
// relation types).
func linkNext(values []string) string {
	for _, v := range values {
		for len(v) > 0 {
			v = strings.TrimLeft(v, " \t,")
			if !strings.HasPrefix(v, "<") {
				break
			}
			end := strings.IndexByte(v, '>')
			if end < 0 {
				break
			}
			target := v[1:end]
			v = v[end+1:]
			params := v
			if i := nextLinkValue(v); i >= 0 {
				params, v = v[:i], v[i:]
			} else {
				v = ""
			}
			for _, p := range strings.Split(params, ";") {
				name, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
					continue
				}
				for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
					if strings.EqualFold(rel, "next") {
						return target
					}
				}
			}
		}
	}
	return ""
}

// nextLinkValue is the index of the comma that starts the next link value
// of a Link header (outside quotes), or -1.
func nextLinkValue(s string) int {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				return i
			}
		}
	}
	return -1
}

// paged makes a paged call: r, or the page ResumeAt named, and every page
// after it, each a request of its own under the limiter and, for a paid
// endpoint, a credit of its own. It returns every page decoded, and the
// first page's response. An error stops the call where it happened: the
// pages before it were seen by Observe (landed), so a later call resumes
// after them.
func paged[T any](ctx context.Context, c *Client, r *request, decode func([]byte) (T, error)) ([]T, *Raw, error) {
	if c.resume != "" {
		u, err := r.url.Parse(c.resume)
		if err != nil || u.Host != r.url.Host {
			return nil, nil, fmt.Errorf("%w: cannot resume at %q", ErrPageLoop, c.resume)
		}
		rr := *r
		rr.url = u
		r = &rr
	}
	asked := map[string]int{}
	var (
		out   []T
		first *Raw
	)
	for page := 1; ; page++ {
		asked[r.url.RequestURI()] = page
		v, raw, err := get(ctx, c, r, decode)
		if first == nil {
			first = raw
		}
		if err != nil {
			return out, first, err
		}
		out = append(out, v)
		if raw.Next == "" {
			return out, first, nil
		}
		u, _ := r.url.Parse(raw.Next) // built by nextPage: parses
		if n, ok := asked[u.RequestURI()]; ok {
			return out, first, fmt.Errorf("%s %s: %w: page %d points back to page %d (%s): the cursor was seen twice",
				r.endpoint, raw.Request, ErrPageLoop, page, n, raw.Next)
		}
		rr := *r
		rr.url = u
		r = &rr
	}
}
