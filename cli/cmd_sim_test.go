package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
)

// serveSim runs `etalake sim serve ARGS` in-process until the test ends and
// returns the first line it prints.
func serveSim(t *testing.T, args ...string) string {
	t.Helper()
	for _, name := range []string{"ETALAKE_SCHEDULE_API", "ETALAKE_AUTH"} {
		t.Setenv(name, "")
		if err := os.Unsetenv(name); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	app := newApp()
	app.Writer, app.ErrWriter = w, io.Discard
	done := make(chan error, 1)
	go func() {
		err := app.RunContext(ctx, append([]string{"etalake", "sim", "serve", "--addr", "127.0.0.1:0", "--speed", "0"}, args...))
		w.CloseWithError(io.EOF)
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sim serve: %v", err)
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("sim serve printed %q: %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return strings.TrimSpace(line)
}

// exported reads NAME=VALUE pairs of an export line.
func exported(line string) map[string]string {
	vars := map[string]string{}
	for _, f := range strings.Fields(strings.TrimPrefix(line, "export ")) {
		if k, v, ok := strings.Cut(f, "="); ok {
			vars[k] = v
		}
	}
	return vars
}

func TestCLISimServeSpeaksTheDCSAProfile(t *testing.T) {
	vars := exported(serveSim(t, "--schedule-api", "dcsa-cs-1.0", "--page-size", "2"))
	base := vars["ETALAKE_SCHEDULE_URL"]
	if !strings.HasSuffix(base, "/cs") || vars["ETALAKE_SCHEDULE_API"] != "dcsa-cs-1.0" || !strings.HasSuffix(vars["ETALAKE_TRACKING_URL"], "/container-tracking/api/v2") {
		t.Fatalf("export line: %v", vars)
	}
	req, err := http.NewRequest(http.MethodGet, base+"/v1/point-to-point-routes?placeOfReceipt=CNSHA&placeOfDelivery=NLRTM", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header["API_KEY"] = []string{"demo"}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var items []json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&items); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d: %v", resp.StatusCode, err)
	}
	if len(items) != 2 || resp.Header.Get("Next-Page-Cursor") == "" || resp.Header.Get("API-Version") != sim.DefaultDCSAVersion {
		t.Errorf("%d items, cursor %q, API-Version %q: want a page of 2 with a cursor", len(items), resp.Header.Get("Next-Page-Cursor"), resp.Header.Get("API-Version"))
	}

	// The service profile stays the default, and its line is unchanged.
	vars = exported(serveSim(t))
	if !strings.HasSuffix(vars["ETALAKE_SCHEDULE_URL"], "/schedule/api/v1") || len(vars) != 4 {
		t.Errorf("default export line: %v", vars)
	}
	// The line sets the client up whole: the URLs and the key the
	// simulator wants (a test key: printing it is the point), the first
	// --key's when given.
	if vars["ETALAKE_API_KEY"] != "demo" {
		t.Errorf("default export line: %v, want ETALAKE_API_KEY=demo", vars)
	}
	// And the virtual clock's day, so that run asks for a day the world
	// covers, not the machine's today.
	if vars["ETALAKE_DATE"] != "2026-01-05" {
		t.Errorf("default export line: %v, want ETALAKE_DATE=2026-01-05, the world's first day", vars)
	}
	if vars := exported(serveSim(t, "--start", "2026-02-10T20:00:00Z")); vars["ETALAKE_DATE"] != "2026-02-10" {
		t.Errorf("export line with --start 2026-02-10T20:00:00Z: %v, want ETALAKE_DATE=2026-02-10", vars)
	}
	if vars := exported(serveSim(t, "--key", "trial-7:5:5", "--key", "other:1:1")); vars["ETALAKE_API_KEY"] != "trial-7" {
		t.Errorf("export line with --key trial-7:5:5: %v, want ETALAKE_API_KEY=trial-7", vars)
	}
}

func TestCLISimServeRefusesBadProfiles(t *testing.T) {
	for _, tc := range []struct {
		env     map[string]string
		args    []string
		mention string
	}{
		{nil, []string{"--schedule-api", "dcsa"}, "want service or dcsa-cs-1.0"},
		{map[string]string{"ETALAKE_SCHEDULE_API": "openapi"}, nil, "want service or dcsa-cs-1.0"},
		{nil, []string{"--page-size", "5"}, "--page-size 5: want 0 unless ETALAKE_SCHEDULE_API (--schedule-api) is dcsa-cs-1.0"},
		{map[string]string{"ETALAKE_SCHEDULE_API": ""}, []string{"--page-size", "5"}, "--page-size 5: want 0 unless ETALAKE_SCHEDULE_API (--schedule-api) is dcsa-cs-1.0"},
		{nil, []string{"--schedule-api", "dcsa-cs-1.0", "--page-size", "-1"}, "--page-size -1"},
		{nil, []string{"--schedule-api", "dcsa-cs-1.0", "--dcsa-version", "1.1.0"}, "want one of 1.0.0, 1.0.1, 1.0.2, 1.0.3"},
		{nil, []string{"--dcsa-version", "1.0.3"}, `--dcsa-version "1.0.3": want none unless ETALAKE_SCHEDULE_API (--schedule-api) is dcsa-cs-1.0`},
	} {
		t.Setenv("ETALAKE_SCHEDULE_API", "")
		if err := os.Unsetenv("ETALAKE_SCHEDULE_API"); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := run(t, tc.env, append([]string{"sim", "serve", "--addr", "127.0.0.1:0"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.mention) {
			t.Errorf("%v %v: exit %d: %s", tc.env, tc.args, code, stderr)
		}
	}
}

// --jumps off gives the world without jumps (its truth says so and its
// shipments only drift), the default one with them, each the world of the
// library's configuration; anything else is refused, saying what is wanted.
func TestCLISimJumps(t *testing.T) {
	truth := func(args ...string) sim.Truth {
		t.Helper()
		code, out, stderr := run(t, nil, append([]string{"sim", "world", "--list", "truth", "--shipments", "300"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var tr sim.Truth
		if err := json.Unmarshal([]byte(out), &tr); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	on, off := truth(), truth("--jumps", "off")
	if !on.Jumps.Enabled || on.Jumps.Counts.Rolled == 0 || len(on.Jumps.Swaps) == 0 {
		t.Errorf("by default: jumps %+v", on.Jumps.Counts)
	}
	if off.Jumps.Enabled || len(off.Jumps.Omissions)+len(off.Jumps.Swaps) != 0 {
		t.Errorf("--jumps off: jumps %+v", off.Jumps.Counts)
	}
	want := sim.NewWorld(sim.WorldConfig{Seed: 1, Shipments: 300, NoJumps: true}).Truth()
	if len(off.Shipments) != len(want.Shipments) || !off.Shipments[7].Legs[0].ActualDeparture.Equal(want.Shipments[7].Legs[0].ActualDeparture) {
		t.Error("--jumps off is not the library's world without jumps")
	}
	if code, _, stderr := run(t, nil, "sim", "responses", "--jumps", "sometimes", "--out", t.TempDir()); code != 2 || !strings.Contains(stderr, `--jumps "sometimes": want on or off`) {
		t.Errorf("bad --jumps: exit %d: %s", code, stderr)
	}
}

// The five ETA error flags reach the world (its truth says them), and a
// value out of range is refused by its flag, exit 2.
func TestSimWorldTakesTheETAErrorFlags(t *testing.T) {
	code, out, errOut := run(t, nil, "sim", "world", "--list", "truth", "--shipments", "20",
		"--eta-lane-bias", "0", "--eta-drift", "12", "--eta-tails", "5", "--predictive-bias", "-3", "--predictive-gaps", "0.4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var tr sim.Truth
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatal(err)
	}
	want := sim.ETAErrors{DriftH: 12, TailsDF: 5, PredictiveBiasH: -3, PredictiveGaps: 0.4}
	if tr.ETAErrors != want || tr.Predictive.GapShare != 0.4 || tr.Predictive.BiasHours != -3 {
		t.Errorf("truth's ETA errors %+v, predictive %+v; want %+v", tr.ETAErrors, tr.Predictive, want)
	}
	code, _, errOut = run(t, nil, "sim", "world", "--eta-tails", "1.5")
	if code != 2 || !strings.Contains(errOut, "--eta-tails 1.5") {
		t.Errorf("--eta-tails 1.5: exit %d, %q; want 2 naming the flag", code, errOut)
	}
}
