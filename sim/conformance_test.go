package sim_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/fakeclock"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// answer is one raw exchange with the simulator.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func get(t *testing.T, env *simtest.Env, key, path string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.Server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header["API_KEY"] = []string{key}
	}
	resp, err := env.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// checkErrorBody asserts service.md §7: exactly errorCode, message, details
// (an array), time (ISO 8601 UTC), errorCode equal to the status.
func checkErrorBody(t *testing.T, a answer) {
	t.Helper()
	if a.status == http.StatusNotFound && strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
		checkNoRoute(t, a)
		return
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(a.body, &members); err != nil {
		t.Fatalf("error body %q: %v", a.body, err)
	}
	var names []string
	for k := range members {
		names = append(names, k)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "details,errorCode,message,time" {
		t.Errorf("error body members = %v, want exactly errorCode, message, details, time", names)
	}
	var body struct {
		ErrorCode int       `json:"errorCode"`
		Message   string    `json:"message"`
		Details   []any     `json:"details"`
		Time      time.Time `json:"time"`
	}
	if err := json.Unmarshal(a.body, &body); err != nil {
		t.Fatalf("error body %s: %v", a.body, err)
	}
	if body.ErrorCode != a.status || body.Message == "" || body.Details == nil || body.Time.IsZero() || body.Time.Location() != time.UTC {
		t.Errorf("error body %s for status %d", a.body, a.status)
	}
}

func TestServiceRules(t *testing.T) {
	world := simtest.World(sim.WorldConfig{})
	start := world.Config().Start
	port := simtest.Port(t, world, start)
	ref := world.Shipments()[0]
	keys := []sim.KeySpec{
		{Key: "good", Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)},
		{Key: "broke", Schedule: simtest.Credits(0), Tracking: simtest.Credits(0)},
		{Key: "schedonly", Schedule: simtest.Credits(100)},
		{Key: "old", Schedule: simtest.Credits(100), Tracking: simtest.Credits(100), Expires: start.Add(-time.Hour)},
	}
	S, T := sim.SchedulePrefix, sim.TrackingPrefix
	cases := []struct {
		rule   string
		key    string
		path   string
		status int
	}{
		{"§5.1 a request without API_KEY is refused", "", S + "/schedule/" + port, 401},
		{"§5.2 an invalid key is refused", "nobody", S + "/schedule/" + port, 401},
		{"§5.2 an expired key is refused", "old", S + "/schedule/" + port, 401},
		{"§5.2 a key without the product is refused", "schedonly", T + "/shipment?shipmentNumber=" + ref.Number + "&shipmentType=" + string(ref.Type), 403},
		{"§2.3 a port code of 4 characters is 400", "good", S + "/schedule/NLRT", 400},
		{"§2.3 a port code of 6 characters is 400", "good", S + "/schedule/NLRTMX", 400},
		{"§2.3 a port code with a dash is 400", "good", S + "/schedule/NL-RT", 400},
		{"schedules.md: a bad port in a pair is 400", "good", S + "/schedule/CNSHA/NLRT", 400},
		{"schedules.md: an IMO with a bad check digit is 400", "good", S + "/schedule/vessel/9074728", 400},
		{"schedules.md: an IMO with a sign is 400", "good", S + "/schedule/vessel/+9074729", 400},
		{"schedules.md: a bad departure date is 400", "good", S + "/schedule/CNSHA/NLRTM?departureStartDate=tomorrow", 400},
		{"tracking: a shipment number is required", "good", T + "/shipment", 400},
		{"tracking: an unknown shipment type is 400", "good", T + "/shipment?shipmentNumber=MAEU1&shipmentType=XX", 400},
		{"tracking: a sealine that is not a SCAC is 400", "good", T + "/shipment?shipmentNumber=" + ref.Number + "&sealine=MAERSK", 400},
		{"§4 no schedule data is 404", "good", S + "/schedule/ZZ999", 404},
		{"schedules.md: an unknown vessel is 404", "good", S + "/schedule/vessel/9074729", 404},
		{"tracking: an unknown shipment is 404", "good", T + "/shipment?shipmentNumber=CSQU3054383&shipmentType=CT", 404},
		{"tracking: a number's shape is not the service's to check: 404", "good", T + "/shipment?shipmentNumber=CSQU3054384", 404},
		{"§7.2 at quota a paid call is 403 before processing", "broke", S + "/schedule/ZZ999", 403},
		{"§7.2 at quota a paid shipment call is 403", "broke", T + "/shipment?shipmentNumber=" + ref.Number, 403},
		// A path no product serves is a web server's 404 (checkNoRoute),
		// not the product's "no data".
		{"§9 another version is not served", "good", "/schedule/api/v2/schedule/" + port, 404},
		{"§8 consumption calls succeed at quota", "broke", S + "/consumption/current-period", 200},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			env := simtest.Start(t, simtest.Options{Keys: keys})
			before := map[string]int64{}
			for _, k := range keys {
				for _, p := range wire.Products {
					if n, ok := env.Service.Balance(k.Key, p); ok {
						before[k.Key+string(p)] = n
					}
				}
			}
			a := get(t, env, tc.key, tc.path)
			if a.status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.status, tc.status, a.body)
			}
			if a.status >= 400 {
				checkErrorBody(t, a)
			}
			// §7.1: failed calls, and consumption calls, are free.
			for _, k := range keys {
				for _, p := range wire.Products {
					if n, ok := env.Service.Balance(k.Key, p); ok && n != before[k.Key+string(p)] {
						t.Errorf("%s %s balance moved %d → %d", k.Key, p, before[k.Key+string(p)], n)
					}
				}
			}
			if d, err := http.ParseTime(a.header.Get("Date")); err != nil || !d.Equal(start.Truncate(time.Second)) {
				t.Errorf("Date %q, want the virtual clock %v", a.header.Get("Date"), start)
			}
			if tc.key != "" && strings.Contains(string(a.body), tc.key) {
				t.Errorf("the body echoes the key: %s", a.body)
			}
		})
	}
}

func TestServiceChargesOneCreditPerSuccessfulPaidCall(t *testing.T) {
	env := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: "k", Schedule: simtest.Credits(3), Tracking: simtest.Credits(3)}}})
	world, start := env.Service.World(), env.Service.World().Config().Start
	port := simtest.Port(t, world, start)
	for i := 1; i <= 3; i++ {
		if a := get(t, env, "k", sim.SchedulePrefix+"/schedule/"+port); a.status != 200 {
			t.Fatalf("call %d: %d %s", i, a.status, a.body)
		}
		if n, _ := env.Service.Balance("k", wire.ProductSchedule); n != int64(3-i) {
			t.Fatalf("after %d calls balance %d", i, n)
		}
		// Consumption calls never move it.
		a := get(t, env, "k", sim.SchedulePrefix+"/consumption/current-period")
		var p wire.ConsumptionPeriod
		if err := json.Unmarshal(a.body, &p); err != nil || *p.Credits != int64(3-i) || *p.CreditsInitial != 3 {
			t.Fatalf("current period after %d calls: %s", i, a.body)
		}
	}
	a := get(t, env, "k", sim.SchedulePrefix+"/schedule/"+port)
	if a.status != 403 {
		t.Fatalf("4th paid call: %d, want 403", a.status)
	}
	if n, _ := env.Service.Balance("k", wire.ProductTracking); n != 3 {
		t.Errorf("tracking credits moved to %d: the products are independent", n)
	}

	// A new month is a new period; the old one is history, expired, with
	// what was charged.
	env.Service.Clock().Set(time.Date(start.Year(), start.Month()+1, 2, 0, 0, 0, 0, time.UTC))
	if a := get(t, env, "k", sim.SchedulePrefix+"/schedule/"+port); a.status != 200 && a.status != 404 {
		t.Fatalf("first call of the new period: %d %s", a.status, a.body)
	}
	var periods []wire.ConsumptionPeriod
	if err := json.Unmarshal(get(t, env, "k", sim.SchedulePrefix+"/consumption/periods").body, &periods); err != nil {
		t.Fatal(err)
	}
	if len(periods) != 2 || !*periods[0].Expired || *periods[0].Credits != 0 || *periods[1].Expired {
		t.Fatalf("periods = %s", mustJSON(periods))
	}
}

func TestServiceRateLimitPerKey(t *testing.T) {
	clk := fakeclock.New(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
	env := simtest.Start(t, simtest.Options{
		Now:  clk.Now,
		Keys: []sim.KeySpec{{Key: "a", Schedule: simtest.Credits(0), Tracking: simtest.Credits(0)}, {Key: "b", Schedule: simtest.Credits(5)}},
		Rate: sim.Rate{N: 10, Window: 10 * time.Second},
	})
	path := sim.SchedulePrefix + "/consumption/current-period"
	for i := 0; i < 10; i++ {
		if a := get(t, env, "a", path); a.status != 200 {
			t.Fatalf("request %d: %d", i+1, a.status)
		}
		clk.Advance(100 * time.Millisecond)
	}
	a := get(t, env, "a", path)
	if a.status != 429 {
		t.Fatalf("11th request inside 10 s: %d, want 429", a.status)
	}
	checkErrorBody(t, a)
	// 429 and 403 are independent: the broke key is rate limited first…
	if a := get(t, env, "a", sim.SchedulePrefix+"/schedule/NLRTM"); a.status != 429 {
		t.Errorf("paid call over the rate: %d, want 429", a.status)
	}
	// …another key is not,
	if a := get(t, env, "b", path); a.status != 200 {
		t.Errorf("other key: %d, want 200", a.status)
	}
	// and once the first request leaves the window, one more goes.
	clk.Advance(10*time.Second - 950*time.Millisecond)
	if a := get(t, env, "a", path); a.status != 200 {
		t.Errorf("after the window: %d, want 200", a.status)
	}
	if a := get(t, env, "a", sim.SchedulePrefix+"/schedule/NLRTM"); a.status != 429 {
		t.Errorf("%d, want 429: only one slot freed", a.status)
	}
	clk.Advance(time.Second)
	if a := get(t, env, "a", sim.SchedulePrefix+"/schedule/NLRTM"); a.status != 403 {
		t.Errorf("broke key under the rate: %d, want 403", a.status)
	}
	if st := env.Service.Stats(); st.PeakInWindow[sim.KeyID("a")] != 10 {
		t.Errorf("peak in window = %v, want 10", st.PeakInWindow)
	}
}

func TestServiceFaultsAreDeterministic(t *testing.T) {
	run := func() []int {
		env := simtest.Start(t, simtest.Options{Faults: sim.Faults{ErrorRate: 0.3, BurstRate: 0.1, Seed: 42}, Rate: sim.Rate{N: 1000, Window: time.Second}})
		var statuses []int
		for i := 0; i < 40; i++ {
			statuses = append(statuses, get(t, env, "test", sim.SchedulePrefix+"/consumption/current-period").status)
		}
		return statuses
	}
	a, b := run(), run()
	if mustJSON(a) != mustJSON(b) {
		t.Fatalf("same seed, different faults:\n%v\n%v", a, b)
	}
	if !strings.Contains(mustJSON(a), "200") || (!strings.Contains(mustJSON(a), "500") && !strings.Contains(mustJSON(a), "503")) {
		t.Fatalf("faults did not fire: %v", a)
	}
}

func TestParseKeySpec(t *testing.T) {
	k, err := sim.ParseKeySpec("demo:500:-:2026-03-01")
	if err != nil || *k.Schedule != 500 || k.Tracking != nil || !k.Expires.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("%+v, %v", k, err)
	}
	if k, err := sim.ParseKeySpec("k:1:2:2026-03-01T10:00:00Z"); err != nil || k.Expires.Hour() != 10 {
		t.Fatalf("RFC 3339 expiry: %+v, %v", k, err)
	}
	for _, bad := range []string{"secretkey", "secretkey:1", "secretkey:x:1", "secretkey:1:-2", ":1:1", "secretkey:1:1:someday"} {
		_, err := sim.ParseKeySpec(bad)
		if err == nil {
			t.Errorf("ParseKeySpec(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "secretkey") {
			t.Errorf("error %q echoes the key", err)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// checkNoRoute asserts that a is a web server's 404 for a path no product
// serves: plain text, neither the service's error body nor a DCSA
// ErrorResponse, so that a client cannot take it for a product's "no
// data" (a wrong base URL must not pass as an empty answer).
func checkNoRoute(t *testing.T, a answer) {
	t.Helper()
	if a.status != http.StatusNotFound || !strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") || !strings.HasPrefix(string(a.body), "404 page not found") {
		t.Errorf("a path no product serves: %d %q %q, want a plain 404", a.status, a.header.Get("Content-Type"), a.body)
	}
	if json.Valid(a.body) {
		t.Errorf("a path no product serves answers JSON %s: a client could take it for a product's answer", a.body)
	}
}
