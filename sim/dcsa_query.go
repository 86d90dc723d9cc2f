package sim

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/etalake/etalake/wire"
)

// The DCSA profile's request checks, written from the OpenAPI of DCSA
// Commercial Schedules 1.0.3 (the parameters' patterns, formats, enums and
// required flags), not borrowed from the client.

// csQuery is a DCSA schedule request understood.
type csQuery struct {
	// port schedules
	port string
	date time.Time
	// vessel schedules
	vessel csVesselQuery
	// point-to-point
	pol, pod         string
	p2p              P2PQuery
	arrFrom, arrTo   time.Time // planned arrival window, inclusive; zero: open
	limit            int
	cursor           *pageCursor // nil on a first page
	endpoint, filter string      // what the cursor is bound to
}

// csVesselQuery are the filters of /v1/vessel-schedules; empty ones do
// not filter. Dates are inclusive, compared with the UTC date of a call's
// arrival timestamps; zero means the standard's default (3 months before,
// 6 months after the request time).
type csVesselQuery struct {
	imo, vesselName, serviceCode, voyage, locode, smdg, operator string
	universalService, universalVoyage                            string
	startDate, endDate                                           time.Time
	matchedCalls                                                 bool // responseScope=MATCHED_CALLS
}

// csVesselFilters are the filters of which vessel-schedules needs at least
// one (startDate and endDate only narrow another).
var csVesselFilters = []string{"vesselIMONumber", "vesselName", "carrierServiceCode", "universalServiceReference",
	"carrierVoyageNumber", "universalVoyageReference", "UNLocationCode", "facilitySMDGCode", "vesselOperatorCarrierCode"}

// parseCSQuery checks a DCSA request's parameters; a failure is a free 400
// naming the property and the value. A next page is asked as the
// version's text says (cursorRule).
func parseCSQuery(e wire.Endpoint, q url.Values, h http.Header, version string) (*csQuery, *apiFault) {
	if v, ok := h["Api-Version"]; ok && (len(v) != 1 || v[0] != "1") {
		return nil, badRequest("API-Version", v[0], "must be the major version 1, if sent")
	}
	cq := &csQuery{endpoint: string(e), limit: DCSADefaultLimit}
	var walk *pageCursor
	if v, ok := q["cursor"]; ok {
		c, ok := decodeCursor(cq.endpoint, v[0])
		if !ok {
			return nil, badRequest("cursor", v[0], "is not a cursor this service issued for this operation: send the Next-Page-Cursor value unchanged")
		}
		if cursorAlone(version) {
			// CS 1.0.0, 1.0.1: "with only ?cursor=… as query parameter
			// … should return a 400 error if any other query parameter
			// is passed along with the cursor".
			for _, name := range slices.Sorted(maps.Keys(q)) {
				if name != "cursor" {
					return nil, badRequest(name, q.Get(name), "must not be sent with cursor: a next page is asked with ?cursor=… alone (DCSA Commercial Schedules "+version+")")
				}
			}
			q, _ = url.ParseQuery(c.filter) // encoded by filterOf: parses
			q.Set("limit", strconv.Itoa(c.limit))
		} else if f := filterOf(q); f != c.filter {
			// CS 1.0.2, 1.0.3: "along with the limit of items per page
			// and any other query parameters used in the original
			// request. Filter parameters may not be altered and MUST be
			// preserved".
			return nil, badRequest("cursor", v[0], "was issued for other filters: ask the next page with the Next-Page-Cursor value and every filter of the first request unchanged (DCSA Commercial Schedules "+version+")")
		} else if !q.Has("limit") {
			q.Set("limit", strconv.Itoa(c.limit))
		}
		walk = &c
	}
	var bad *apiFault
	switch e {
	case wire.EndpointPortSchedule:
		bad = cq.parsePort(q)
	case wire.EndpointVesselSchedule:
		bad = cq.parseVessel(q)
	default:
		bad = cq.parseP2P(q)
	}
	if bad != nil {
		return nil, bad
	}
	if v, ok := q["limit"]; ok {
		n, err := strconv.ParseInt(v[0], 10, 32)
		if err != nil || n < 1 {
			return nil, badRequest("limit", v[0], "must be an integer of at least 1")
		}
		cq.limit = int(n)
	}
	cq.filter = filterOf(q)
	cq.cursor = walk
	return cq, nil
}

// cursorAlone reports whether a DCSA version's consumer asks a next page
// with the cursor alone: the text of CS 1.0.0 and 1.0.1 (see
// DCSAVersions).
func cursorAlone(version string) bool { return version == "1.0.0" || version == "1.0.1" }

func (cq *csQuery) parsePort(q url.Values) *apiFault {
	var bad *apiFault
	if cq.port, bad = unLocationParam(q, "UNLocationCode", true); bad != nil {
		return bad
	}
	cq.date, bad = dateParam(q, "date", true)
	return bad
}

func (cq *csQuery) parseVessel(q url.Values) *apiFault {
	v := &cq.vessel
	filtered := false
	for _, name := range csVesselFilters {
		if _, ok := q[name]; ok {
			filtered = true
		}
	}
	if !filtered {
		return badRequest("vesselIMONumber", "", "or another filter (vesselName, carrierServiceCode, carrierVoyageNumber, UNLocationCode, vesselOperatorCarrierCode…) is required")
	}
	text := []struct {
		name   string
		dst    *string
		maxLen int
		ok     func(string) bool
		want   string
	}{
		{"vesselIMONumber", &v.imo, 8, imoString, "must be 7 or 8 digits"},
		{"vesselName", &v.vesselName, 50, trimmed, "must be 1 to 50 characters without leading or trailing space"},
		{"carrierServiceCode", &v.serviceCode, 11, nil, "must be at most 11 characters"},
		{"universalServiceReference", &v.universalService, 8, universalServiceRef, "must be SR, 5 digits and a capital letter"},
		{"carrierVoyageNumber", &v.voyage, 50, nil, "must be at most 50 characters"},
		{"universalVoyageReference", &v.universalVoyage, 5, universalVoyageRef, "must be 2 digits, 2 digits or capitals, and N, E, W, S or R"},
		{"facilitySMDGCode", &v.smdg, 6, nil, "must be at most 6 characters"},
		{"vesselOperatorCarrierCode", &v.operator, 10, nil, "must be at most 10 characters"},
	}
	for _, p := range text {
		s, ok := q[p.name]
		if !ok {
			continue
		}
		if len([]rune(s[0])) > p.maxLen || (p.ok != nil && !p.ok(s[0])) {
			return badRequest(p.name, s[0], p.want)
		}
		*p.dst = s[0]
	}
	var bad *apiFault
	if v.locode, bad = unLocationParam(q, "UNLocationCode", false); bad != nil {
		return bad
	}
	if v.startDate, bad = dateParam(q, "startDate", false); bad != nil {
		return bad
	}
	if v.endDate, bad = dateParam(q, "endDate", false); bad != nil {
		return bad
	}
	if s, ok := q["responseScope"]; ok {
		switch s[0] {
		case "FULL_VOYAGE":
		case "MATCHED_CALLS":
			v.matchedCalls = true
		default:
			return badRequest("responseScope", s[0], "must be FULL_VOYAGE or MATCHED_CALLS")
		}
	}
	return nil
}

func (cq *csQuery) parseP2P(q url.Values) *apiFault {
	var bad *apiFault
	if cq.pol, bad = unLocationParam(q, "placeOfReceipt", true); bad != nil {
		return bad
	}
	if cq.pod, bad = unLocationParam(q, "placeOfDelivery", true); bad != nil {
		return bad
	}
	cq.p2p.MaxTranshipment = -1
	dates := []struct {
		name string
		dst  *time.Time
		end  bool
	}{
		{"departureStartDate", &cq.p2p.DepartureStart, false}, {"departureEndDate", &cq.p2p.DepartureEnd, true},
		{"arrivalStartDate", &cq.arrFrom, false}, {"arrivalEndDate", &cq.arrTo, true},
	}
	for _, d := range dates {
		t, bad := dateParam(q, d.name, false)
		if bad != nil {
			return bad
		}
		if d.end && !t.IsZero() {
			t = t.Add(24*time.Hour - time.Second) // inclusive of the whole day
		}
		*d.dst = t
	}
	if s, ok := q["maxTranshipment"]; ok {
		n, err := strconv.ParseInt(s[0], 10, 32)
		if err != nil || n < 0 {
			return badRequest("maxTranshipment", s[0], "must be an integer of at least 0")
		}
		cq.p2p.MaxTranshipment = int(n)
	}
	for _, name := range []string{"receiptTypeAtOrigin", "deliveryTypeAtDestination"} {
		if s, ok := q[name]; ok && s[0] != "CY" && s[0] != "SD" && s[0] != "CFS" {
			return badRequest(name, s[0], "must be CY, SD or CFS")
		}
	}
	return nil
}

// unLocationParam reads a UN/LOCODE parameter: ^[A-Z]{2}[A-Z2-9]{3}$.
func unLocationParam(q url.Values, name string, required bool) (string, *apiFault) {
	s, ok := q[name]
	if !ok || s[0] == "" {
		if required {
			return "", badRequest(name, "", "is required")
		}
		return "", nil
	}
	if !unLocationCode(s[0]) {
		return "", badRequest(name, s[0], "must be a UN/LOCODE: 2 capital letters, then 3 capital letters or digits 2 to 9")
	}
	return s[0], nil
}

func unLocationCode(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < 5; i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z') && (i < 2 || c < '2' || c > '9') {
			return false
		}
	}
	return true
}

// dateParam reads a date parameter (RFC 3339 full-date, YYYY-MM-DD) as
// midnight UTC; zero when absent and not required.
func dateParam(q url.Values, name string, required bool) (time.Time, *apiFault) {
	s, ok := q[name]
	if !ok || s[0] == "" {
		if required {
			return time.Time{}, badRequest(name, "", "is required")
		}
		return time.Time{}, nil
	}
	t, err := time.Parse(time.DateOnly, s[0])
	if err != nil || len(s[0]) != len(time.DateOnly) {
		return time.Time{}, badRequest(name, s[0], "must be a date YYYY-MM-DD")
	}
	return t, nil
}

// imoString checks ^\d{7,8}$, the pattern of vesselIMONumber. The
// standard asks no check digit: a number no ship has is not found.
func imoString(s string) bool {
	if len(s) != 7 && len(s) != 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// trimmed checks ^\S(?:.*\S)?$ for ASCII white space.
func trimmed(s string) bool {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	return s != "" && !space(s[0]) && !space(s[len(s)-1])
}

// universalServiceRef checks ^SR\d{5}[A-Z]$.
func universalServiceRef(s string) bool {
	if len(s) != 8 || s[:2] != "SR" || s[7] < 'A' || s[7] > 'Z' {
		return false
	}
	for i := 2; i < 7; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// universalVoyageRef checks ^\d{2}[0-9A-Z]{2}[NEWSR]$.
func universalVoyageRef(s string) bool {
	if len(s) != 5 {
		return false
	}
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	upper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	switch s[4] {
	case 'N', 'E', 'W', 'S', 'R':
	default:
		return false
	}
	return digit(s[0]) && digit(s[1]) && (digit(s[2]) || upper(s[2])) && (digit(s[3]) || upper(s[3]))
}
