package wire

//go:generate go run gen_countryzones.go -dir /usr/share/zoneinfo -since 2000 -prefer CN=Asia/Shanghai -out countryzones_gen.go

// A DCSA location names no time zone, and a service-profile location may
// leave its timezone out. A naive date-time of a schedule is then read in
// the zone of the port's country, when the country has one: the tz
// database's zone1970.tab lists exactly one zone for it (the Netherlands,
// Singapore), or several that have kept the same time since 2000 (Germany,
// Vietnam, Malaysia), or, for China, Asia/Shanghai: Beijing time is the
// legal time of the whole country, tzdb's Asia/Urumqi the local time of
// inland Xinjiang. A country with zones that differ (the United States,
// Canada, Brazil, Russia, Australia, Mexico, Indonesia, Spain with the
// Canaries, Portugal with the Azores) has none: its naive date-times are
// read in UTC, and flagged so. The table is generated
// (countryzones_gen.go, by the go:generate line above from the host's tz
// database), so that reading a body needs no file.

// countryZone is the IANA time zone of the ports of the country of a
// UN/LOCODE (its first two letters, in any case), "" when the country has
// none or the code names no country.
func countryZone(locode string) string {
	if len(locode) < 2 {
		return ""
	}
	c := [2]byte{locode[0], locode[1]}
	for i, b := range c {
		if b >= 'a' && b <= 'z' {
			c[i] = b - ('a' - 'A')
		}
	}
	return countryZones[string(c[:])]
}
