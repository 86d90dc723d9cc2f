package response

import (
	"time"

	"github.com/etalake/etalake/wire"
)

// Received is one HTTP response as the client received it, with what is
// needed to land it before anything decodes it: every attempt's, an
// error's and a broken one's alike. It never holds the API key: the
// client redacts it from the body, the request and the next page.
//
// Its fields are named as raw_responses' columns, and its JSON (a landing
// journal's record, with Landed's) is that of the raw response journals
// have held since they exist: a journal a job left before an upgrade is
// landed by the next.
type Received struct {
	Product  wire.Product
	Endpoint wire.Endpoint
	// Request is the path and query of the request (no scheme, host or
	// key), e.g. "/schedule/api/v1/schedule/NLRTM".
	Request string
	Status  int
	// FetchedAt is our clock when the body had been read.
	FetchedAt time.Time
	// DateHeader is the response's HTTP Date header; nil when absent or
	// unparsable.
	DateHeader *time.Time
	// Attempt counts from 1; a retried request yields one Received per
	// attempt.
	Attempt int
	// Body is the body; nil when File holds it: a body larger than a job
	// decodes (--max-body), never held whole in memory on its way.
	Body []byte
	File *BodyFile
	// NextPage is the path and query of the page after this one, when a
	// 2xx answer names one (Next-Page-Cursor, Link rel="next", or a next
	// link or cursor in the body); "" on the last page. A resource is
	// answered for a date once a page without one has landed.
	NextPage string
	// Broken, when set, says why a 2xx answer did not arrive whole: a
	// body shorter than its Content-Length, a connection broken in the
	// body, or JSON that does not parse. Body is what arrived. It is no
	// answer, and derives nothing but its dead letter.
	Broken string
	// PagingStop, when set, says why the walk through a paged answer
	// stopped at this page before its end (a loop, an empty page naming
	// a next one, the page limit): the page derives as any, and the
	// resource is not answered.
	PagingStop string
	// Retried says that another attempt follows this broken answer: only
	// the last attempt of an answer that stays broken is landed.
	Retried bool `json:"-"`
}

// DateOrFetched is when a fetched answer was true (its observed_at): the
// server's Date header when it sent one, else our clock at receipt.
func (r *Received) DateOrFetched() time.Time {
	if r.DateHeader != nil {
		return r.DateHeader.UTC()
	}
	return r.FetchedAt.UTC()
}

// BodySize is the size of the body, in Body or in File.
func (r *Received) BodySize() int64 {
	if r.File != nil {
		return r.File.Size
	}
	return int64(len(r.Body))
}

// OK reports whether the status is 2xx.
func (r *Received) OK() bool { return r.Status >= 200 && r.Status <= 299 }

// BodyFile is a body kept in a file instead of in Received.Body: one
// larger than a job decodes, which the client writes as it arrives —
// redacted of the key, and synced — to the job's landing directory, the
// landing journal takes in with a rename, and the raw landing keeps
// compressed in its body store.
type BodyFile struct {
	// Path names the file; in a journal record, its name in the landing
	// directory.
	Path string
	// Size and SHA256 (hex) are of the body as landed, uncompressed.
	Size   int64
	SHA256 string
	// ID is the response's id, computed from the file (load.HashBodyFile)
	// once: hashing a body of hundreds of megabytes is done once.
	ID string `json:",omitempty"`
	// Compressed is set on the raw landing's own copy (read back by
	// load): the body zstd-compressed in the body store.
	Compressed bool `json:",omitempty"`
}

// Sources of a landed response.
const (
	SourceFetch  = "fetch"  // fetched by a job from the service
	SourceImport = "import" // imported from files
	// SourcePush: pushed by the vendor (a webhook), landed by `etalake
	// webhook serve` in its journal: no credit, and never an answer for
	// a logical date.
	SourcePush = "push"
)

// Landed is a response as the raw landing keeps it (a raw_responses
// row): what was received, and where it came from — the run that landed
// it, the resource it is about, its source, the logical date it answers
// — when it was true, and its content-derived id.
type Landed struct {
	Received
	// ID is the response's response_id (load.ResponseID): the landing
	// sets it when it lands or reads a response; "" before.
	ID       string `json:"-"`
	RunID    string // the run that landed it
	Resource string // what it is about, e.g. port:NLRTM: how jobs find what was landed
	Source   string // SourceFetch, SourceImport or SourcePush
	// ObservedAt is when the answer was true: a fetch's DateOrFetched, an
	// import's --observed-at or file time, a push's timestamp. It is
	// stored to the microsecond.
	ObservedAt time.Time
	// LogicalDate is the date the run is for (its calendar date is kept,
	// in its own location); nil for imports and pushes.
	LogicalDate *time.Time
}
