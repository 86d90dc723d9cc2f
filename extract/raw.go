package extract

import (
	"time"

	"github.com/etalake/etalake/wire"
)

// Raw is one HTTP response as it arrived, with what is needed to land it
// before any parsing. It never holds the API key.
type Raw struct {
	Product  wire.Product
	Endpoint wire.Endpoint
	// Request is the path and query of the request (no scheme, host or key),
	// e.g. "/schedule/api/v1/schedule/NLRTM".
	Request string
	Status  int
	// Date is the response's HTTP Date header; zero when absent or unparsable.
	Date time.Time
	// ReceivedAt is our clock when the body had been read.
	ReceivedAt time.Time
	// Body is the body, nil when it is in BodyFile: a body larger than
	// Config.MaxDecode, kept in a file as it arrived (Config.SpillDir).
	Body     []byte
	BodyFile *BodyFile
	// Attempt counts from 1; a retried request yields one Raw per attempt.
	Attempt int
	// Next is the path and query of the page after this one, when a 2xx
	// answer names one (Next-Page-Cursor, Link rel="next", or a next link
	// or cursor in the body); "" on the last page.
	Next string
	// Broken, when set, says why a 2xx answer did not arrive whole: a
	// body shorter than its Content-Length, a connection broken in the
	// body, or JSON that does not parse. Body is what arrived. Such an
	// answer is retried like a failure (its credit counted as possibly
	// charged); Retried says whether another attempt follows this one.
	Broken  string
	Retried bool
	// PagingStop, when set, says why the walk through a paged answer
	// stopped at this page (a *PagingError's reason and detail): the
	// resource is not answered, whatever Next says.
	PagingStop string
	// next is the page Next names when the walk goes on to it.
	next *pageRef
}

// ObservedAt is when the answer was true: the server's Date header when it
// sent one, else our clock at receipt.
func (r *Raw) ObservedAt() time.Time {
	if !r.Date.IsZero() {
		return r.Date.UTC()
	}
	return r.ReceivedAt.UTC()
}

// BodySize is the size of the body, in Body or in BodyFile.
func (r *Raw) BodySize() int64 {
	if r.BodyFile != nil {
		return r.BodyFile.Size
	}
	return int64(len(r.Body))
}
