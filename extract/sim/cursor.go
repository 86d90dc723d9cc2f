package sim

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// pageCursor is where the next page of a DCSA answer starts: the offset
// in the root array and the virtual time (Unix seconds) of the first page.
// Every page of a walk is answered as of that time, so that the pages
// split one answer even while the clock runs: nothing repeated, nothing
// missed.
type pageCursor struct {
	offset int
	at     int64
}

// The cursor is opaque to clients: base64url of "v1.OFFSET.AT.CHECK", the
// check a hash of the endpoint, the filters (every query parameter but
// cursor and limit, as sent) and the two numbers. A cursor sent with other
// filters, to another endpoint, or altered fails the check.
const cursorVersion = "v1"

func encodeCursor(endpoint, filter string, c pageCursor) string {
	raw := fmt.Sprintf("%s.%d.%d.%016x", cursorVersion, c.offset, c.at, cursorCheck(endpoint, filter, c))
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeCursor reads a cursor of this endpoint and filters; false when it
// is malformed or was issued for another request.
func decodeCursor(endpoint, filter, s string) (pageCursor, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 1024 {
		return pageCursor{}, false
	}
	parts := strings.Split(string(raw), ".")
	if len(parts) != 4 || parts[0] != cursorVersion {
		return pageCursor{}, false
	}
	off, err1 := strconv.Atoi(parts[1])
	at, err2 := strconv.ParseInt(parts[2], 10, 64)
	check, err3 := strconv.ParseUint(parts[3], 16, 64)
	if err1 != nil || err2 != nil || err3 != nil || off < 1 {
		return pageCursor{}, false
	}
	c := pageCursor{offset: off, at: at}
	if check != cursorCheck(endpoint, filter, c) {
		return pageCursor{}, false
	}
	return c, true
}

func cursorCheck(endpoint, filter string, c pageCursor) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\n%s\n%d\n%d", endpoint, filter, c.offset, c.at)
	return h.Sum64()
}

// filterOf is the canonical form of a request's filters: every parameter
// but cursor and limit (the standard lets the page size change between
// pages, not the filters), sorted by name.
func filterOf(q url.Values) string {
	f := url.Values{}
	for k, v := range q {
		if k != "cursor" && k != "limit" {
			f[k] = v
		}
	}
	return f.Encode()
}

// page cuts items[off:] to at most size items and returns the cursor of
// the rest, if any.
func page(items []any, off, size int, endpoint, filter string, at time.Time) (out []any, next string) {
	end := min(off+size, len(items))
	if end < len(items) {
		next = encodeCursor(endpoint, filter, pageCursor{offset: end, at: at.Unix()})
	}
	return items[off:end], next
}
