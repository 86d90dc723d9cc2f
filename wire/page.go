package wire

import (
	"encoding/json"
	"strings"
)

// The members a paged answer's body may name its next page by, as the
// common conventions have it, in the order they are looked for: a link
// (absolute or relative URL) or a cursor to send back as the cursor
// parameter. A member that is absent, null or empty names none.
var (
	bodyNextLinks   = [][]string{{"next"}, {"nextPage"}, {"nextPageUrl"}, {"next_page_url"}, {"links", "next"}, {"links", "next", "href"}, {"_links", "next", "href"}, {"pagination", "next"}}
	bodyNextCursors = [][]string{{"nextCursor"}, {"next_cursor"}, {"nextPageCursor"}, {"pagination", "nextCursor"}, {"pagination", "next_cursor"}, {"meta", "nextCursor"}, {"meta", "next_cursor"}, {"cursor", "next"}}
)

// NextInBody finds the next page a paged answer's body names: a link, or
// a cursor. Both are "" when the body is not an object or names no next
// page.
func NextInBody(body []byte) (link, cursor string) {
	var top map[string]json.RawMessage
	if IsArray(body) || json.Unmarshal(body, &top) != nil {
		return "", ""
	}
	for _, path := range bodyNextLinks {
		if s := stringAt(top, path); s != "" {
			return s, ""
		}
	}
	for _, path := range bodyNextCursors {
		if s := stringAt(top, path); s != "" {
			return "", s
		}
	}
	return "", ""
}

// stringAt is the string at a member path of an object; "" when any step
// is missing or not of the right kind.
func stringAt(obj map[string]json.RawMessage, path []string) string {
	for i, name := range path {
		raw, ok := obj[name]
		if !ok {
			return ""
		}
		if i == len(path)-1 {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return ""
			}
			return strings.TrimSpace(s)
		}
		obj = nil
		if json.Unmarshal(raw, &obj) != nil || obj == nil {
			return ""
		}
	}
	return ""
}

// EmptyPage reports whether a paged answer's body holds no items: an
// empty JSON array (a DCSA answer), or an object whose every array
// member is empty (a service-profile page: vesselSchedules, routes or
// transportCalls, and nothing else listed). A body that is neither, or
// an object with no array member, is not empty.
func EmptyPage(body []byte) bool {
	if IsArray(body) {
		var items []json.RawMessage
		return json.Unmarshal(body, &items) == nil && len(items) == 0
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return false
	}
	lists := 0
	for _, raw := range top {
		if !IsArray(raw) {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || len(items) > 0 {
			return false
		}
		lists++
	}
	return lists > 0
}
