package transform

import (
	"strings"

	"github.com/etalake/etalake/wire"
)

// The dimension tables (locations, facilities, vessels) are fed from every
// Location, Facility and Vessel object of every endpoint; each returns the
// key the facts refer to it by.

// location buffers a locations row and returns its locode, in upper case;
// a location without a locode names no row and returns "".
func (b *Batch) location(a *add, l *wire.Location) string {
	if l == nil || l.Locode == "" {
		return ""
	}
	if l == a.lastLocation {
		return a.lastLocode
	}
	s := b.keep(a)
	locode := upperCode(l.Locode)
	if locode == "" {
		return ""
	}
	row := locationRow{
		seen:        seenAt(a.obs, a.r.ID),
		locode:      s.code(l.Locode, locode),
		name:        s.of(l.Name),
		state:       s.of(deref(l.State)),
		country:     s.of(l.Country),
		countryCode: s.code(l.CountryCode, upperCode(l.CountryCode)),
		timezone:    s.of(l.Timezone),
	}
	if c := l.Coordinates; c != nil {
		row.lat, row.lng = floatOf(c.Lat), floatOf(c.Lng)
	}
	put(a, b.locations, row.locode, row)
	a.lastLocation, a.lastLocode = l, row.locode
	return row.locode
}

// facility buffers a facilities row and returns its key; a facility
// without a name or a code names no row and returns "".
func (b *Batch) facility(a *add, f *wire.Facility) string {
	if f != nil && f == a.lastFacility {
		return a.lastFacKey
	}
	key := facilityKey(f)
	if key == "" {
		return ""
	}
	s := b.keep(a)
	row := facilityRow{
		seen:        seenAt(a.obs, a.r.ID),
		key:         s.of(key),
		name:        s.of(f.Name),
		countryCode: s.code(f.CountryCode, upperCode(f.CountryCode)),
		locode:      s.code(deref(f.Locode), upperCode(deref(f.Locode))),
		bic:         s.code(deref(f.BICCode), upperCode(deref(f.BICCode))),
		smdg:        s.code(deref(f.SMDGCode), upperCode(deref(f.SMDGCode))),
	}
	if c := f.Coordinates; c != nil {
		row.lat, row.lng = floatOf(c.Lat), floatOf(c.Lng)
	}
	put(a, b.facilities, row.key, row)
	a.lastFacility, a.lastFacKey = f, row.key
	return row.key
}

// facilityKey is the facilities key of f, the one every table refers to a
// facility by: LOCODE:SMDG when the facility has a locode and an SMDG code;
// else PLACE:BIC when it has a BIC code, PLACE being its locode or, without
// one, its country code; else PLACE:NAME with the name upper-cased and its
// white space collapsed to single spaces. The locode and the codes are
// trimmed and in upper case. A facility with none of these (or nil) has no
// key: "".
func facilityKey(f *wire.Facility) string {
	if f == nil {
		return ""
	}
	locode, smdg, bic := upperCode(deref(f.Locode)), upperCode(deref(f.SMDGCode)), upperCode(deref(f.BICCode))
	place := locode
	if place == "" {
		place = upperCode(f.CountryCode)
	}
	switch {
	case locode != "" && smdg != "":
		return locode + ":" + smdg
	case bic != "":
		return place + ":" + bic
	}
	if name := normalName(f.Name); name != "" {
		return place + ":" + name
	}
	if smdg != "" {
		return place + ":" + smdg
	}
	return ""
}

// normalName upper-cases a name and collapses its white space.
func normalName(s string) string {
	simple := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c >= 'a' && c <= 'z' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
			c == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' ') {
			simple = false
			break
		}
	}
	if simple {
		return s
	}
	return strings.Join(strings.Fields(strings.ToUpper(s)), " ")
}

// vessel buffers a vessels row and returns its IMO number; a vessel without
// a positive IMO number names no row and returns 0.
func (b *Batch) vessel(a *add, v *wire.Vessel) int64 {
	imo := vesselIMO(v)
	if imo == 0 || v == a.lastVessel {
		return imo
	}
	s := b.keep(a)
	row := vesselRow{
		seen:     seenAt(a.obs, a.r.ID),
		imo:      imo,
		name:     s.of(v.Name),
		callSign: s.of(deref(v.CallSign)),
		mmsi:     intOf(v.MMSI),
		flag:     s.of(deref(v.Flag)),
	}
	put(a, b.vessels, imo, row)
	a.lastVessel = v
	return imo
}

// vesselIMO is v's IMO number when it is positive, else 0.
func vesselIMO(v *wire.Vessel) int64 {
	if v == nil || v.IMO == nil || *v.IMO <= 0 {
		return 0
	}
	return int64(*v.IMO)
}
