package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

const cliKey = "cli-secret-KEY-9c1d"

// cliSim is the simulator most CLI tests run against: cliKey with 100
// credits of each product, and a limit of 1000 requests a second so that
// no test waits on the rate.
func cliSim(t *testing.T) *simtest.Env {
	t.Helper()
	return simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
	})
}

// run runs the command line in-process and returns its exit code and
// outputs, the error message included as main would print it.
func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWith(t, newApp(), env, args...)
}

// runWith is run of app, an app of newApp whose commands a test changed.
func runWith(t *testing.T, app *cli.App, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	// Every setting of the environment the tests run in is left out: each
	// variable etalake reads (variables, the one list: a flag added later
	// is in it too).
	for _, name := range variables(newApp()) {
		if _, set := os.LookupEnv(name); !set {
			continue
		}
		// t.Setenv restores the variable after the test; then unset it for
		// real, as an empty variable still counts as set.
		t.Setenv(name, "")
		if err := os.Unsetenv(name); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("ETALAKE_STATE_DIR", t.TempDir())
	for k, v := range env {
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errb
	argv := append([]string{"etalake"}, args...)
	err := runApp(context.Background(), app, argv)
	writeExit(&errb, argv, err)
	return exitCode(err), out.String(), errb.String()
}

func TestCLICredits(t *testing.T) {
	// A fast rate on both sides: every case starts a fresh limiter, which
	// knows nothing of the requests of the cases before it.
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(7), Tracking: simtest.Credits(5)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
	})
	good := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name    string
		env     map[string]string
		args    []string
		code    int
		mention string
	}{
		{"table", good, []string{"credits"}, 0, "schedule"},
		{"json", good, []string{"credits", "--format", "json"}, 0, `"creditsInitial": 7`},
		{"bad format", good, []string{"credits", "--format", "xml"}, 2, "want table or json"},
		{"wrong key", with("ETALAKE_API_KEY", "not-the-key"), []string{"credits"}, 2, "401"},
		{"no key", with("ETALAKE_API_KEY", ""), []string{"credits"}, 2, "ETALAKE_API_KEY"},
		{"key on the command line", good, []string{"credits", "--api-key", cliKey}, 2, "--api-key refused"},
		{"missing key file", good, []string{"credits", "--api-key-file", "/nonexistent/key"}, 2, "--api-key-file"},
		{"no schedule URL", with("ETALAKE_SCHEDULE_URL", ""), []string{"credits"}, 0, "not configured: ETALAKE_SCHEDULE_URL (--schedule-url) is not set"},
		{"no tracking URL, json", with("ETALAKE_TRACKING_URL", ""), []string{"credits", "--format", "json"}, 0, `"not_configured": true`},
		{"malformed URL", with("ETALAKE_TRACKING_URL", "localhost:1"), []string{"credits"}, 2, `ETALAKE_TRACKING_URL (--tracking-url) "localhost:1": want an absolute http(s) URL`},
		{"malformed rate", with("ETALAKE_RATE", "ten per second"), []string{"credits"}, 2, "ETALAKE_RATE"},
		{"unknown flag", good, []string{"credits", "--bogus"}, 2, "bogus"},
	}
	neither := with("ETALAKE_SCHEDULE_URL", "")
	delete(neither, "ETALAKE_TRACKING_URL")
	cases = append(cases, struct {
		name    string
		env     map[string]string
		args    []string
		code    int
		mention string
	}{"no URL at all", neither, []string{"credits"}, 2, "neither ETALAKE_SCHEDULE_URL (--schedule-url) nor ETALAKE_TRACKING_URL (--tracking-url) is set"})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, tc.env, tc.args...)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.mention) {
				t.Fatalf("exit %d (want %d), output lacks %q:\n%s%s", code, tc.code, tc.mention, stdout, stderr)
			}
			if strings.Contains(stdout+stderr, cliKey) && tc.name != "key on the command line" {
				t.Fatalf("the key leaked:\n%s%s", stdout, stderr)
			}
		})
	}
}

func TestCLISimWorld(t *testing.T) {
	code, out, stderr := run(t, nil, "sim", "world", "--seed", "3", "--shipments", "20")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "shipment_number,shipment_type,sealine" || len(lines) != 21 {
		t.Fatalf("shipments CSV:\n%s", out)
	}
	for _, list := range []string{"ports", "lanes", "vessels", "truth"} {
		if code, out, stderr := run(t, nil, "sim", "world", "--list", list); code != 0 || len(out) < 100 {
			t.Errorf("--list %s: exit %d, %d bytes: %s", list, code, len(out), stderr)
		}
	}
	if code, _, stderr := run(t, nil, "sim", "world", "--list", "planets"); code != 2 || !strings.Contains(stderr, "want shipments, ports") {
		t.Errorf("bad --list: exit %d: %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "sim", "world", "--start", "soon"); code != 2 || !strings.Contains(stderr, "--start") {
		t.Errorf("bad --start: exit %d: %s", code, stderr)
	}
}

func TestHelpDocumentsExitCodes(t *testing.T) {
	_, out, _ := run(t, nil, "--help")
	if !strings.Contains(out, "EXIT CODES") || !strings.Contains(out, "3  partial") {
		t.Fatalf("help:\n%s", out)
	}
}

func TestCLITrack(t *testing.T) {
	slowtest.Long(t)
	wh := t.TempDir()
	env := map[string]string{"ETALAKE_WAREHOUSE": wh}
	csv := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(csv, []byte("shipment_number,shipment_type,sealine\nMAEU123456789,BL,MAEU\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args    []string
		code    int
		mention string
	}{
		{[]string{"track", "add", "CSQU3054383", "--shipments", csv}, 2, "flags go first"},
		{[]string{"track", "add", "--shipments", csv, "CSQU3054383", "MSCU1234566:CT:MSCU"}, 0, "3 added, 0 already tracked"},
		{[]string{"track", "add", "csqu3054383"}, 0, "0 added, 1 already tracked"},
		// A check digit that fails is a warning: the service may know it.
		{[]string{"track", "add", "CSQU3054384"}, 0, "check digit should be 3, not 4"},
		// A bad argument costs only itself: reported, skipped, exit 3.
		{[]string{"track", "add", "MAEU1:XX", "TEMU1234565"}, 3, "skipped argument 1 (MAEU1:XX): "},
		{[]string{"track", "add", "--strict", "MAEU1:XX", "TGHU1234560"}, 2, "argument 1 (MAEU1:XX)"},
		// Every shipment bad: nothing done but input refused, a usage
		// error as a backfill's whose every row is bad (README, Exit codes).
		{[]string{"track", "add", "MAEU1:XX", "BAD"}, 2, "every shipment given is bad, nothing to change"},
		{[]string{"track", "rm", "MAEU1:XX"}, 2, "track rm: every shipment given is bad"},
		{[]string{"track", "add"}, 2, "no shipment given"},
		{[]string{"track", "rm", "MSCU1234566", "CSQU3054383:BL"}, 0, "1 removed, 1 were not tracked"},
		{[]string{"track", "list"}, 0, "(4 shipments)"},
		{[]string{"track", "list", "--all"}, 0, "removed"},
	}
	for _, s := range steps {
		code, out, stderr := run(t, env, s.args...)
		if code != s.code || !strings.Contains(out+stderr, s.mention) {
			t.Fatalf("%v: exit %d (want %d), output lacks %q:\n%s%s", s.args, code, s.code, s.mention, out, stderr)
		}
	}
}

// The tracked set at a real size: ten thousand shipments from one CSV are
// tracked in one call at the default memory limit, listed, planned and
// refreshed by a run within its cap of tracking calls.
func TestCLITracksTenThousandShipments(t *testing.T) {
	slowtest.Require(t, "large input: a world of ten thousand shipments, built under the race detector")
	world := simtest.World(sim.WorldConfig{Shipments: 10_000})
	env := simtest.Start(t, simtest.Options{
		World: sim.WorldConfig{Shipments: 10_000},
		Keys:  []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(10), Tracking: simtest.Credits(20_000)}},
		Rate:  sim.Rate{N: 1000, Window: time.Second},
	})
	lines := []string{"shipment_number,shipment_type,sealine"}
	for _, ref := range world.Shipments() {
		lines = append(lines, fmt.Sprintf("%s,%s,%s", ref.Number, ref.Type, ref.Sealine))
	}
	csv := filepath.Join(t.TempDir(), "shipments.csv")
	if err := os.WriteFile(csv, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wh := t.TempDir()
	vars := map[string]string{"ETALAKE_WAREHOUSE": wh, "ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL,
		"ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	steps := []struct {
		args    []string
		code    int
		mention string
	}{
		{[]string{"track", "add", "--shipments", csv}, 0, "10000 added, 0 already tracked"},
		{[]string{"track", "add", "--shipments", csv}, 0, "0 added, 10000 already tracked"},
		{[]string{"track", "list"}, 0, "(10000 shipments)"},
		{[]string{"run", "--dry-run", "--date", "2026-01-05"}, 0, "tracking  10000 requests"},
		{[]string{"run", "--shipments", csv, "--max-tracking-calls", "300", "--date", "2026-01-05"}, 3, "tracking   300 calls"},
	}
	for _, s := range steps {
		code, out, stderr := run(t, vars, s.args...)
		if code != s.code || !strings.Contains(out+stderr, s.mention) {
			t.Fatalf("%v: exit %d (want %d), output lacks %q:\n%s%s", s.args, code, s.code, s.mention, out, stderr)
		}
	}
	if n := len(env.Service.Ledger()); n > 300+1000 {
		t.Errorf("the run sent %d requests for a cap of 300 paid calls", n)
	}
}
