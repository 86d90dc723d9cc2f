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
// in the root array, the virtual time (Unix seconds) of the first page,
// the page size and the first request's filters. Every page of a walk is
// answered as of that time, so that the pages split one answer even while
// the clock runs: nothing repeated, nothing missed. The filters and the
// page size travel in the cursor because a consumer of CS 1.0.0 and 1.0.1
// sends the cursor alone.
type pageCursor struct {
	offset int
	at     int64
	limit  int
	filter string // the first request's filters, as filterOf gives them
}

// The cursor is opaque to clients: base64url of
// "v2|OFFSET|AT|LIMIT|CHECK|FILTER", the check a hash of the endpoint and
// the rest. An altered cursor, or one sent to another endpoint, fails the
// check. The standard bounds it to 1024 characters (the Next-Page-Cursor
// header's maxLength).
const (
	cursorVersion = "v2"
	cursorMaxLen  = 1024
)

func encodeCursor(endpoint string, c pageCursor) string {
	raw := fmt.Sprintf("%s|%d|%d|%d|%016x|%s", cursorVersion, c.offset, c.at, c.limit, cursorCheck(endpoint, c), c.filter)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// decodeCursor reads a cursor this service issued for endpoint; false when
// it is malformed, altered or another endpoint's.
func decodeCursor(endpoint, s string) (pageCursor, bool) {
	if len(s) > cursorMaxLen {
		return pageCursor{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return pageCursor{}, false
	}
	parts := strings.SplitN(string(raw), "|", 6)
	if len(parts) != 6 || parts[0] != cursorVersion {
		return pageCursor{}, false
	}
	off, err1 := strconv.Atoi(parts[1])
	at, err2 := strconv.ParseInt(parts[2], 10, 64)
	limit, err3 := strconv.Atoi(parts[3])
	check, err4 := strconv.ParseUint(parts[4], 16, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || off < 1 || limit < 1 {
		return pageCursor{}, false
	}
	c := pageCursor{offset: off, at: at, limit: limit, filter: parts[5]}
	if check != cursorCheck(endpoint, c) {
		return pageCursor{}, false
	}
	return c, true
}

func cursorCheck(endpoint string, c pageCursor) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\n%s\n%d\n%d\n%d", endpoint, c.filter, c.offset, c.at, c.limit)
	return h.Sum64()
}

// filterOf is the canonical form of a request's filters: every parameter
// but cursor and limit, sorted by name.
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
// the rest, if any: limit and filter are the walk's (the first request's).
func page(items []any, off, size, limit int, endpoint, filter string, at time.Time) (out []any, next string) {
	end := min(off+size, len(items))
	if end < len(items) {
		next = encodeCursor(endpoint, pageCursor{offset: end, at: at.Unix(), limit: limit, filter: filter})
	}
	return items[off:end], next
}
