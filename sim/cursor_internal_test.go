package sim

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
)

func TestCursorIsBoundToItsRequest(t *testing.T) {
	q := url.Values{"UNLocationCode": {"NLRTM"}, "date": {"2026-01-05"}, "limit": {"3"}}
	filter := filterOf(q)
	if filter != "UNLocationCode=NLRTM&date=2026-01-05" {
		t.Fatalf("filter %q: limit and cursor are not filters", filter)
	}
	want := pageCursor{offset: 3, at: 1767571200, limit: 3, filter: filter}
	c := encodeCursor("schedule_port", want)
	if len(c) > cursorMaxLen {
		t.Fatalf("cursor of %d characters", len(c))
	}
	if got, ok := decodeCursor("schedule_port", c); !ok || got != want {
		t.Fatalf("round trip: %+v, %v", got, ok)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(c)
	altered := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), "2026-01-05", "2026-01-06", 1)))
	for name, bad := range map[string][2]string{
		"other filters":  {"schedule_port", altered},
		"other endpoint": {"schedule_p2p", c},
		"not base64":     {"schedule_port", "***"},
		"not ours":       {"schedule_port", "djEuMy4x"},
		"offset 0":       {"schedule_port", encodeCursor("schedule_port", pageCursor{offset: 0, at: 1, limit: 1})},
		"too long":       {"schedule_port", encodeCursor("schedule_port", pageCursor{offset: 1, at: 1, limit: 1, filter: strings.Repeat("x", cursorMaxLen)})},
	} {
		if _, ok := decodeCursor(bad[0], bad[1]); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}
