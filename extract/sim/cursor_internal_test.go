package sim

import (
	"net/url"
	"testing"
)

func TestCursorIsBoundToItsRequest(t *testing.T) {
	q := url.Values{"UNLocationCode": {"NLRTM"}, "date": {"2026-01-05"}, "limit": {"3"}}
	filter := filterOf(q)
	if filter != "UNLocationCode=NLRTM&date=2026-01-05" {
		t.Fatalf("filter %q: limit and cursor are not filters", filter)
	}
	c := encodeCursor("schedule_port", filter, pageCursor{offset: 3, at: 1767571200})
	if len(c) > 1024 {
		t.Fatalf("cursor of %d characters", len(c))
	}
	if got, ok := decodeCursor("schedule_port", filter, c); !ok || got != (pageCursor{offset: 3, at: 1767571200}) {
		t.Fatalf("round trip: %+v, %v", got, ok)
	}
	for name, bad := range map[string][3]string{
		"other filters":  {"schedule_port", "UNLocationCode=NLRTM&date=2026-01-06", c},
		"other endpoint": {"schedule_p2p", filter, c},
		"not base64":     {"schedule_port", filter, "***"},
		"not ours":       {"schedule_port", filter, "djEuMy4x"},
		"offset 0":       {"schedule_port", filter, encodeCursor("schedule_port", filter, pageCursor{offset: 0, at: 1})},
	} {
		if _, ok := decodeCursor(bad[0], bad[1], bad[2]); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}
