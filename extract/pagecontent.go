package extract

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sort"
)

// PagingRepeat: a page's items are those of a page already asked in the
// same walk, under another cursor or link. A provider that serves the
// same items under fresh cursors would otherwise be bought up to
// Config.MaxPages; a cursor seen twice (PagingLoop) does not catch it.
const PagingRepeat = "repeated page"

// pageContent is a digest of what a page's body holds, apart from how it
// names the next page: an array (a DCSA answer) whole; an object by its
// lists (the service profile's vesselSchedules, routes, transportCalls),
// or, when it has none, by every member but those that page (a cursor or
// link in the body differs from page to page even when the items do
// not). "" when the body is not JSON, or not at hand (a body in a file).
func pageContent(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	sum := sha256.New()
	if body[0] == '[' {
		var buf bytes.Buffer
		if json.Compact(&buf, body) != nil {
			return ""
		}
		sum.Write(buf.Bytes())
		return string(sum.Sum(nil))
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return ""
	}
	names := make([]string, 0, len(members))
	for name, raw := range members {
		if v := bytes.TrimSpace(raw); len(v) > 0 && v[0] == '[' {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		for name := range members {
			if !pagingMembers[name] {
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	for _, name := range names {
		var buf bytes.Buffer
		_ = json.Compact(&buf, members[name])
		sum.Write([]byte(name))
		sum.Write([]byte{0})
		sum.Write(buf.Bytes())
		sum.Write([]byte{0})
	}
	return string(sum.Sum(nil))
}

// pagingMembers are the top-level members a body may page by (see
// wire.NextInBody), left out of its content.
var pagingMembers = map[string]bool{
	"next": true, "nextPage": true, "nextPageUrl": true, "next_page_url": true, "links": true, "_links": true,
	"pagination": true, "nextCursor": true, "next_cursor": true, "nextPageCursor": true, "meta": true, "cursor": true,
}
