package extract

import (
	"context"
	"errors"
	"iter"
	"os"
	"time"

	"github.com/etalake/etalake/response"
)

// Responses is what a call of the client yields: every response it
// receives, the moment it has read it, in order — each attempt's (the
// retried ones, the broken ones, the error responses) and each page's —
// with a nil error; then, when the call fails, a nil response and the
// error, last. A call refused before any request (an invalid value, a
// product without a URL) yields its error alone.
//
// The client goes on — to a retry, to the next page, to decoding the one
// answer it decodes itself (a current period, for its budget) — only when
// the consumer asks for the next response: a job that lands each
// response in the body of its loop has it on disk before anything decodes
// it. Stopping early (a break) ends the call where it is, nothing more
// sent. A response's File is the consumer's to move away while it holds
// it; what is left there when the loop goes on is removed. Ranging over a
// sequence again makes the call again.
//
// A pull, not a callback: the consumer's loop reads as what it does with
// each response (land it, count it, stop), the client's retries and
// paging walk read as loops that hand each response over where the
// response arrives, and stopping needs no error threaded back through
// the client.
type Responses = iter.Seq2[*response.Received, error]

// errStopped ends a call whose consumer stopped ranging: nothing more is
// sent, and nothing more is yielded.
var errStopped = errors.New("the consumer stopped")

// hand gives a response over to the consumer.
type hand func(*rawResponse) bool

// responses is the sequence of the responses of the call that run makes
// for r, or of err alone when the call was refused before it began.
func (c *Client) responses(ctx context.Context, r *request, err error, run func(context.Context, *request, hand) error) Responses {
	return func(yield func(*response.Received, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		stopped := false
		give := func(raw *rawResponse) bool {
			defer raw.removeFile()
			rec := raw.Received
			if rec.File != nil {
				f := *rec.File // the consumer's: it may move the file and say where
				rec.File = &f
			}
			if !yield(&rec, nil) {
				stopped = true
			}
			return !stopped
		}
		if cerr := run(ctx, r, give); cerr != nil && !stopped {
			yield(nil, c.cfg.Key.scrub(cerr))
		}
	}
}

// rawResponse is a received response plus what only the client needs of
// it: the retry loop, the paging walk.
type rawResponse struct {
	response.Received
	retryIn     time.Duration
	nextErr     error    // the next page this answer names is not followed
	next        *pageRef // the page NextPage names when the walk goes on to it
	contentType string
	html        bool // a web page (Content-Type text/html)
	// said is what the provider said in an error sent with a success
	// status (errorInAnswer); final, that a broken answer is not asked
	// again (a coding or charset the client cannot decode).
	said  string
	final bool
}

// removeFile deletes the body file of r if it is still there (the
// consumer did not take it). A failure leaves it to the spill directory's
// owner, which sweeps it (load does, for the landing, at Open).
func (r *rawResponse) removeFile() {
	if r != nil && r.File != nil {
		_ = os.Remove(r.File.Path)
	}
}
