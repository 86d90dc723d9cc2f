package wire

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // a naive date-time is read in its place's zone on every host, with or without a zone database
)

// The service's contract writes every date-time in RFC 3339, in UTC
// (2026-03-01T06:00:00Z). Real providers also send them without an offset
// (2023-12-31T05:39:00), with a space for the T (2021-01-13 01:57:00), or
// both. The shipment decoder reads such a naive date-time in the time zone
// of the place it belongs to (Location.Timezone), or in UTC when that is
// not known, and says which zone it assumed.

// dateTime is a decoded date-time: the instant, or, when naive, its wall
// clock as if in UTC, to be read in a zone (see zone).
type dateTime struct {
	t     time.Time
	naive bool
}

// dateTimeWant says what a date-time member may hold.
const dateTimeWant = "want RFC 3339 (2026-03-01T06:00:00Z) or a date and time without an offset (2026-03-01T06:00:00, 2026-03-01 06:00:00)"

// naiveLayouts are the date-times without an offset read; a fraction of a
// second after the seconds is accepted by the first.
var naiveLayouts = []string{"2006-01-02T15:04:05", "2006-01-02T15:04"}

// offsetLayouts are the date-times with an offset read besides what
// time.Time's UnmarshalJSON reads.
var offsetLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700"}

// parseDateTime decodes a date-time member: nil for a missing or null
// member, or an empty or blank string. A string time.Time's UnmarshalJSON
// reads (RFC 3339) is read exactly as it reads it; else a space may stand
// for the T, the offset may lack its colon, and a date-time without an
// offset is naive.
func parseDateTime(raw json.RawMessage) (*dateTime, error) {
	if isAbsent(raw) {
		return nil, nil
	}
	var t time.Time
	if t.UnmarshalJSON(raw) == nil {
		return &dateTime{t: t}, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("a JSON %s where a date-time string is wanted", jsonKind(raw))
	}
	text := strings.TrimSpace(s)
	if text == "" {
		return nil, nil
	}
	if len(text) > 10 && text[10] == ' ' {
		text = text[:10] + "T" + strings.TrimLeft(text[11:], " ")
	}
	for _, layout := range offsetLayouts {
		if t, err := time.Parse(layout, text); err == nil {
			return &dateTime{t: t}, nil
		}
	}
	for _, layout := range naiveLayouts {
		if t, err := time.Parse(layout, text); err == nil {
			return &dateTime{t: t, naive: true}, nil
		}
	}
	return nil, fmt.Errorf("%q is not a date-time: %s", s, dateTimeWant)
}

// jsonKind names the JSON kind of a valid value.
func jsonKind(raw json.RawMessage) string {
	switch v := strings.TrimLeft(string(raw), " \t\r\n"); {
	case v == "":
		return "nothing"
	case v[0] == '"':
		return "string"
	case v[0] == '{':
		return "object"
	case v[0] == '[':
		return "array"
	case v[0] == 't' || v[0] == 'f':
		return "boolean"
	case v[0] == 'n':
		return "null"
	}
	return "number"
}

// UTCZone is the zone a naive date-time is read in when its place's zone
// is not known.
const UTCZone = "UTC"

// in returns the instant of d, read in the zone named tz when d is naive,
// and the zone it assumed: "" when d carried its offset, else tz when Go's
// zone database knows it, else UTCZone.
func (d *dateTime) in(tz string) (time.Time, string) {
	if !d.naive {
		return d.t, ""
	}
	loc, name := zone(tz)
	y, mo, day := d.t.Date()
	h, mi, sec := d.t.Clock()
	return time.Date(y, mo, day, h, mi, sec, d.t.Nanosecond(), loc).UTC(), name
}

// zones remembers the time zones loaded by name: time.LoadLocation reads
// and parses a file each time. It keeps at most zonesMax names, the
// unknown ones included.
var zones = struct {
	sync.Mutex
	m map[string]*time.Location
}{m: map[string]*time.Location{}}

const zonesMax = 2048

// zone returns the location of an IANA time-zone name and the name, or
// UTC and UTCZone when the name is empty or not a zone. "Local" names no
// zone: it would read the same body differently on another host.
func zone(name string) (*time.Location, string) {
	name = strings.TrimSpace(name)
	if name == "" || name == "Local" {
		return time.UTC, UTCZone
	}
	zones.Lock()
	loc, ok := zones.m[name]
	zones.Unlock()
	if !ok {
		loc, _ = time.LoadLocation(name) // nil when unknown
		zones.Lock()
		if len(zones.m) < zonesMax {
			zones.m[name] = loc
		}
		zones.Unlock()
	}
	if loc == nil {
		return time.UTC, UTCZone
	}
	return loc, name
}

// naiveDateTime is a date-time without an offset and where it goes.
type naiveDateTime struct {
	d     *dateTime
	place *Location // its place, nil for none
	set   func(t time.Time, zone string)
}

// naiveDates are the date-times without an offset of a body, held until
// every place of the body, and so the zone of each, is known.
type naiveDates []naiveDateTime

// read decodes a date-time member and hands its value to set: at once, or,
// when it is naive, once the zone of place is known (resolve). A member
// missing, null or blank is no date-time: set is not called.
func (n *naiveDates) read(raw json.RawMessage, place *Location, set func(time.Time, string)) error {
	dt, err := parseDateTime(raw)
	switch {
	case err != nil:
		return err
	case dt == nil:
	case dt.naive:
		*n = append(*n, naiveDateTime{d: dt, place: place, set: set})
	default:
		set(dt.t, "")
	}
	return nil
}

// resolve reads each naive date-time in the zone zoneOf names for its
// place (UTC for none, or a zone Go does not know).
func (n naiveDates) resolve(zoneOf func(*Location) string) {
	for _, x := range n {
		tz := ""
		if x.place != nil {
			tz = zoneOf(x.place)
		}
		x.set(x.d.in(tz))
	}
}

// placeZones are the time zones the places of a body name, by UN/LOCODE
// (in upper case): the first named for each.
type placeZones map[string]string

// note records the zone of place l, when it names both a UN/LOCODE and a
// zone.
func (z placeZones) note(l *Location) {
	if l == nil || l.Locode == "" || strings.TrimSpace(l.Timezone) == "" {
		return
	}
	code := strings.ToUpper(strings.TrimSpace(l.Locode))
	if _, ok := z[code]; !ok {
		z[code] = l.Timezone
	}
}

// of is the zone of place l: its own timezone, else the one another
// place of the body with the same UN/LOCODE names; "" when neither.
func (z placeZones) of(l *Location) string {
	if strings.TrimSpace(l.Timezone) != "" {
		return l.Timezone
	}
	return z[strings.ToUpper(strings.TrimSpace(l.Locode))]
}
