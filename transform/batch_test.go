package transform_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// run adds the responses to one batch and renders its records.
func run(t *testing.T, rs ...response.Landed) map[string]*table {
	t.Helper()
	b := transform.NewBatch(checked(t))
	defer b.Release()
	for _, r := range rs {
		b.Add(r)
	}
	recs := b.Records()
	defer release(recs)
	return render(t, recs)
}

var t0 = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

// shipmentResponse is a one-container tracking response of MSCU1234566
// whose pod ETA, event date and location name vary.
func shipmentResponse(rid string, at time.Time, eta, placeName string) response.Landed {
	body := fmt.Sprintf(`{"metadata":{"shipmentNumber":"MSCU1234566","shipmentType":"CT","sealine":"MSCU"},
 "route":{"pod":{"location":{"name":%q,"locode":"DEBRV"},"date":%q,"actual":false,"predictiveEta":null}},
 "containers":[{"number":"MSCU1234566","isoCode":"45G1","status":"IN_TRANSIT","events":[
  {"location":{"name":%q,"locode":"DEBRV"},"eventType":"TRANSPORT","eventCode":"ARRI","status":"VAD",
   "date":%q,"isActual":false,"vessel":{"name":"MSC ÉLOISE","imo":9321483},"voyage":"FL512W"}]}]}`,
		placeName, eta, placeName, eta)
	return response.Landed{ID: rid, ObservedAt: at, Received: response.Received{Product: wire.ProductTracking, Endpoint: wire.EndpointShipment, Request: "/container-tracking/api/v2/shipment?ais=false&route=true&shipmentNumber=MSCU1234566&shipmentType=CT", Status: 200, Body: []byte(body)}}
}

func TestBufferColumnsFollowSchema(t *testing.T) {
	cols := transform.BufferColumns(transform.NewBatch(checked(t)))
	if len(cols) != len(schema.Derived()) {
		t.Errorf("a batch writes %d tables, want every derived table: %v", len(cols), cols)
	}
	for name, got := range cols {
		tbl, ok := schema.ByName(name)
		if !ok {
			t.Fatalf("unknown table %s", name)
		}
		if want := tbl.ColumnNames(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s fills columns\n%v\nwant\n%v", name, got, want)
		}
	}
}

func TestLatestAndDimensionRowsKeepTheNewestObservation(t *testing.T) {
	early := shipmentResponse("rid-b", t0, "2026-03-05T14:00:00Z", "Bremerhaven")
	late := shipmentResponse("rid-a", t0.Add(24*time.Hour), "2026-03-06T08:00:00Z", "Bremerhaven (Bremen)")
	for _, order := range [][]response.Landed{{early, late}, {late, early}, {early, late, early, late}} {
		tables := run(t, order...)
		wantRows(t, tables, map[string]int{"shipments": 1, "containers": 1, "container_events": 1, "locations": 1,
			"eta_observations": 2, "event_observations": 2})
		mustContain(t, tables, "shipments", `"pod_date":"2026-03-06T08:00:00Z"`)
		mustContain(t, tables, "shipments", `"first_observed_at":"2026-02-01T12:00:00Z","last_observed_at":"2026-02-02T12:00:00Z","response_id":"rid-a","first_observed_date":"2026-02-01"`)
		mustContain(t, tables, "container_events", `"event_at":"2026-03-06T08:00:00Z"`)
		mustContain(t, tables, "locations", `"name":"Bremerhaven (Bremen)"`)
		mustContain(t, tables, "locations", `"first_seen_at":"2026-02-01T12:00:00Z","last_seen_at":"2026-02-02T12:00:00Z"`)
	}
}

func TestTiesBetweenResponses(t *testing.T) {
	a := shipmentResponse("rid-a", t0, "2026-03-05T14:00:00Z", "A")
	b := shipmentResponse("rid-b", t0, "2026-03-06T14:00:00Z", "B")
	for _, order := range [][]response.Landed{{a, b}, {b, a}} {
		tables := run(t, order...)
		// Latest and dimension: the greater response_id.
		mustContain(t, tables, "shipments", `"pod_date":"2026-03-06T14:00:00Z"`)
		mustContain(t, tables, "locations", `"name":"B"`)
		// Append: one row per key, the smaller response_id.
		wantRows(t, tables, map[string]int{"eta_observations": 1, "event_observations": 1})
		mustContain(t, tables, "eta_observations", `"eta":"2026-03-05T14:00:00Z","is_actual":false,"response_id":"rid-a"`)
		mustContain(t, tables, "event_observations", `"response_id":"rid-a"`)
	}
}

// The result of a batch does not depend on the order of its responses, and
// a response added twice changes nothing.
func TestBatchIsOrderIndependent(t *testing.T) {
	var rs []response.Landed
	for _, c := range loadCases(t) {
		rs = append(rs, c.resp)
	}
	for i := 0; i < 3; i++ {
		at := t0.Add(time.Duration(i) * 36 * time.Hour)
		rs = append(rs, shipmentResponse(fmt.Sprintf("rid-%d", 3-i), at, at.Add(240*time.Hour).Format(time.RFC3339), fmt.Sprint("Name ", i)))
	}
	want := dump(run(t, rs...))
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 5; i++ {
		shuffled := append([]response.Landed(nil), rs...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		shuffled = append(shuffled, shuffled[:len(shuffled)/2]...)
		// Rows appear in first-put order; compare them as sets.
		if got := dump(run(t, shuffled...)); sorted(got) != sorted(want) {
			t.Fatalf("order %d changes the rows:\n%s", i, lineDiff(sorted(got), sorted(want)))
		}
	}
}

func sorted(s string) string {
	lines := strings.Split(s, "\n")
	sortStrings(lines)
	return strings.Join(lines, "\n")
}

func TestRecordsEmptiesTheBatchForReuse(t *testing.T) {
	b := transform.NewBatch(checked(t))
	defer b.Release()
	b.Add(shipmentResponse("r1", t0, "2026-03-05T14:00:00Z", "A"))
	if b.Rows() == 0 {
		t.Fatal("no rows buffered")
	}
	first := b.Records()
	release(first)
	if b.Rows() != 0 || len(b.Records()) != 0 {
		t.Fatalf("batch not empty after Records: %d rows", b.Rows())
	}
	res := b.Add(shipmentResponse("r2", t0.Add(time.Hour), "2026-03-05T15:00:00Z", "B"))
	recs := b.Records()
	defer release(recs)
	tables := render(t, recs)
	for name, tb := range tables {
		if len(tb.rows) != res.Rows[name] {
			t.Errorf("%s: %d rows, the Add yielded %d", name, len(tb.rows), res.Rows[name])
		}
		if strings.Contains(strings.Join(tb.rows, ""), `"r1"`) {
			t.Errorf("%s: a row of the first batch came back", name)
		}
	}
}

func TestReleaseDropsWhatIsBuffered(t *testing.T) {
	b := transform.NewBatch(checked(t))
	b.Add(shipmentResponse("r1", t0, "2026-03-05T14:00:00Z", "A"))
	b.Release()
	if b.Rows() != 0 {
		t.Fatalf("%d rows after Release", b.Rows())
	}
}

func TestNon2xxIsSkipped(t *testing.T) {
	for _, status := range []int{100, 199, 300, 304, 400, 401, 403, 404, 429, 500, 503} {
		r := shipmentResponse("r", t0, "2026-03-05T14:00:00Z", "A")
		r.Status = status
		b := transform.NewBatch(checked(t))
		res := b.Add(r)
		if !res.Skipped || len(res.Rows) != 0 || res.DeadLetters != 0 || b.Rows() != 0 {
			t.Errorf("status %d: %+v, %d rows", status, res, b.Rows())
		}
		b.Release()
	}
}

// A quarantined response is one dead letter of its whole body, with the
// reason given, and nothing else: its body is not read, so a body that
// would derive rows derives none.
func TestQuarantineIsOneDeadLetterAndNothingElse(t *testing.T) {
	b := transform.NewBatch(checked(t))
	defer b.Release()
	r := shipmentResponse("r1", t0, "2026-03-05T14:00:00Z", "A")
	res := b.Quarantine(r, "too large")
	if res.DeadLetters != 1 || len(res.Rows) != 0 || b.Rows() != 1 {
		t.Fatalf("Quarantine: %+v, %d rows buffered; want one dead letter and nothing else", res, b.Rows())
	}
	recs := b.Records()
	defer release(recs)
	got := render(t, recs)
	if len(got) != 1 || got["dead_letters"] == nil {
		t.Fatalf("%d tables; want dead_letters alone", len(got))
	}
	if s := fmt.Sprint(got["dead_letters"].rows); !strings.Contains(s, "r1") || !strings.Contains(s, "too large") {
		t.Errorf("dead letter %s; want response r1 and the reason", s)
	}
}

// event is a tracking response with one event, for event key tests.
type event struct {
	container, typ, code, status, locode, voyage, date, desc string
	imo                                                      int
	actual                                                   bool
}

func (e event) response() response.Landed {
	body := fmt.Sprintf(`{"containers":[{"number":%q,"events":[{"location":{"locode":%q},"eventType":%q,"eventCode":%q,
 "status":%q,"date":%q,"isActual":%v,"description":%q,"vessel":{"imo":%d},"voyage":%q}]}]}`,
		e.container, e.locode, e.typ, e.code, e.status, e.date, e.actual, e.desc, e.imo, e.voyage)
	return response.Landed{ID: "r", ObservedAt: t0, Received: response.Received{Endpoint: wire.EndpointShipment, Product: wire.ProductTracking, Request: "/container-tracking/api/v2/shipment?shipmentNumber=X", Status: 200, Body: []byte(body)}}
}

// TestEventKeyIsTheIdentity pins the event key: it is stored in the
// warehouse, so a change of its encoding is a migration. It is made of
// what does not change about an event (the container, the code, the
// place), never of what carriers fill in or correct later.
func TestEventKeyIsTheIdentity(t *testing.T) {
	base := event{container: "MSCU1234566", typ: "TRANSPORT", code: "ARRI", status: "VAD", locode: "DEBRV",
		voyage: "FL512W", imo: 9321483, date: "2026-03-05T14:00:00Z", desc: "Arrival"}
	key := func(e event) string {
		tables := run(t, e.response())
		row := tables["container_events"].rows[0]
		i := strings.Index(row, `"event_key":"`) + len(`"event_key":"`)
		return row[i : i+32]
	}
	// The documented encoding: the container, C and the code, the place,
	// each field as its length then its bytes; then the occurrence;
	// SHA-256, 32 hex digits.
	field := func(f string) []byte { return append([]byte{byte(len(f))}, f...) }
	enc := append(append(append(field("MSCU1234566"), 'C'), field("ARRI")...), field("DEBRV")...)
	sum := sha256.Sum256(append(enc, 0))
	pinned := hex.EncodeToString(sum[:16])
	if got := key(base); got != pinned {
		t.Errorf("event key of the base event = %s, want %s: the encoding changed", got, pinned)
	}
	same := map[string]func(e *event){
		"date":        func(e *event) { e.date = "2026-03-07T00:00:00Z" },
		"actual":      func(e *event) { e.actual = true },
		"description": func(e *event) { e.desc = "Vessel arrived" },
		"vessel":      func(e *event) { e.imo = 9839179 },
		"no vessel":   func(e *event) { e.imo = 0 },
		"voyage":      func(e *event) { e.voyage = "FL513W" },
		"type":        func(e *event) { e.typ = "" },
		"status":      func(e *event) { e.status = "VAT" }, // a transhipment's arrival, or the POD's: the code tells
		"no code":     func(e *event) { e.code, e.typ = "", "" },
		"spelling":    func(e *event) { e.code, e.locode, e.container = " arri", "debrv", "MSCU-123456 6" },
	}
	other := map[string]func(e *event){
		"container": func(e *event) { e.container = "MSCU7654321" },
		"code":      func(e *event) { e.code = "DEPA" },
		"locode":    func(e *event) { e.locode = "NLRTM" },
		"no locode": func(e *event) { e.locode = "" },
		// Field boundaries are unambiguous: moving a character from one
		// field to the next is another identity.
		"boundary": func(e *event) { e.code, e.locode = "ARRID", "EBRV" },
		// Without a code known, the status identifies the event, apart
		// from any code.
		"status without a code": func(e *event) { e.code, e.status = "", "ARRI" },
	}
	for name, change := range same {
		e := base
		change(&e)
		if got := key(e); got != pinned {
			t.Errorf("changing the %s changed the key", name)
		}
	}
	for name, change := range other {
		e := base
		change(&e)
		if got := key(e); got == pinned {
			t.Errorf("changing the %s kept the key", name)
		}
	}
}

func TestFacilityKey(t *testing.T) {
	cases := []struct {
		name, facility, want string
	}{
		{"locode and smdg", `{"name":"X","countryCode":"NL","locode":"NLRTM","bicCode":"NLRTMAPM2","smdgCode":"APMII"}`, "NLRTM:APMII"},
		{"bic with locode", `{"name":"X","countryCode":"NL","locode":"NLRTM","bicCode":"NLRTMAPM2","smdgCode":null}`, "NLRTM:NLRTMAPM2"},
		{"bic without locode", `{"name":"X","countryCode":"NL","locode":null,"bicCode":"NLRTMAPM2","smdgCode":"APMII"}`, "NL:NLRTMAPM2"},
		{"name", `{"name":"  Euromax \t terminal  ","countryCode":"NL","locode":"NLRTM"}`, "NLRTM:EUROMAX TERMINAL"},
		{"name without locode", `{"name":"Cát Lái","countryCode":"VN","locode":null,"bicCode":"","smdgCode":""}`, "VN:CÁT LÁI"},
		{"smdg without locode or name", `{"name":"","countryCode":"VN","smdgCode":"CLT"}`, "VN:CLT"},
		{"nothing", `{"name":"  ","countryCode":"VN"}`, "null"},
		{"null", `null`, "null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"location":{"locode":"NLRTM"},"vesselSchedules":[{"carrierCode":"MAEU","vessel":{"imo":9321483},
 "facility":%s,"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-02-03T06:00:00Z"}]}]}`, c.facility)
			tables := run(t, response.Landed{ID: "r", ObservedAt: t0, Received: response.Received{Endpoint: wire.EndpointPortSchedule, Product: wire.ProductSchedule, Request: "/schedule/api/v1/schedule/NLRTM", Status: 200, Body: []byte(body)}})
			want := `"facility_key":` + jsonString(c.want)
			if c.want == "null" {
				want = `"facility_key":null`
				if tables["facilities"] != nil {
					t.Errorf("a facility row for %s", c.facility)
				}
			} else {
				mustContain(t, tables, "facilities", want)
			}
			mustContain(t, tables, "port_calls", want)
		})
	}
}

// lineDiff lists the lines only in got (+) and only in want (-).
func lineDiff(got, want string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var b strings.Builder
	for l := range g {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	for l := range w {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	return b.String()
}

// One container tracked under its own number and under its bill of lading
// in one batch: one container_events row per shipment number, the same
// event key, and one event observation per key and time (the smaller
// response_id's).
func TestOneContainerUnderTwoShipments(t *testing.T) {
	ct := shipmentResponse("rid-ct", t0, "2026-03-05T14:00:00Z", "Bremerhaven")
	bl := shipmentResponse("rid-bl", t0, "2026-03-05T14:00:00Z", "Bremerhaven")
	bl.Request = "/container-tracking/api/v2/shipment?ais=false&route=true&shipmentNumber=MEDUAB123456&shipmentType=BL"
	tables := run(t, ct, bl)
	wantRows(t, tables, map[string]int{"shipments": 2, "containers": 2, "container_events": 2, "event_observations": 1})
	ev := tables["container_events"].rows
	key := func(row string) string { i := strings.Index(row, `"event_key"`); return row[i : i+46] }
	if key(ev[0]) != key(ev[1]) {
		t.Errorf("the same event has two keys: %s, %s", key(ev[0]), key(ev[1]))
	}
	mustContain(t, tables, "event_observations", `"shipment_number":"MEDUAB123456"`)
}

// Strings from the request and reasons quoting the body are VARCHARs:
// bytes that are not UTF-8 become U+FFFD (checkRecords checks UTF-8).
func TestBytesThatAreNotUTF8(t *testing.T) {
	r := shipmentResponse("r", t0, "2026-03-05T14:00:00Z", "A")
	r.Body = []byte(`{"containers":[]}`)
	r.Request = "/container-tracking/api/v2/shipment?shipmentNumber=AB%FFC&sealine=%C3"
	mustContain(t, run(t, r), "shipments", `"shipment_number":"AB`+"\uFFFD"+`C","shipment_type":"CT","sealine":"`+"\uFFFD"+`"`)
	p := response.Landed{ID: "r", ObservedAt: t0, Received: response.Received{Product: wire.ProductSchedule, Endpoint: wire.EndpointCurrentPeriod, Status: 200, Body: []byte("{\"credits\":1,\"periodStart\":\"\xa9\"}")}}
	mustContain(t, run(t, p), "dead_letters", "\uFFFD")
	port := response.Landed{ID: "r", ObservedAt: t0, Received: response.Received{Product: wire.ProductSchedule, Endpoint: wire.EndpointPortSchedule, Request: "/schedule/api/v1/schedule/NL%FFM", Status: 200, Body: []byte(`{"location":null,"vesselSchedules":[{"carrierCode":"MAEU","vessel":{"imo":9321483},"timestamps":[{"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2026-02-03T06:00:00Z"}]}]}`)}}
	mustContain(t, run(t, port), "port_calls", `"port_locode":"NL`+"\uFFFD"+`M"`)
}

// placeResponse is a tracking response of MSCU1234566 observed at at whose
// pod is named by route (the route's location) and event (the event's).
func placeResponse(rid string, at time.Time, route, event string) response.Landed {
	r := shipmentResponse(rid, at, "2026-03-05T14:00:00Z", "X")
	body := strings.Replace(string(r.Body), `{"name":"X","locode":"DEBRV"}`, route, 1)
	r.Body = []byte(strings.Replace(body, `{"name":"X","locode":"DEBRV"}`, event, 1))
	return r
}

// Observations of a place that give different details — a rich one, a
// later one giving its name and (in its event only) its state, the latest
// renaming it — are buffered as the rows the loader needs to keep every
// detail from the latest observation giving it, whatever the order of the
// responses and however often one comes again: the latest with its values
// and the first observation of all, and each older one with what no later
// one gives.
func TestADimensionKeepsWhatALaterObservationLeavesOut(t *testing.T) {
	rich := placeResponse("rid-c", t0, `{"name":"Bremerhaven","locode":"DEBRV","country":"Germany","timezone":"Europe/Berlin"}`,
		`{"name":"Bremerhaven","locode":"DEBRV","country":"Germany","timezone":"Europe/Berlin"}`)
	poorer := placeResponse("rid-b", t0.Add(time.Hour), `{"name":"Bremerhaven","locode":"DEBRV"}`, `{"locode":"DEBRV","state":"Bremen"}`)
	renamed := placeResponse("rid-a", t0.Add(2*time.Hour), `{"name":"Bremerhaven (Bremen)","locode":"DEBRV"}`,
		`{"name":"Bremerhaven (Bremen)","locode":"DEBRV"}`)
	rs := []response.Landed{rich, poorer, renamed}
	var want string
	for _, p := range [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}, {2, 1, 0, 1, 2, 0}} {
		var order []response.Landed
		for _, i := range p {
			order = append(order, rs[i])
		}
		tables := run(t, order...)
		got := sorted(dump(map[string]*table{"locations": tables["locations"]}))
		if want == "" {
			want = got
			wantRows(t, tables, map[string]int{"locations": 3})
			mustContain(t, tables, "locations", `"name":"Bremerhaven (Bremen)","state":null,"country":null,"country_code":null,"lat":null,"lng":null,"timezone":null,"first_seen_at":"2026-02-01T12:00:00Z","last_seen_at":"2026-02-01T14:00:00Z","response_id":"rid-a"`)
			mustContain(t, tables, "locations", `"name":null,"state":"Bremen","country":null,"country_code":null,"lat":null,"lng":null,"timezone":null,"first_seen_at":"2026-02-01T13:00:00Z","last_seen_at":"2026-02-01T13:00:00Z","response_id":"rid-b"`)
			mustContain(t, tables, "locations", `"name":null,"state":null,"country":"Germany","country_code":null,"lat":null,"lng":null,"timezone":"Europe/Berlin","first_seen_at":"2026-02-01T12:00:00Z","last_seen_at":"2026-02-01T12:00:00Z","response_id":"rid-c"`)
		} else if got != want {
			t.Errorf("order %v changes the rows:\n%s", p, lineDiff(got, want))
		}
	}
}
