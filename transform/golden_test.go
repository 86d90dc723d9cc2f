package transform_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files (and write the simulator cases that do not exist yet)")

const casesDir = "../testdata/transform"

// meta is a case's meta.json: the response around the body.
type meta struct {
	Endpoint   wire.Endpoint `json:"endpoint"`
	Product    wire.Product  `json:"product"`
	Request    string        `json:"request"`
	Status     int           `json:"status"`
	ObservedAt time.Time     `json:"observed_at"`
	ResponseID string        `json:"response_id"`
}

// testCase is one directory of testdata/transform.
type testCase struct {
	name string
	dir  string
	resp response.Landed
}

// loadCases reads every case: meta.json and body.json (or body.txt, for a
// body that is not JSON).
func loadCases(t testing.TB) []testCase {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(casesDir, "*", "meta.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in %s: %v", casesDir, err)
	}
	var out []testCase
	for _, m := range dirs {
		dir := filepath.Dir(m)
		out = append(out, testCase{name: filepath.Base(dir), dir: dir, resp: loadResponse(t, dir)})
	}
	return out
}

func loadResponse(t testing.TB, dir string) response.Landed {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m meta
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s/meta.json: %v", dir, err)
	}
	body, err := os.ReadFile(filepath.Join(dir, "body.json"))
	if os.IsNotExist(err) {
		body, err = os.ReadFile(filepath.Join(dir, "body.txt"))
	}
	if err != nil {
		t.Fatal(err)
	}
	return response.Landed{ID: m.ResponseID, ObservedAt: m.ObservedAt, Received: response.Received{Product: m.Product, Endpoint: m.Endpoint, Request: m.Request, Status: m.Status, Body: body}}
}

// transformOne runs one response through a fresh batch and renders what
// it yields.
func transformOne(t testing.TB, r response.Landed) (transform.Result, map[string]*table) {
	t.Helper()
	mem := checked(t)
	b := transform.NewBatch(mem)
	defer b.Release()
	res := b.Add(r)
	if got := b.Rows(); got < sum(res) {
		t.Errorf("Rows() = %d after an Add that yielded %d", got, sum(res))
	}
	recs := b.Records()
	defer release(recs)
	if b.Rows() != 0 {
		t.Errorf("Rows() = %d after Records", b.Rows())
	}
	return res, render(t, recs)
}

func sum(res transform.Result) int {
	n := res.DeadLetters
	for _, v := range res.Rows {
		n += v
	}
	return n
}

// expectations are the case-specific facts the goldens must show, checked
// on top of the goldens so that an -update cannot silently bless a wrong
// answer.
var expectations = map[string]func(t *testing.T, res transform.Result, tables map[string]*table){
	"shipment_truncated":  onlyWholeBodyDeadLetter,
	"shipment_no_number":  onlyWholeBodyDeadLetter,
	"shipment_not_object": onlyWholeBodyDeadLetter,
	"unknown_endpoint":    onlyWholeBodyDeadLetter,
	"non_2xx": func(t *testing.T, res transform.Result, tables map[string]*table) {
		if !res.Skipped || len(tables) != 0 || len(res.Rows) != 0 || res.DeadLetters != 0 {
			t.Errorf("non-2xx: result %+v, tables %v, want skipped and nothing", res, names(tables))
		}
	},
	"shipment_envelope": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"locations": 4, "facilities": 1, "vessels": 1, "shipments": 1,
			"eta_observations": 2, "containers": 1, "container_events": 2, "event_observations": 2})
		mustContain(t, tables, "shipments", `"pod_locode":"DEBRV","pod_date":"2026-03-05T14:00:00Z","pod_actual":false,"pod_predictive_eta":null`)
		mustContain(t, tables, "container_events", `"event_code":"GTOT","status":"CEP","description":"Gate out empty","locode":"USHOU"`)
		mustContain(t, tables, "facilities", `"facility_key":"VNSGN:CLT","name":"Cát Lái Terminal"`)
		mustNotContain(t, tables, "eta_observations", `"PREDICTIVE"`)
	},
	"shipment_predictive_postpod": func(t *testing.T, res transform.Result, tables map[string]*table) {
		mustContain(t, tables, "eta_observations", `"target":"POD","source":"PREDICTIVE"`)
		mustContain(t, tables, "eta_observations", `"target":"POSTPOD","source":"CARRIER"`)
		mustContain(t, tables, "shipments", `"shipment_number":"MEDUAB123456","shipment_type":"BL"`)
	},
	"shipment_repeated_events": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"container_events": 3, "event_observations": 3})
		mustContain(t, tables, "container_events", `"occurrence":1`)
	},
	"shipment_bad_records": func(t *testing.T, res transform.Result, tables map[string]*table) {
		// An event without eventCode or eventType loads, its code that of
		// its status (VAT: ARRI); a container without a number does not.
		wantRows(t, tables, map[string]int{"dead_letters": 1, "containers": 1, "container_events": 3})
		mustContain(t, tables, "container_events", `"event_type":"TRANSPORT","event_code":"ARRI","status":"VAT","description":"Something","locode":"LKCMB"`)
		mustContain(t, tables, "container_events", `"event_type":"TRANSPORT","event_code":"ARRI","status":"VAT","description":"Something else","locode":"EGSUZ"`)
		mustContain(t, tables, "dead_letters", `"record":"containers[1]","reason":"container without a number"`)
	},
	"shipment_one_bad_event": func(t *testing.T, res transform.Result, tables map[string]*table) {
		// One event whose date does not read is one dead letter naming it;
		// its siblings and the route's ETAs load.
		wantRows(t, tables, map[string]int{"dead_letters": 1, "shipments": 1, "eta_observations": 3, "containers": 1,
			"container_events": 3, "event_observations": 3})
		mustContain(t, tables, "dead_letters", `"record":"containers[0].events[2].date","reason":"\"01/02/2026 08:00\" is not a date-time`)
		mustContain(t, tables, "dead_letters", `the event is left out`)
		mustNotContain(t, tables, "container_events", `"event_code":"DEPA"`)
		mustContain(t, tables, "eta_observations", `"target":"POD","source":"PREDICTIVE"`)
	},
	"shipment_vendor_shapes": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"dead_letters": 1, "shipments": 1, "eta_observations": 4, "containers": 1,
			"container_events": 4, "event_observations": 4, "vessels": 1})
		// The webhook envelope opened; the number without its separators,
		// the codes and the SCAC in upper case.
		mustContain(t, tables, "shipments", `"shipment_number":"EMCU8593893","shipment_type":"CT","sealine":"MAEU"`)
		mustContain(t, tables, "containers", `"container_number":"EMCU8593893"`)
		mustContain(t, tables, "container_events", `"event_type":"EQUIPMENT","event_code":"LOAD","status":"CLL"`)
		mustContain(t, tables, "container_events", `"route_type":"SEA","transport_type":"VESSEL","vessel_imo":9321483`)
		// Dates without an offset read in the zone of their place, and
		// said so; the place's zone found by its UN/LOCODE elsewhere.
		mustContain(t, tables, "container_events", `"event_at":"2023-12-30T14:15:00Z"`)
		mustContain(t, tables, "eta_observations", `"target":"POL","source":"CARRIER","observed_at":"2024-01-18T12:00:00Z","locode":"CNSHA","eta":"2023-12-30T21:39:00Z","is_actual":true,"response_id":"r-vendor-shapes","observed_date":"2024-01-18","eta_zone_assumed":"Asia/Shanghai"`)
		mustContain(t, tables, "eta_observations", `"target":"POSTPOD","source":"CARRIER","observed_at":"2024-01-18T12:00:00Z","locode":"DEDUI","eta":"2024-01-28T12:00:00Z","is_actual":false,"response_id":"r-vendor-shapes","observed_date":"2024-01-18","eta_zone_assumed":"UTC"`)
		mustContain(t, tables, "shipments", `"updated_at":"2024-01-18T10:00:00Z"`)
		mustContain(t, tables, "shipments", `"updated_at_zone_assumed":"UTC"`)
		// A date with its offset assumes nothing.
		mustContain(t, tables, "container_events", `"event_at":"2024-01-05T00:00:00Z","is_actual":true`)
		// No code sent: that of the status, with its type; isActual null
		// stays NULL; a status of no known code keeps the code NULL.
		mustContain(t, tables, "container_events", `"event_type":"TRANSPORT","event_code":"DEPA","status":"VDL","description":"Vessel departure","locode":"CNSHA","facility_key":null,"event_at":"2023-12-30T21:39:00Z","is_actual":null`)
		mustContain(t, tables, "container_events", `"event_type":null,"event_code":null,"status":"XCI"`)
		mustContain(t, tables, "event_observations", `"is_actual":null`)
		// An event with neither code nor status cannot be told from the
		// next observation's: it is the only dead letter.
		mustContain(t, tables, "dead_letters", `"record":"containers[0].events[4]","reason":"event without eventCode or status`)
	},
	"p2p_transhipment": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"port_calls": 6})
	},
	// Schedules as real providers send them (issue 29): the DCSA
	// standard's example values with lower-case codes, date-times without
	// an offset, IMO numbers with a prefix, as a JSON number and of 8
	// digits. Every call lands, its codes upper case and its naive dates
	// read in the port's zone (DCSA locations name none: that of the
	// country, the Netherlands having one).
	"dcsa_port_schedules_lenient": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"port_calls": 7, "dead_letters": 0, "vessels": 3})
		mustContain(t, tables, "port_calls", `"vessel_imo":9321483,"voyage":"2103S","event_type_code":"ARRI","classifier":"EST"`)
		mustContain(t, tables, "port_calls", `"carrier":"MAEU","service_code":"FE1"`)
		mustContain(t, tables, "port_calls", `"event_at":"2025-01-14T10:00:00Z","response_id":"r-dcsa-port-lenient","observed_date":"2025-01-13","event_at_zone_assumed":"Europe/Amsterdam"`)
		mustContain(t, tables, "port_calls", `"event_at":"2025-01-14T08:21:00Z","response_id":"r-dcsa-port-lenient","observed_date":"2025-01-13","event_at_zone_assumed":null`)
		mustContain(t, tables, "port_calls", `"vessel_imo":23162713`)
		mustContain(t, tables, "port_calls", `"carrier":"CMDU"`)
	},
	// The same with one timestamp whose date does not read: it alone is
	// dead-lettered, with its path; its siblings land.
	"dcsa_port_schedules_one_bad_timestamp": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"port_calls": 6, "dead_letters": 1})
		mustContain(t, tables, "dead_letters", `"record":"[0].vesselSchedules[0].timestamps[2].eventDateTime","reason":"\"14/01/2025 10:45\" is not a date-time`)
		mustContain(t, tables, "port_calls", `"vessel_imo":9321483,"voyage":"2103N","event_type_code":"DEPA","classifier":"PLN"`)
	},
	// A DCSA service schedule sent without its array; naive dates at
	// Rotterdam, Hamburg and Shanghai read in their countries' zones, at
	// Los Angeles (the United States have several) in UTC, flagged.
	"dcsa_vessel_schedule_bare": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"port_calls": 7, "dead_letters": 0})
		for _, want := range []string{
			`"port_locode":"DEHAM","vessel_imo":9321483,"voyage":"2103S","event_type_code":"ARRI","classifier":"PLN"`,
			`"event_at":"2025-01-17T05:00:00Z","response_id":"r-dcsa-vessel-bare","observed_date":"2025-01-13","event_at_zone_assumed":"Europe/Berlin"`,
			`"event_at":"2025-02-19T22:00:00Z","response_id":"r-dcsa-vessel-bare","observed_date":"2025-01-13","event_at_zone_assumed":"Asia/Shanghai"`,
			`"event_at":"2025-03-05T08:00:00Z","response_id":"r-dcsa-vessel-bare","observed_date":"2025-01-13","event_at_zone_assumed":"UTC"`,
		} {
			mustContain(t, tables, "port_calls", want)
		}
		mustContain(t, tables, "facilities", `"facility_key":"CNSHA:SGH4"`)
	},
	// A DCSA routing sent without its array: the leg end whose date does
	// not read is dead-lettered alone, the leg's departure lands.
	"dcsa_p2p_routing_bare": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"port_calls": 3, "dead_letters": 1})
		mustContain(t, tables, "dead_letters", `"record":"legs[1].arrival.dateTime"`)
		mustContain(t, tables, "port_calls", `"port_locode":"NLRTM","vessel_imo":9321483,"voyage":"2103N","event_type_code":"DEPA","classifier":"PLN"`)
		mustContain(t, tables, "port_calls", `"vessel_imo":23162713`)
	},
	// The service profile: codes in lower case, an IMO number with a
	// prefix or written 9839179.0, naive dates read in location.timezone.
	// Dead-lettered: a date that does not read, a classifier that is none
	// of the standard's ("eventClassifierCode … enum: PLN, EST, ACT"), a
	// vessel with no IMO number.
	"port_schedule_lenient": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"port_calls": 4, "dead_letters": 3})
		mustContain(t, tables, "dead_letters", `"record":"vesselSchedules[0].timestamps[3].eventDateTime"`)
		mustContain(t, tables, "dead_letters", `"record":"vesselSchedules[0].timestamps[4]","reason":"timestamp with eventClassifierCode \"planned\": want PLN, EST or ACT"`)
		mustContain(t, tables, "dead_letters", `"record":"vesselSchedules[2]","reason":"vessel schedule without a positive vessel.imo"`)
		mustContain(t, tables, "port_calls", `"event_at":"2026-02-04T18:00:00Z","response_id":"r-port-lenient","observed_date":"2026-02-01","event_at_zone_assumed":"Europe/Amsterdam"`)
		mustContain(t, tables, "port_calls", `"port_locode":"NLRTM","vessel_imo":9832614,"voyage":"345W","event_type_code":"ARRI","classifier":"PLN"`)
		mustContain(t, tables, "facilities", `"facility_key":"NLRTM:APMII","name":"APM Terminals Maasvlakte II","country_code":"NL","locode":"NLRTM","bic_code":"NLRTMAPM2","smdg_code":"APMII"`)
	},
	// A call's place without a zone takes that of the same UN/LOCODE
	// elsewhere in the answer (New York); Valencia, whose country has
	// several zones (the Canaries), and a zone Go does not know are UTC.
	"vessel_schedule_lenient": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"port_calls": 5, "dead_letters": 0})
		mustContain(t, tables, "port_calls", `"event_at":"2026-01-30T09:00:00Z","response_id":"r-vessel-lenient","observed_date":"2026-02-01","event_at_zone_assumed":"America/New_York"`)
		mustContain(t, tables, "port_calls", `"port_locode":"ESVLC","vessel_imo":9321483,"voyage":"FL513E","event_type_code":"ARRI","classifier":"PLN"`)
		mustContain(t, tables, "port_calls", `"event_at":"2026-02-12T06:00:00Z","response_id":"r-vessel-lenient","observed_date":"2026-02-01","event_at_zone_assumed":"UTC"`)
		mustContain(t, tables, "port_calls", `"carrier":"MSCU"`)
	},
	"periods": func(t *testing.T, res transform.Result, tables map[string]*table) {
		wantRows(t, tables, map[string]int{"consumption_periods": 2, "dead_letters": 1})
	},
}

func onlyWholeBodyDeadLetter(t *testing.T, res transform.Result, tables map[string]*table) {
	t.Helper()
	if len(tables) != 1 || tables["dead_letters"] == nil || len(tables["dead_letters"].rows) != 1 ||
		!strings.Contains(tables["dead_letters"].rows[0], `"record":""`) || res.DeadLetters != 1 {
		t.Errorf("want exactly one whole-body dead letter and nothing else, got %v (result %+v)", dump(tables), res)
	}
}

func wantRows(t *testing.T, tables map[string]*table, want map[string]int) {
	t.Helper()
	for name, n := range want {
		got := 0
		if tables[name] != nil {
			got = len(tables[name].rows)
		}
		if got != n {
			t.Errorf("%s: %d rows, want %d:\n%s", name, got, n, dump(map[string]*table{name: tables[name]}))
		}
	}
}

func mustContain(t *testing.T, tables map[string]*table, name, fragment string) {
	t.Helper()
	if tables[name] == nil || !strings.Contains(strings.Join(tables[name].rows, "\n"), fragment) {
		t.Errorf("%s: no row contains %s:\n%s", name, fragment, dump(map[string]*table{name: tables[name]}))
	}
}

func mustNotContain(t *testing.T, tables map[string]*table, name, fragment string) {
	t.Helper()
	if tables[name] != nil && strings.Contains(strings.Join(tables[name].rows, "\n"), fragment) {
		t.Errorf("%s: a row contains %s", name, fragment)
	}
}

func names(tables map[string]*table) []string {
	var out []string
	for n := range tables {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func dump(tables map[string]*table) string {
	var b strings.Builder
	for _, n := range names(tables) {
		b.WriteString(n + ":\n")
		if tables[n] != nil {
			for _, r := range tables[n].rows {
				b.WriteString("  " + r + "\n")
			}
		}
	}
	return b.String()
}

// TestGolden transforms every case of testdata/transform alone in a batch
// and compares each table's rows with golden/<table>.jsonl; a table
// without rows has no golden file.
func TestGolden(t *testing.T) {
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			res, tables := transformOne(t, c.resp)
			for name, tb := range tables {
				n := res.Rows[name]
				if name == schema.DeadLetters.Name {
					n = res.DeadLetters
				}
				if n != len(tb.rows) {
					t.Errorf("%s: Result counts %d rows, the record has %d", name, n, len(tb.rows))
				}
			}
			if dl := tables["dead_letters"]; dl != nil && strings.Contains(strings.Join(dl.rows, "\n"), `"record":""`) && len(tables) > 1 {
				t.Errorf("a whole-body dead letter with other rows: %v", names(tables))
			}
			if check := expectations[c.name]; check != nil {
				check(t, res, tables)
			}
			compareGolden(t, filepath.Join(c.dir, "golden"), tables)
		})
	}
}

func compareGolden(t *testing.T, dir string, tables map[string]*table) {
	t.Helper()
	for _, tbl := range schema.Tables {
		path := filepath.Join(dir, tbl.Name+".jsonl")
		var got string
		if tb := tables[tbl.Name]; tb != nil {
			got = strings.Join(tb.rows, "\n") + "\n"
		}
		if *update {
			if got == "" {
				if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			if got != "" {
				t.Errorf("%s: %d rows but no golden file (run with -update)\n%s", tbl.Name, len(tables[tbl.Name].rows), got)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s (run with -update to accept)\n--- got\n%s--- want\n%s", tbl.Name, path, got, want)
		}
	}
}
