package sim_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// The DCSA operations, as the OpenAPI names them.
const (
	portsOp   = "/v1/port-schedules"
	vesselsOp = "/v1/vessel-schedules"
	p2pOp     = "/v1/point-to-point-routes"
)

// dcsaEnv starts the simulator in the DCSA profile, with a rate no test
// reaches unless it sets one.
func dcsaEnv(t *testing.T, opt simtest.Options) *simtest.Env {
	t.Helper()
	opt.ScheduleAPI = sim.ScheduleAPIDCSA
	if opt.Rate == (sim.Rate{}) {
		opt.Rate = sim.Rate{N: 1_000_000, Window: time.Second}
	}
	return simtest.Start(t, opt)
}

// checkDCSA asserts that an answer to operation op, requested as uri,
// conforms to the OpenAPI: the body's schema for its status, strictly
// (no member the standard does not name), the API-Version header, a
// Next-Page-Cursor of at most 1024 characters, and for an error a
// statusCode and requestUri that tell the truth.
func checkDCSA(t *testing.T, o *openAPI, op, uri string, a answer) any {
	t.Helper()
	if v := a.header.Get("API-Version"); !slices.Contains(sim.DCSAVersions, v) {
		t.Errorf("%s: API-Version %q, want one of %s", uri, v, sim.DCSAVersions)
	}
	var v any
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("%s: %d body does not decode: %v: %.300s", uri, a.status, err, a.body)
	}
	for _, p := range o.check("$", v, o.responseSchema(op, a.status), true) {
		t.Errorf("%s: %d answer: %s", uri, a.status, p)
	}
	if c := a.header.Get("Next-Page-Cursor"); len(c) > 1024 || (c != "" && a.status != http.StatusOK) {
		t.Errorf("%s: %d answer with Next-Page-Cursor %q", uri, a.status, c)
	}
	if a.status >= 400 {
		m, _ := v.(map[string]any)
		if m["statusCode"] != float64(a.status) || m["requestUri"] != uri || m["httpMethod"] == nil {
			t.Errorf("%s: error body %s for status %d", uri, a.body, a.status)
		}
	}
	return v
}

// errorProperty is the property and value named by the first detailed
// error of an ErrorResponse.
func errorProperty(v any) (property, value string) {
	m, _ := v.(map[string]any)
	errs, _ := m["errors"].([]any)
	if len(errs) == 0 {
		return "", ""
	}
	e, _ := errs[0].(map[string]any)
	property, _ = e["property"].(string)
	value, _ = e["value"].(string)
	return property, value
}

func rootItems(t *testing.T, a answer) []json.RawMessage {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(a.body, &items); err != nil {
		t.Fatalf("root array: %v: %.300s", err, a.body)
	}
	return items
}

// dcsaQueries are requests of every kind the simulator answers, with
// several root items each.
func dcsaQueries(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{
		"ports":                   portsOp + "?UNLocationCode=" + portWithTerminals(t, 3) + "&date=2026-01-05",
		"vessels calling a port":  vesselsOp + "?UNLocationCode=NLRTM&startDate=2026-01-01&endDate=2026-01-20&responseScope=MATCHED_CALLS",
		"point-to-point routings": p2pOp + "?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM",
	}
}

// portWithTerminals finds a port whose schedule at the world's start has
// at least n terminals with calls.
func portWithTerminals(t *testing.T, n int) string {
	t.Helper()
	env := dcsaEnv(t, simtest.Options{})
	for _, p := range env.Service.World().Ports() {
		a := get(t, env, "test", sim.DCSAPrefix+portsOp+"?UNLocationCode="+p.Locode+"&date=2026-01-05")
		if a.status == http.StatusOK && len(rootItems(t, a)) >= n {
			return p.Locode
		}
	}
	t.Fatalf("no port has %d terminals with calls", n)
	return ""
}

func TestDCSAAnswersConformToTheStandard(t *testing.T) {
	slowtest.Long(t)
	o := loadOpenAPI(t)
	env := dcsaEnv(t, simtest.Options{})
	w := env.Service.World()
	imo := simtest.Vessel(t, w, start)
	var uris []string
	for _, p := range w.Ports() {
		uris = append(uris, portsOp+"?UNLocationCode="+p.Locode+"&date=2026-01-05", portsOp+"?UNLocationCode="+p.Locode+"&date=2026-02-20")
	}
	for _, v := range w.Vessels()[:40] {
		uris = append(uris, vesselsOp+"?vesselIMONumber="+strconv.Itoa(v.IMO))
	}
	for _, l := range w.Lanes()[:40] {
		uris = append(uris, p2pOp+"?placeOfReceipt="+l.POL+"&placeOfDelivery="+l.POD)
	}
	uris = append(uris,
		vesselsOp+"?vesselIMONumber="+strconv.Itoa(imo)+"&startDate=2026-01-01&endDate=2026-01-31&responseScope=MATCHED_CALLS",
		vesselsOp+"?carrierServiceCode=AE1",
		vesselsOp+"?UNLocationCode=SGSIN&facilitySMDGCode=PPT&startDate=2026-01-05&endDate=2026-01-12",
		vesselsOp+"?vesselOperatorCarrierCode=MAEU&startDate=2026-01-05&endDate=2026-01-06",
		p2pOp+"?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM&maxTranshipment=0&departureStartDate=2026-01-10&departureEndDate=2026-01-20",
		p2pOp+"?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM&arrivalStartDate=2026-02-10&arrivalEndDate=2026-02-20&receiptTypeAtOrigin=CY",
	)
	oks := map[string]int{}
	for _, u := range uris {
		op, _, _ := strings.Cut(u, "?")
		a := get(t, env, "test", sim.DCSAPrefix+u)
		v := checkDCSA(t, o, op, sim.DCSAPrefix+u, a)
		switch a.status {
		case http.StatusOK:
			if len(rootItems(t, a)) > 0 {
				oks[op]++
			}
			checkDCSASemantics(t, op, u, v)
		default:
			t.Errorf("%s: %d %.300s", u, a.status, a.body)
		}
	}
	for _, op := range []string{portsOp, vesselsOp, p2pOp} {
		if oks[op] < 5 {
			t.Errorf("%s: only %d answers with data", op, oks[op])
		}
	}
}

// checkDCSASemantics checks what the schema cannot: the carrier is named
// in the service partner and as the vessel's operator, timestamps come in
// pairs of arrival and departure, port schedules are of the port asked,
// sorted by terminal, routings numbered from 1 and go where asked.
func checkDCSASemantics(t *testing.T, op, uri string, v any) {
	t.Helper()
	q, _ := url.ParseQuery(strings.SplitN(uri, "?", 2)[1])
	items := v.([]any) // [] is no data: the standard answers 200, 400 or 500
	partner := func(path string, sp, vessel any) {
		p := sp.([]any)[0].(map[string]any)
		if p["carrierCode"] == nil || p["carrierCodeListProvider"] != "NMFTA" || vessel.(map[string]any)["operatorCarrierCode"] != p["carrierCode"] {
			t.Errorf("%s %s: carrier %v, vessel operator %v", uri, path, p, vessel)
		}
	}
	prevSMDG := ""
	for i, it := range items {
		m := it.(map[string]any)
		switch op {
		case portsOp:
			loc := m["location"].(map[string]any)
			if loc["UNLocationCode"] != q.Get("UNLocationCode") {
				t.Errorf("%s: item %d at %v", uri, i, loc["UNLocationCode"])
			}
			smdg, _ := loc["facilitySMDGCode"].(string)
			if i > 0 && smdg <= prevSMDG {
				t.Errorf("%s: terminals not sorted: %q after %q", uri, smdg, prevSMDG)
			}
			prevSMDG = smdg
			for _, s := range m["vesselSchedules"].([]any) {
				sm := s.(map[string]any)
				partner("vesselSchedules", sm["servicePartners"], sm["vessel"])
				checkStampPairs(t, uri, sm["timestamps"].([]any))
			}
		case vesselsOp:
			for _, vs := range m["vesselSchedules"].([]any) {
				vm := vs.(map[string]any)
				if imo := q.Get("vesselIMONumber"); imo != "" && vm["vessel"].(map[string]any)["vesselIMONumber"] != imo {
					t.Errorf("%s: vessel %v", uri, vm["vessel"])
				}
				for _, tc := range vm["transportCalls"].([]any) {
					checkStampPairs(t, uri, tc.(map[string]any)["timestamps"].([]any))
				}
			}
		case p2pOp:
			if m["solutionNumber"] != float64(i+1) {
				t.Errorf("%s: item %d has solution number %v", uri, i, m["solutionNumber"])
			}
			por := m["placeOfReceipt"].(map[string]any)["location"].(map[string]any)["UNLocationCode"]
			pod := m["placeOfDelivery"].(map[string]any)["location"].(map[string]any)["UNLocationCode"]
			if por != q.Get("placeOfReceipt") || pod != q.Get("placeOfDelivery") {
				t.Errorf("%s: routing %v → %v", uri, por, pod)
			}
			legs := m["legs"].([]any)
			for n, l := range legs {
				lm := l.(map[string]any)
				tr := lm["transport"].(map[string]any)
				partner("legs.transport", tr["servicePartners"], tr["vessel"])
				if lm["sequenceNumber"] != float64(n+1) {
					t.Errorf("%s: leg %d numbered %v", uri, n, lm["sequenceNumber"])
				}
			}
		}
	}
}

// checkStampPairs: PLN arrival and departure, then the latest (EST or
// ACT) arrival and departure.
func checkStampPairs(t *testing.T, uri string, ts []any) {
	t.Helper()
	var got []string
	for _, x := range ts {
		m := x.(map[string]any)
		got = append(got, m["eventTypeCode"].(string)+"/"+m["eventClassifierCode"].(string))
	}
	s := strings.Join(got, " ")
	if !strings.HasPrefix(s, "ARRI/PLN DEPA/PLN ARRI/") || len(got) != 4 || !strings.HasPrefix(got[3], "DEPA/") {
		t.Errorf("%s: timestamps %s", uri, s)
	}
}

// TestDCSARequestsAreCheckedAsTheStandardSays derives bad requests from
// the OpenAPI's parameters: each required one left out, and for each
// pattern, format, enum, minimum or maxLength a value that breaks it. All
// are free 400s naming the property and the value.
func TestDCSARequestsAreCheckedAsTheStandardSays(t *testing.T) {
	o := loadOpenAPI(t)
	env := dcsaEnv(t, simtest.Options{})
	imo := strconv.Itoa(simtest.Vessel(t, env.Service.World(), start))
	valid := map[string]url.Values{
		portsOp:   {"UNLocationCode": {"NLRTM"}, "date": {"2026-01-05"}},
		vesselsOp: {"vesselIMONumber": {imo}},
		p2pOp:     {"placeOfReceipt": {"CNSHA"}, "placeOfDelivery": {"NLRTM"}},
	}
	tested := 0
	for op, base := range valid {
		if a := get(t, env, "test", sim.DCSAPrefix+op+"?"+base.Encode()); a.status != http.StatusOK {
			t.Fatalf("%s?%s: %d %.300s", op, base.Encode(), a.status, a.body)
		}
		for _, p := range o.params(op) {
			var bad []string
			switch p.schema["type"] {
			case "integer":
				if m, ok := p.schema["minimum"].(float64); ok {
					bad = append(bad, strconv.Itoa(int(m)-1))
				}
				bad = append(bad, "1.5", "ten")
			default:
				for _, c := range []string{" x", "x ", "??", "nlrtm", "2026-13-01", "05/01/2026"} {
					if len(o.checkString("", c, p.schema)) > 0 {
						bad = append(bad, c)
						break
					}
				}
				if n, ok := p.schema["maxLength"].(float64); ok {
					bad = append(bad, strings.Repeat("A", int(n)+1))
				}
			}
			cases := map[string]url.Values{}
			for _, b := range bad {
				q := cloneValues(base)
				q.Set(p.name, b)
				cases[b] = q
			}
			if p.required {
				q := cloneValues(base)
				q.Del(p.name)
				cases[""] = q
			}
			for value, q := range cases {
				uri := sim.DCSAPrefix + op + "?" + q.Encode()
				before, _ := env.Service.Balance("test", wire.ProductSchedule)
				a := get(t, env, "test", uri)
				tested++
				if a.status != http.StatusBadRequest {
					t.Errorf("%s %s=%q: %d, want 400", op, p.name, value, a.status)
					continue
				}
				v := checkDCSA(t, o, op, uri, a)
				// DetailedError.value holds at most 500 characters.
				if prop, val := errorProperty(v); prop != p.name || (val != value && !(len(val) == 500 && strings.HasPrefix(value, val))) {
					t.Errorf("%s %s=%q: the error names %s=%q", op, p.name, value, prop, val)
				}
				if after, _ := env.Service.Balance("test", wire.ProductSchedule); after != before {
					t.Errorf("%s %s=%q: a 400 cost %d credits", op, p.name, value, before-after)
				}
			}
		}
	}
	if tested < 30 {
		t.Errorf("only %d bad requests derived from the standard", tested)
	}
	// The standard asks for a filter on vessel schedules; dates alone are not one.
	a := get(t, env, "test", sim.DCSAPrefix+vesselsOp+"?startDate=2026-01-01")
	if prop, _ := errorProperty(checkDCSA(t, o, vesselsOp, sim.DCSAPrefix+vesselsOp+"?startDate=2026-01-01", a)); a.status != 400 || prop != "vesselIMONumber" {
		t.Errorf("vessel schedules without a filter: %d %.300s", a.status, a.body)
	}
	// API-Version, when sent, is the major version.
	req, _ := http.NewRequest(http.MethodGet, env.Server.URL+sim.DCSAPrefix+portsOp+"?UNLocationCode=NLRTM&date=2026-01-05", nil)
	req.Header["API_KEY"] = []string{"test"}
	for v, want := range map[string]int{"1": 200, "2": 400, "1.0.3": 400} {
		req.Header.Set("API-Version", v)
		resp, err := env.Server.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("API-Version %s: %d, want %d", v, resp.StatusCode, want)
		}
	}
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func TestDCSAServiceRules(t *testing.T) {
	o := loadOpenAPI(t)
	world := simtest.World(sim.WorldConfig{})
	ref := world.Shipments()[0]
	keys := []sim.KeySpec{
		{Key: "good", Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)},
		{Key: "broke", Schedule: simtest.Credits(0), Tracking: simtest.Credits(0)},
		{Key: "trackonly", Tracking: simtest.Credits(100)},
		{Key: "old", Schedule: simtest.Credits(100), Tracking: simtest.Credits(100), Expires: start.Add(-time.Hour)},
	}
	port := sim.DCSAPrefix + portsOp + "?UNLocationCode=NLRTM&date=2026-01-05"
	cases := []struct {
		rule, key, method, uri string
		status                 int
	}{
		{"without API_KEY: 401", "", "GET", port, 401},
		{"an invalid key: 401", "nobody", "GET", port, 401},
		{"an expired key: 401", "old", "GET", port, 401},
		{"a key without the schedule product: 403", "trackonly", "GET", port, 403},
		{"at quota: 403 before processing", "broke", "GET", port, 403},
		// The standard's operations answer 200, 400 or 500: no data is
		// an empty array, and a successful call (charged).
		{"a port with no schedule data: 200 []", "good", "GET", sim.DCSAPrefix + portsOp + "?UNLocationCode=ZZ999&date=2026-01-05", 200},
		{"a vessel no carrier knows: 200 []", "good", "GET", sim.DCSAPrefix + vesselsOp + "?vesselIMONumber=1234567", 200},
		{"a window with no call: 200 []", "good", "GET", sim.DCSAPrefix + portsOp + "?UNLocationCode=NLRTM&date=2030-01-05", 200},
		{"no routing between the places: 200 []", "good", "GET", sim.DCSAPrefix + p2pOp + "?placeOfReceipt=NLRTM&placeOfDelivery=NLRTM", 200},
		{"only GET: 405", "good", "POST", port, 405},
		{"an unknown operation: 404", "good", "GET", sim.DCSAPrefix + "/v1/schedules", 404},
		{"no consumption endpoints in this profile: 404", "good", "GET", sim.DCSAPrefix + "/consumption/current-period", 404},
		{"another major version: 404", "good", "GET", sim.DCSAPrefix + "/v2/port-schedules?UNLocationCode=NLRTM&date=2026-01-05", 404},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			env := dcsaEnv(t, simtest.Options{Keys: keys})
			req, err := http.NewRequest(tc.method, env.Server.URL+tc.uri, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.key != "" {
				req.Header["API_KEY"] = []string{tc.key}
			}
			resp, err := env.Server.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			_, _ = body.ReadFrom(resp.Body)
			resp.Body.Close()
			a := answer{resp.StatusCode, resp.Header, body.Bytes()}
			if a.status != tc.status {
				t.Fatalf("%d, want %d: %.300s", a.status, tc.status, a.body)
			}
			op, _, _ := strings.Cut(strings.TrimPrefix(tc.uri, sim.DCSAPrefix), "?")
			if tc.status == http.StatusNotFound {
				// The standard defines no 404: a path it does not
				// define is the web server's.
				checkNoRoute(t, a)
			} else {
				checkDCSA(t, o, op, tc.uri, a)
			}
			charged := int64(0)
			if a.status == http.StatusOK {
				charged = 1
				if string(a.body) != "[]" {
					t.Errorf("no data: %s, want []", a.body)
				}
			}
			if st := env.Service.Stats(); st.Charged["schedule"] != charged {
				t.Errorf("a %d was charged %d, want %d", a.status, st.Charged["schedule"], charged)
			}
		})
	}

	// The profile is the server's: the service profile's schedule paths
	// are not served, the tracking product is served as ever, and a
	// service-profile server does not serve /cs.
	env := dcsaEnv(t, simtest.Options{Keys: keys})
	if a := get(t, env, "good", sim.SchedulePrefix+"/schedule/NLRTM"); a.status != 404 || !strings.Contains(string(a.body), sim.DCSAPrefix) {
		t.Errorf("service-profile path in the DCSA profile: %d %.300s", a.status, a.body)
	} else {
		checkErrorBody(t, a)
	}
	if a := get(t, env, "good", sim.TrackingPrefix+"/shipment?"+wire.ShipmentQuery(ref.Number, string(ref.Type), ref.Sealine).Encode()); a.status != 200 || a.header.Get("API-Version") != "" {
		t.Errorf("tracking in the DCSA profile: %d %.300s", a.status, a.body)
	}
	if a := get(t, env, "good", sim.TrackingPrefix+"/consumption/current-period"); a.status != 200 {
		t.Errorf("tracking consumption in the DCSA profile: %d %.300s", a.status, a.body)
	}
	if env.ScheduleURL != env.Server.URL+sim.DCSAPrefix {
		t.Errorf("simtest schedule URL %s", env.ScheduleURL)
	}
	plain := simtest.Start(t, simtest.Options{Keys: keys})
	if a := get(t, plain, "good", port); a.status != 404 || a.header.Get("API-Version") != "" {
		t.Errorf("/cs in the service profile: %d %.300s", a.status, a.body)
	} else {
		checkErrorBody(t, a)
	}

	// 429 is an ErrorResponse too, and free.
	slow := dcsaEnv(t, simtest.Options{Keys: keys, Rate: sim.Rate{N: 1, Window: time.Hour}})
	get(t, slow, "good", port)
	a := get(t, slow, "good", port)
	if a.status != 429 {
		t.Fatalf("second request in the window: %d", a.status)
	}
	checkDCSA(t, o, portsOp, port, a)
	if n, _ := slow.Service.Balance("good", wire.ProductSchedule); n != 99 {
		t.Errorf("balance %d after one answer and one 429, want 99", n)
	}
}

// walked is a walk through every page of an answer.
type walked struct {
	items   []string // root items, compact JSON, in order
	pages   int
	bodies  []string
	cursors []string
	dates   []string
}

// walk asks uri (a DCSA operation and its filters) and follows
// Next-Page-Cursor to the end with the same filters and limit (0: none
// sent), checking each page against the standard and its size against the
// expected page size (0: unchecked).
func walk(t *testing.T, env *simtest.Env, o *openAPI, uri string, limit, size int, between func()) walked {
	t.Helper()
	op, _, _ := strings.Cut(uri, "?")
	base := sim.DCSAPrefix + uri
	if limit > 0 {
		base += "&limit=" + strconv.Itoa(limit)
	}
	var w walked
	next := base
	for {
		a := get(t, env, "test", next)
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d %.300s", next, a.status, a.body)
		}
		checkDCSA(t, o, op, next, a)
		items := rootItems(t, a)
		cursor := a.header.Get("Next-Page-Cursor")
		if size > 0 && (len(items) > size || (cursor != "" && len(items) != size)) {
			t.Errorf("%s: page %d holds %d items, want %d (fewer only on the last page)", uri, w.pages+1, len(items), size)
		}
		for _, it := range items {
			var c bytes.Buffer
			if err := json.Compact(&c, it); err != nil {
				t.Fatal(err)
			}
			w.items = append(w.items, c.String())
		}
		w.pages++
		w.bodies = append(w.bodies, string(a.body))
		w.cursors = append(w.cursors, cursor)
		w.dates = append(w.dates, a.header.Get("Date"))
		if cursor == "" {
			return w
		}
		if w.pages > 500 {
			t.Fatalf("%s: more than 500 pages", uri)
		}
		if between != nil {
			between()
		}
		next = nextPageURI(env, base, cursor)
	}
}

// nextPageURI is the next page of the walk whose first page was first,
// asked as the version env serves says (TestDCSACursorRules).
func nextPageURI(env *simtest.Env, first, cursor string) string {
	if v := env.Service.DCSAVersion(); v == "1.0.0" || v == "1.0.1" {
		path, _, _ := strings.Cut(first, "?")
		return path + "?cursor=" + url.QueryEscape(cursor)
	}
	return first + "&cursor=" + url.QueryEscape(cursor)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

func TestDCSAPagesSplitOneAnswer(t *testing.T) {
	slowtest.Long(t)
	o := loadOpenAPI(t)
	queries := dcsaQueries(t)
	paging := []struct{ pageSize, limit int }{{1, 0}, {2, 0}, {5, 0}, {0, 3}, {2, 5}, {5, 2}, {0, 1000}}
	for name, uri := range queries {
		t.Run(name, func(t *testing.T) {
			whole := walk(t, dcsaEnv(t, simtest.Options{}), o, uri, 0, 0, nil)
			if whole.pages != 1 || len(whole.items) < 3 {
				t.Fatalf("unpaged: %d pages, %d items; want 1 page of several", whole.pages, len(whole.items))
			}
			for _, pg := range paging {
				size := sim.DCSADefaultLimit
				if pg.limit > 0 {
					size = pg.limit
				}
				if pg.pageSize > 0 {
					size = min(size, pg.pageSize)
				}
				env := dcsaEnv(t, simtest.Options{PageSize: pg.pageSize})
				got := walk(t, env, o, uri, pg.limit, size, nil)
				if want := (len(whole.items) + size - 1) / size; got.pages != want {
					t.Errorf("page size %d, limit %d: %d pages, want %d", pg.pageSize, pg.limit, got.pages, want)
				}
				if strings.Join(sortedCopy(got.items), "\n") != strings.Join(sortedCopy(whole.items), "\n") {
					t.Errorf("page size %d, limit %d: the pages hold other items than the whole answer", pg.pageSize, pg.limit)
				}
				if strings.Join(got.items, "\n") != strings.Join(whole.items, "\n") {
					t.Errorf("page size %d, limit %d: the pages change the order", pg.pageSize, pg.limit)
				}
				// Each page is charged once, as one schedule call.
				charged := 0
				for _, e := range env.Service.Ledger() {
					if e.Charged {
						charged++
					}
				}
				if n, _ := env.Service.Balance("test", wire.ProductSchedule); charged != got.pages || n != 1000-int64(got.pages) {
					t.Errorf("page size %d, limit %d: %d pages, %d charged, balance %d", pg.pageSize, pg.limit, got.pages, charged, n)
				}
				// The same seed and requests give the same pages and cursors.
				again := walk(t, dcsaEnv(t, simtest.Options{PageSize: pg.pageSize}), o, uri, pg.limit, size, nil)
				if strings.Join(again.bodies, "\n") != strings.Join(got.bodies, "\n") || strings.Join(again.cursors, " ") != strings.Join(got.cursors, " ") {
					t.Errorf("page size %d, limit %d: another walk on the same seed differs", pg.pageSize, pg.limit)
				}
			}
		})
	}
}

// A walk is one answer even while the virtual clock runs: every page is
// answered, and dated, as of the first.
func TestDCSAPagesAreOneSnapshot(t *testing.T) {
	o := loadOpenAPI(t)
	for name, uri := range dcsaQueries(t) {
		t.Run(name, func(t *testing.T) {
			whole := walk(t, dcsaEnv(t, simtest.Options{}), o, uri, 0, 0, nil)
			clock := sim.NewClock(start, 0, nil)
			env := dcsaEnv(t, simtest.Options{PageSize: 1, Clock: clock})
			got := walk(t, env, o, uri, 0, 1, func() { clock.Advance(36 * time.Hour) })
			if strings.Join(got.items, "\n") != strings.Join(whole.items, "\n") {
				t.Error("pages asked while the clock ran differ from the answer at the first page's time")
			}
			for i, d := range got.dates {
				if d != whole.dates[0] {
					t.Errorf("page %d dated %s, want the first page's %s", i+1, d, whole.dates[0])
				}
			}
			// A new walk starts at the new time.
			if fresh := get(t, env, "test", sim.DCSAPrefix+uri); fresh.header.Get("Date") == whole.dates[0] {
				t.Error("a first page after the walk is still dated as of the walk")
			}
		})
	}
}

// nextPageRule is the description of the Next-Page-Cursor header of the
// port schedules' 200 in the OpenAPI document of a version (the same for
// the three operations).
func nextPageRule(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "dcsa", file))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]struct {
			Get struct {
				Responses map[string]struct {
					Headers map[string]struct {
						Description string `json:"description"`
					} `json:"headers"`
				} `json:"responses"`
			} `json:"get"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Paths[portsOp].Get.Responses["200"].Headers["Next-Page-Cursor"].Description
}

// TestDCSACursorRules enforces how a next page is asked, as each text of
// the standard says. The two texts disagree; a provider follows one.
func TestDCSACursorRules(t *testing.T) {
	// CS 1.0.0 and 1.0.1.
	const alone = "To retrieve the next page, the API consumer sends a `GET` request to the endpoint URL with only `?cursor=fE9mZnNldHw9MTAmbGltaXQ9MTA` as query parameter. " +
		"The limit of items per page and any other query parameters may not be altered, therefore it may also not be specified when requesting subsequent pages. " +
		"The API provider must ignore any query parameters passed along with a cursor, and should return a `400` error if any other query parameter is passed along with the `cursor`."
	// CS 1.0.2 and 1.0.3.
	const withFilters = "To retrieve the next page, the API consumer sends a `GET` request to the endpoint URL with `cursor=fE9mZnNldHw9MTAmbGltaXQ9MTA` as query parameter " +
		"along with the limit of items per page and any other query parameters used in the original request. Filter parameters may not be altered and MUST be preserved when requesting subsequent pages."
	for file, rule := range map[string]string{"CS_v1.0.1.json": alone, "CS_v1.0.3.json": withFilters} {
		if !strings.Contains(nextPageRule(t, file), rule) {
			t.Fatalf("%s does not say %q: the quote is wrong", file, rule)
		}
	}
	o := loadOpenAPI(t)
	port := portWithTerminals(t, 2)
	filters := "UNLocationCode=" + port + "&date=2026-01-05"
	type env struct {
		env    *simtest.Env
		cursor string // of page 2, from a first page with limit=1
	}
	start := func(t *testing.T, version string) env {
		e := dcsaEnv(t, simtest.Options{DCSAVersion: version})
		first := get(t, e, "test", sim.DCSAPrefix+portsOp+"?"+filters+"&limit=1")
		cursor := first.header.Get("Next-Page-Cursor")
		if first.status != 200 || cursor == "" || first.header.Get("API-Version") != version {
			t.Fatalf("first page: %d, cursor %q, API-Version %q", first.status, cursor, first.header.Get("API-Version"))
		}
		return env{e, cursor}
	}
	refusedFor := func(t *testing.T, e env, refused map[string]string, property func(why string) string) {
		for why, uri := range refused {
			before, _ := e.env.Service.Balance("test", wire.ProductSchedule)
			a := get(t, e.env, "test", sim.DCSAPrefix+uri)
			op, _, _ := strings.Cut(uri, "?")
			if a.status != http.StatusBadRequest {
				t.Errorf("%s: %d, want 400: %.300s", why, a.status, a.body)
				continue
			}
			v := checkDCSA(t, o, op, sim.DCSAPrefix+uri, a)
			if prop, _ := errorProperty(v); prop != property(why) {
				t.Errorf("%s: the error names %q, want %q", why, prop, property(why))
			}
			if after, _ := e.env.Service.Balance("test", wire.ProductSchedule); after != before {
				t.Errorf("%s: the 400 was charged", why)
			}
		}
	}
	for _, version := range []string{"1.0.0", "1.0.1"} {
		t.Run(version, func(t *testing.T) {
			e := start(t, version)
			c := url.QueryEscape(e.cursor)
			// "should return a 400 error if any other query parameter is
			// passed along with the cursor".
			refusedFor(t, e, map[string]string{
				"the filters repeated":   portsOp + "?" + filters + "&cursor=" + c,
				"the limit repeated":     portsOp + "?limit=1&cursor=" + c,
				"a filter added":         portsOp + "?cursor=" + c + "&carrierServiceCode=AE1",
				"a malformed cursor":     portsOp + "?cursor=not-a-cursor",
				"an empty cursor":        portsOp + "?cursor=",
				"another operation's":    p2pOp + "?cursor=" + c,
				"the cursor and a limit": portsOp + "?cursor=" + c + "&limit=5",
			}, func(why string) string {
				switch why {
				case "the filters repeated":
					return "UNLocationCode"
				case "the limit repeated", "the cursor and a limit":
					return "limit"
				case "a filter added":
					return "carrierServiceCode"
				}
				return "cursor"
			})
			// "with only ?cursor=… as query parameter": the limit and the
			// filters are the first request's.
			a := get(t, e.env, "test", sim.DCSAPrefix+portsOp+"?cursor="+c)
			if a.status != 200 || len(rootItems(t, a)) != 1 {
				t.Errorf("second page with the cursor alone: %d %.300s", a.status, a.body)
			}
			checkDCSA(t, o, portsOp, sim.DCSAPrefix+portsOp+"?cursor="+c, a)
		})
	}
	for _, version := range []string{"1.0.2", "1.0.3"} {
		t.Run(version, func(t *testing.T) {
			e := start(t, version)
			c := url.QueryEscape(e.cursor)
			tampered := []byte(e.cursor)
			tampered[len(tampered)/2] ^= 1
			// "Filter parameters may not be altered and MUST be preserved".
			refusedFor(t, e, map[string]string{
				"an altered filter":          portsOp + "?UNLocationCode=" + port + "&date=2026-01-06&cursor=" + c,
				"the filters left out":       portsOp + "?cursor=" + c,
				"a filter added":             portsOp + "?" + filters + "&cursor=" + c + "&carrierServiceCode=AE1",
				"another operation's cursor": p2pOp + "?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM&cursor=" + c,
				"a malformed cursor":         portsOp + "?" + filters + "&cursor=not-a-cursor",
				"an empty cursor":            portsOp + "?" + filters + "&cursor=",
				"a tampered cursor":          portsOp + "?" + filters + "&cursor=" + url.QueryEscape(string(tampered)),
			}, func(string) string { return "cursor" })
			// "along with the limit of items per page and any other query
			// parameters used in the original request", in any order; the
			// limit, when left out, is the first request's.
			for _, uri := range []string{
				portsOp + "?date=2026-01-05&limit=1&UNLocationCode=" + port + "&cursor=" + c,
				portsOp + "?" + filters + "&cursor=" + c,
			} {
				a := get(t, e.env, "test", sim.DCSAPrefix+uri)
				if a.status != 200 || len(rootItems(t, a)) != 1 {
					t.Errorf("%s: %d %.300s", uri, a.status, a.body)
				}
			}
		})
	}
}

// TestDCSAIsTheSameWorld compares the DCSA answers with the service
// profile's answers of the same world at the same time: the same calls,
// carriers, vessels, voyages, timestamps and routings.
func TestDCSAIsTheSameWorld(t *testing.T) {
	slowtest.Long(t)
	o := loadOpenAPI(t)
	w, _ := defaultWorld(t)
	for _, at := range []time.Time{start, start.AddDate(0, 0, 23)} {
		clock := sim.NewClock(at, 0, nil)
		env := dcsaEnv(t, simtest.Options{World: sim.WorldConfig{Seed: 1}, Clock: clock})
		date := at.Format(time.DateOnly)

		compared := 0
		for _, p := range w.Ports() {
			ps, err := w.PortSchedule(p.Locode, at)
			a := get(t, env, "test", sim.DCSAPrefix+portsOp+"?UNLocationCode="+p.Locode+"&date="+date)
			if err != nil {
				if a.status != http.StatusOK || string(a.body) != "[]" {
					t.Errorf("%s: the service profile has no data, DCSA answers %d %.100s, want 200 []", p.Locode, a.status, a.body)
				}
				continue
			}
			var want, got []string
			for _, vs := range ps.VesselSchedules {
				want = append(want, callKey(vs.CarrierCode, *vs.CarrierServiceCode, strconv.Itoa(*vs.Vessel.IMO), *vs.CarrierImportVoyageNumber, *vs.CarrierExportVoyageNumber, smdgOf(vs.Facility), wireStamps(vs.Timestamps)))
			}
			var items []csPortItem
			if err := json.Unmarshal(a.body, &items); err != nil {
				t.Fatalf("%s: %v", p.Locode, err)
			}
			for _, it := range items {
				for _, s := range it.VesselSchedules {
					sp := s.ServicePartners[0]
					got = append(got, callKey(sp.CarrierCode, sp.CarrierServiceCode, s.Vessel.VesselIMONumber, sp.CarrierImportVoyageNumber, sp.CarrierExportVoyageNumber, it.Location.FacilitySMDGCode, s.Timestamps))
				}
			}
			if strings.Join(sortedCopy(got), "\n") != strings.Join(sortedCopy(want), "\n") {
				t.Errorf("%s at %s: DCSA port schedule\n%s\nservice profile\n%s", p.Locode, date, strings.Join(sortedCopy(got), "\n"), strings.Join(sortedCopy(want), "\n"))
			}
			compared++
		}
		if compared < 10 {
			t.Errorf("only %d ports compared", compared)
		}

		// The window is the date's, not the clock's: from date − 7 d to
		// date + 28 d by planned arrival (or actual, once it happened). In
		// a world without jumps: one announced between the clock and the
		// date (a call omitted, a voyage's vessel swapped) would rightly
		// tell the two answers apart.
		later := at.AddDate(0, 0, 14)
		still := sim.WorldConfig{Seed: 1, NoJumps: true}
		ps, err := simtest.World(still).PortSchedule("NLRTM", later)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, vs := range ps.VesselSchedules {
			if pln := vs.Timestamps[0].EventDateTime; !pln.Before(later.AddDate(0, 0, -7)) {
				want = append(want, strconv.Itoa(*vs.Vessel.IMO)+" "+pln.Format(time.RFC3339))
			}
		}
		var items []csPortItem
		stillEnv := dcsaEnv(t, simtest.Options{World: still, Clock: clock})
		if err := json.Unmarshal(get(t, stillEnv, "test", sim.DCSAPrefix+portsOp+"?UNLocationCode=NLRTM&date="+later.Format(time.DateOnly)).body, &items); err != nil {
			t.Fatal(err)
		}
		for _, it := range items {
			for _, s := range it.VesselSchedules {
				if pln, _ := stampOf(s.Timestamps, "ARRI", "PLN"); !pln.Before(later.AddDate(0, 0, -7)) {
					got = append(got, s.Vessel.VesselIMONumber+" "+pln.Format(time.RFC3339))
				}
			}
		}
		if strings.Join(sortedCopy(got), "\n") != strings.Join(sortedCopy(want), "\n") {
			t.Errorf("NLRTM on %s asked at %s: calls planned\n%v\nwant\n%v", later.Format(time.DateOnly), at, sortedCopy(got), sortedCopy(want))
		}

		// By vessel: the service profile's calls are among the DCSA
		// answer's (whose default window is wider), alike.
		compared = 0
		for _, v := range w.Vessels() {
			vs, err := w.VesselSchedule(v.IMO, at)
			if err != nil || compared == 15 {
				continue
			}
			compared++
			a := get(t, env, "test", sim.DCSAPrefix+vesselsOp+"?vesselIMONumber="+strconv.Itoa(v.IMO))
			checkDCSA(t, o, vesselsOp, sim.DCSAPrefix+vesselsOp+"?vesselIMONumber="+strconv.Itoa(v.IMO), a)
			var items []csServiceItem
			if err := json.Unmarshal(a.body, &items); err != nil || len(items) != 1 || len(items[0].VesselSchedules) != 1 {
				t.Fatalf("%d: %d %.300s", v.IMO, a.status, a.body)
			}
			if items[0].CarrierServiceCode != *vs.CarrierServiceCode || items[0].VesselSchedules[0].Vessel.OperatorCarrierCode != vs.CarrierCode {
				t.Errorf("%d: service %s of %s, want %s of %s", v.IMO, items[0].CarrierServiceCode, items[0].VesselSchedules[0].Vessel.OperatorCarrierCode, *vs.CarrierServiceCode, vs.CarrierCode)
			}
			have := map[string]bool{}
			for _, tc := range items[0].VesselSchedules[0].TransportCalls {
				have[callKey(tc.Location.UNLocationCode, tc.Location.FacilitySMDGCode, tc.CarrierImportVoyageNumber, tc.CarrierExportVoyageNumber, "", "", tc.Timestamps)] = true
			}
			for _, tc := range vs.TransportCalls {
				k := callKey(tc.Location.Locode, smdgOf(tc.Facility), *tc.CarrierImportVoyageNumber, *tc.CarrierExportVoyageNumber, "", "", wireStamps(tc.Timestamps))
				if !have[k] {
					t.Errorf("%d: the service profile's call %s is not in the DCSA answer", v.IMO, k)
				}
			}
		}

		// Point to point: the same routings in the same order, with the
		// planned times where the service profile shows them, and the
		// planned times of the vessel schedules' calls they name.
		schedules := map[string]map[string]csStamp{} // IMO → call reference + event type → PLN
		plannedCall := func(imo, ref, typ string) (time.Time, bool) {
			calls, ok := schedules[imo]
			if !ok {
				calls = map[string]csStamp{}
				var items []csServiceItem
				if a := get(t, env, "test", sim.DCSAPrefix+vesselsOp+"?vesselIMONumber="+imo); a.status == http.StatusOK {
					if err := json.Unmarshal(a.body, &items); err != nil {
						t.Fatal(err)
					}
				}
				for _, it := range items {
					for _, tc := range it.VesselSchedules[0].TransportCalls {
						for _, x := range tc.Timestamps {
							if x.EventClassifierCode == "PLN" {
								calls[tc.TransportCallReference+" "+x.EventTypeCode] = x
							}
						}
					}
				}
				schedules[imo] = calls
			}
			x, ok := calls[ref+" "+typ]
			return x.EventDateTime, ok
		}
		crossChecked := 0
		for _, l := range w.Lanes()[:12] {
			for _, q := range []struct {
				query string
				p2p   sim.P2PQuery
			}{
				{"", sim.P2PQuery{MaxTranshipment: -1}},
				{"&maxTranshipment=0&departureStartDate=" + at.AddDate(0, 0, 3).Format(time.DateOnly) + "&departureEndDate=" + at.AddDate(0, 0, 12).Format(time.DateOnly),
					sim.P2PQuery{MaxTranshipment: 0, DepartureStart: dateOnly(at.AddDate(0, 0, 3)), DepartureEnd: dateOnly(at.AddDate(0, 0, 13)).Add(-time.Second)}},
			} {
				uri := sim.DCSAPrefix + p2pOp + "?placeOfReceipt=" + l.POL + "&placeOfDelivery=" + l.POD + q.query
				pp, err := w.PointToPoint(l.POL, l.POD, q.p2p, at)
				a := get(t, env, "test", uri)
				if err != nil {
					if a.status != http.StatusOK || string(a.body) != "[]" {
						t.Errorf("%s: no routing in the service profile, DCSA %d %.100s, want 200 []", uri, a.status, a.body)
					}
					continue
				}
				var items []csRouting
				if err := json.Unmarshal(a.body, &items); err != nil {
					t.Fatalf("%s: %d %v", uri, a.status, err)
				}
				if len(items) != len(pp.Routes) {
					t.Errorf("%s: %d routings, the service profile %d", uri, len(items), len(pp.Routes))
					continue
				}
				for i, r := range pp.Routes {
					if len(items[i].Legs) != len(r.Legs) {
						t.Errorf("%s: routing %d has %d legs, want %d", uri, i+1, len(items[i].Legs), len(r.Legs))
						continue
					}
					for n, leg := range r.Legs {
						got := items[i].Legs[n]
						sp := got.Transport.ServicePartners[0]
						if sp.CarrierCode != r.CarrierCode || got.Transport.Vessel.VesselIMONumber != strconv.Itoa(*leg.Vessel.IMO) ||
							sp.CarrierServiceCode != *leg.CarrierServiceCode || sp.CarrierExportVoyageNumber != *leg.CarrierVoyageNumber ||
							got.Departure.Location.UNLocationCode != leg.Departure.Location.Locode || got.Arrival.Location.UNLocationCode != leg.Arrival.Location.Locode {
							t.Errorf("%s: routing %d leg %d: %+v, service profile %s %s %d %s %s→%s", uri, i+1, n+1, got, r.CarrierCode,
								*leg.CarrierServiceCode, *leg.Vessel.IMO, *leg.CarrierVoyageNumber, leg.Departure.Location.Locode, leg.Arrival.Location.Locode)
						}
						if leg.Departure.EventClassifierCode == "PLN" && !got.Departure.DateTime.Equal(leg.Departure.DateTime) {
							t.Errorf("%s: routing %d leg %d departs %s, planned %s", uri, i+1, n+1, got.Departure.DateTime, leg.Departure.DateTime)
						}
						if leg.Arrival.EventClassifierCode == "PLN" && !got.Arrival.DateTime.Equal(leg.Arrival.DateTime) {
							t.Errorf("%s: routing %d leg %d arrives %s, planned %s", uri, i+1, n+1, got.Arrival.DateTime, leg.Arrival.DateTime)
						}
						imo := got.Transport.Vessel.VesselIMONumber
						dep, ok1 := plannedCall(imo, got.Departure.TransportCallReference, "DEPA")
						arr, ok2 := plannedCall(imo, got.Arrival.TransportCallReference, "ARRI")
						if ok1 && ok2 {
							crossChecked++
							if !dep.Equal(got.Departure.DateTime) || !arr.Equal(got.Arrival.DateTime) {
								t.Errorf("%s: routing %d leg %d %s → %s, the vessel schedule plans %s → %s", uri, i+1, n+1, got.Departure.DateTime, got.Arrival.DateTime, dep, arr)
							}
						}
					}
				}
			}
		}
		if crossChecked < 20 {
			t.Errorf("only %d legs found in vessel schedules", crossChecked)
		}
	}
}

func smdgOf(f *wire.Facility) string {
	if f == nil || f.SMDGCode == nil {
		return ""
	}
	return *f.SMDGCode
}

func dateOnly(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// The test's own reading of the DCSA answers (the members it compares).
type (
	csStamp struct {
		EventTypeCode       string    `json:"eventTypeCode"`
		EventClassifierCode string    `json:"eventClassifierCode"`
		EventDateTime       time.Time `json:"eventDateTime"`
	}
	csPartner struct {
		CarrierCode, CarrierServiceCode, CarrierImportVoyageNumber, CarrierExportVoyageNumber string
	}
	csVesselRef struct {
		VesselIMONumber, OperatorCarrierCode string
	}
	csPortItem struct {
		Location struct {
			UNLocationCode, FacilitySMDGCode string
		}
		VesselSchedules []struct {
			ServicePartners []csPartner
			Vessel          csVesselRef
			Timestamps      []csStamp
		}
	}
	csServiceItem struct {
		CarrierServiceCode string
		VesselSchedules    []struct {
			Vessel         csVesselRef
			TransportCalls []struct {
				TransportCallReference                               string
				CarrierImportVoyageNumber, CarrierExportVoyageNumber string
				Location                                             struct{ UNLocationCode, FacilitySMDGCode string }
				Timestamps                                           []csStamp
			}
		}
	}
	csRouting struct {
		Legs []struct {
			Transport struct {
				ServicePartners []csPartner
				Vessel          csVesselRef
			}
			Departure, Arrival struct {
				TransportCallReference string
				Location               struct{ UNLocationCode string }
				DateTime               time.Time
			}
		}
	}
)

func wireStamps(ts []wire.Timestamp) []csStamp {
	out := make([]csStamp, len(ts))
	for i, x := range ts {
		out[i] = csStamp{x.EventTypeCode, x.EventClassifierCode, x.EventDateTime}
	}
	return out
}

func callKey(a, b, c, d, e, f string, ts []csStamp) string {
	parts := []string{a, b, c, d, e, f}
	for _, x := range ts {
		parts = append(parts, x.EventTypeCode+"/"+x.EventClassifierCode+"/"+x.EventDateTime.UTC().Format(time.RFC3339))
	}
	return strings.Join(parts, "|")
}

// stampOf finds a timestamp of a call.
func stampOf(ts []csStamp, typ, class string) (time.Time, bool) {
	for _, x := range ts {
		if x.EventTypeCode == typ && x.EventClassifierCode == class {
			return x.EventDateTime, true
		}
	}
	return time.Time{}, false
}

// TestDCSAPortCallsMatchTheTruth reads port calls as a warehouse would
// from DCSA answers (by port and by vessel) and checks them against the
// world's ground truth: every shipment leg's vessel call carries its
// planned times (PLN) and, once it happened, its actual times (ACT).
func TestDCSAPortCallsMatchTheTruth(t *testing.T) {
	_, truth := defaultWorld(t)
	at := start.AddDate(0, 0, 20)
	env := dcsaEnv(t, simtest.Options{World: sim.WorldConfig{Seed: 1}, Clock: sim.NewClock(at, 0, nil)})
	supports := map[string]sim.Supports{}
	for _, c := range truth.Carriers {
		supports[c.SCAC] = c.Supports
	}
	day := 24 * time.Hour
	ports := map[string][]csPortItem{}
	vessels := map[int][]csServiceItem{}
	arrivals, departures := 0, 0
	for _, s := range truth.Shipments {
		for _, l := range s.Legs {
			if supports[s.Sealine].Port && !l.PlannedArrival.Before(dateOnly(at).Add(-7*day)) && !l.PlannedArrival.After(dateOnly(at).Add(28*day)) {
				items, ok := ports[l.To]
				if !ok {
					a := get(t, env, "test", sim.DCSAPrefix+portsOp+"?UNLocationCode="+l.To+"&date="+at.Format(time.DateOnly))
					if err := json.Unmarshal(a.body, &items); err != nil {
						t.Fatalf("%s: %d %v", l.To, a.status, err)
					}
					ports[l.To] = items
				}
				found := false
				for _, it := range items {
					for _, vs := range it.VesselSchedules {
						pln, _ := stampOf(vs.Timestamps, "ARRI", "PLN")
						if vs.Vessel.VesselIMONumber != strconv.Itoa(l.VesselIMO) || !pln.Equal(l.PlannedArrival) {
							continue
						}
						found = true
						act, isAct := stampOf(vs.Timestamps, "ARRI", "ACT")
						if happened := !l.ActualArrival.After(at); happened != isAct || (isAct && !act.Equal(l.ActualArrival)) {
							t.Errorf("%s leg to %s: ACT arrival %v (%v), truth %s", s.Number, l.To, act, isAct, l.ActualArrival)
						}
						if vs.ServicePartners[0].CarrierCode != s.Sealine || vs.ServicePartners[0].CarrierServiceCode != l.Service {
							t.Errorf("%s leg to %s: %+v, truth %s %s", s.Number, l.To, vs.ServicePartners[0], s.Sealine, l.Service)
						}
					}
				}
				if !found {
					t.Errorf("%s: the call of %d at %s planned %s is not in the port schedule", s.Number, l.VesselIMO, l.To, l.PlannedArrival)
				}
				arrivals++
			}
			if supports[s.Sealine].Vessel && len(vessels) < 25 || vessels[l.VesselIMO] != nil {
				items, ok := vessels[l.VesselIMO]
				if !ok {
					a := get(t, env, "test", sim.DCSAPrefix+vesselsOp+"?vesselIMONumber="+strconv.Itoa(l.VesselIMO))
					if a.status == http.StatusNotFound {
						continue // the leg is outside the default window
					}
					if err := json.Unmarshal(a.body, &items); err != nil {
						t.Fatalf("%d: %d %v", l.VesselIMO, a.status, err)
					}
					vessels[l.VesselIMO] = items
				}
				lo, hi := dateOnly(at.AddDate(0, -3, 0)), dateOnly(at.AddDate(0, 6, 0))
				if l.PlannedDeparture.Before(lo) || l.PlannedDeparture.After(hi) {
					continue
				}
				found := false
				for _, it := range items {
					for _, tc := range it.VesselSchedules[0].TransportCalls {
						pln, _ := stampOf(tc.Timestamps, "DEPA", "PLN")
						if tc.Location.UNLocationCode != l.From || !pln.Equal(l.PlannedDeparture) {
							continue
						}
						found = true
						act, isAct := stampOf(tc.Timestamps, "DEPA", "ACT")
						if happened := !l.ActualDeparture.After(at); happened != isAct || (isAct && !act.Equal(l.ActualDeparture)) {
							t.Errorf("%s leg from %s: ACT departure %v (%v), truth %s", s.Number, l.From, act, isAct, l.ActualDeparture)
						}
					}
				}
				if !found {
					t.Errorf("%s: the departure of %d from %s planned %s is not in the vessel schedule", s.Number, l.VesselIMO, l.From, l.PlannedDeparture)
				}
				departures++
			}
		}
	}
	if arrivals < 20 || departures < 20 {
		t.Errorf("only %d arrivals and %d departures compared", arrivals, departures)
	}
}

func TestDCSATruthDoesNotDependOnTheProfile(t *testing.T) {
	bodies := map[string]string{}
	for _, api := range sim.ScheduleAPIs {
		env := simtest.Start(t, simtest.Options{ScheduleAPI: api})
		a := get(t, env, "", sim.AdminPrefix+"truth")
		if a.status != 200 {
			t.Fatalf("%s: truth %d", api, a.status)
		}
		bodies[api] = string(a.body)
	}
	if bodies[sim.ScheduleAPIService] != bodies[sim.ScheduleAPIDCSA] {
		t.Error("the truth differs between the profiles")
	}
}

// Faults apply to DCSA pages as to any answer: 5xx and 429 are free
// ErrorResponses, a cut body is still charged; the same seed gives the
// same faults.
func TestDCSAFaults(t *testing.T) {
	o := loadOpenAPI(t)
	uri := sim.DCSAPrefix + p2pOp + "?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM"
	run := func() string {
		env := dcsaEnv(t, simtest.Options{PageSize: 2, Faults: sim.Faults{ErrorRate: 0.2, TruncateRate: 0.3, BurstRate: 0.05, Seed: 9}})
		var seen []string
		oks := 0
		for i := 0; i < 80; i++ {
			a := get(t, env, "test", uri)
			switch {
			case a.status == 200 && !json.Valid(a.body):
				seen = append(seen, "cut")
				oks++
			case a.status == 200:
				checkDCSA(t, o, p2pOp, uri, a)
				seen = append(seen, "200")
				oks++
			default:
				checkDCSA(t, o, p2pOp, uri, a)
				seen = append(seen, strconv.Itoa(a.status))
			}
		}
		if st := env.Service.Stats(); st.Charged["schedule"] != int64(oks) {
			t.Errorf("%d answers of 200 (cut ones too), %d charged", oks, st.Charged["schedule"])
		}
		return strings.Join(seen, " ")
	}
	a, b := run(), run()
	if a != b {
		t.Fatalf("same seed, different faults:\n%s\n%s", a, b)
	}
	for _, want := range []string{"200", "cut", "429"} {
		if !strings.Contains(a, want) {
			t.Errorf("no %s among %s", want, a)
		}
	}
	if !strings.Contains(a, "500") && !strings.Contains(a, "503") {
		t.Errorf("no 5xx among %s", a)
	}
}

func TestDCSAConfig(t *testing.T) {
	for _, cfg := range []sim.Config{{ScheduleAPI: "dcsa"}, {ScheduleAPI: sim.ScheduleAPIDCSA, PageSize: -1}} {
		if _, err := sim.New(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	for _, api := range []string{"", sim.ScheduleAPIService, sim.ScheduleAPIDCSA} {
		s, err := sim.New(sim.Config{World: simtest.World(sim.WorldConfig{}), ScheduleAPI: api})
		if err != nil {
			t.Fatal(err)
		}
		want := sim.SchedulePrefix
		if api == sim.ScheduleAPIDCSA {
			want = sim.DCSAPrefix
		}
		if s.ScheduleBasePath() != want || (api != "" && s.ScheduleAPI() != api) {
			t.Errorf("%q: base path %s, profile %s", api, s.ScheduleBasePath(), s.ScheduleAPI())
		}
	}
}
