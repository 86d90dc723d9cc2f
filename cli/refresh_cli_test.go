package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// What an operator sees of the refresh policy: the first night asks every
// tracked shipment (new); the dry run of the next says how many are due
// and why, prices them both ways, and asks only those; --refresh nightly
// plans every one of them, as etalake did before; the JSON plan carries
// the same counts; the run's summary says them too.
func TestCLITheDryRunSaysHowManyShipmentsAreDueAndWhy(t *testing.T) {
	slowtest.Long(t)
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(10), Tracking: simtest.Credits(1000)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
	})
	w := env.Service.World()
	day := w.Config().Start
	lines := []string{"shipment_number,shipment_type,sealine"}
	for _, ref := range w.Shipments() {
		s, err := w.Shipment(ref, day)
		if err != nil || s.Route == nil || s.Route.Pod == nil || (s.Route.Pod.Actual != nil && *s.Route.Pod.Actual) {
			continue
		}
		lines = append(lines, fmt.Sprintf("%s,%s,%s", ref.Number, ref.Type, ref.Sealine))
		if len(lines) == 31 {
			break
		}
	}
	csv := filepath.Join(t.TempDir(), "shipments.csv")
	if err := os.WriteFile(csv, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"ETALAKE_WAREHOUSE": t.TempDir(), "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	date := func(d int) string { return day.AddDate(0, 0, d).Format(time.DateOnly) }

	code, out, errOut := run(t, vars, "run", "--shipments", csv, "--date", date(0))
	if code != exitOK || !strings.Contains(out, "refresh    30 due of 30 tracked shipments active (adaptive: 30 new), 0 not due tonight") {
		t.Fatalf("first night: exit %d:\n%s%s", code, out, errOut)
	}
	env.Service.Clock().Advance(24 * time.Hour)
	code, plan, errOut := run(t, vars, "run", "--dry-run", "--date", date(1))
	due := regexp.MustCompile(`refresh\s+(\d+) due of 30 tracked shipments active \(adaptive\), (\d+) not due tonight\n\s+due: (.+)\n`).FindStringSubmatch(plan)
	if code != exitOK || due == nil {
		t.Fatalf("the dry run of the next night: exit %d, no count of what is due and why:\n%s%s", code, plan, errOut)
	}
	n, _ := strconv.Atoi(due[1])
	if notDue, _ := strconv.Atoi(due[2]); n == 0 || n+notDue != 30 || strings.Contains(due[3], "new") {
		t.Errorf("%d due, %s not due (%s); want some of the 30 due by their tiers, none new", n, due[2], due[3])
	}
	if want := fmt.Sprintf("tracking  %4d requests (shipments) → %d credits per call (0 per shipment-month", n, n); !strings.Contains(plan, want) {
		t.Errorf("the plan does not price the %d due both ways (%q):\n%s", n, want, plan)
	}
	_, nightly, _ := run(t, vars, "run", "--dry-run", "--date", date(1), "--refresh", "nightly")
	if !strings.Contains(nightly, "refresh     30 due of 30 tracked shipments active (nightly), 0 not due tonight\n            due: 30 nightly") ||
		!strings.Contains(nightly, "tracking    30 requests") {
		t.Errorf("--refresh nightly does not plan every shipment:\n%s", nightly)
	}
	// A guard of 60 days either side of the horizons asks every shipment
	// within 61 days of them every night: each of the 30, by its tier.
	guard := map[string]string{"ETALAKE_REFRESH_GUARD": "below=60,above=60,every=1"}
	for k, v := range vars {
		guard[k] = v
	}
	if _, all, _ := run(t, guard, "run", "--dry-run", "--date", date(1)); !strings.Contains(all, "refresh     30 due of 30 tracked shipments active (adaptive), 0 not due tonight") {
		t.Errorf("ETALAKE_REFRESH_GUARD=below=60,above=60,every=1 does not plan every shipment:\n%s", all)
	}
	_, js, _ := run(t, vars, "run", "--dry-run", "--date", date(1), "--log-format", "json")
	var ev struct {
		Msg     string `json:"msg"`
		Refresh struct {
			Mode string         `json:"mode"`
			Due  int            `json:"due"`
			By   map[string]int `json:"due_by_reason"`
		} `json:"refresh"`
	}
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Msg == "plan" {
			break
		}
	}
	if ev.Msg != "plan" || ev.Refresh.Mode != "adaptive" || ev.Refresh.Due != n || len(ev.Refresh.By) == 0 {
		t.Errorf("the JSON plan's refresh: %+v; want adaptive, %d due by reason", ev.Refresh, n)
	}
	code, out, errOut = run(t, vars, "run", "--date", date(1))
	if code != exitOK || !strings.Contains(out, fmt.Sprintf("tracking   %d calls", n)) || !strings.Contains(out, fmt.Sprintf("refresh    %d due of 30", n)) {
		t.Errorf("the next night asks other than the %d due: exit %d\n%s%s", n, code, out, errOut)
	}
}

// Refresh settings that make no sense are refused before anything is
// asked or created (exit 2), naming the variable, the flag and what they
// want.
func TestCLINonsenseRefreshSettingsAreRefused(t *testing.T) {
	source := map[string]string{"ETALAKE_TRACKING_URL": "http://127.0.0.1:1/container-tracking/api/v2", "ETALAKE_API_KEY": cliKey}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range source {
			m[a] = b
		}
		return m
	}
	run1 := []string{"run", "--dry-run"}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    []string
		mention string
	}{
		{"refresh sometimes", with("ETALAKE_REFRESH", "sometimes"), run1, `ETALAKE_REFRESH (--refresh): "sometimes": want adaptive or nightly`},
		{"a tier unknown", source, append(run1, "--refresh-tiers", "near=5,soon=8"), `ETALAKE_REFRESH_TIERS (--refresh-tiers) "near=5,soon=8": no tier "soon": want near, mid, far`},
		{"tiers out of order", with("ETALAKE_REFRESH_TIERS", "mid=30"), run1, "ETALAKE_REFRESH_TIERS (--refresh-tiers): far=20 is not beyond mid=30"},
		{"a bound on beyond", source, append(run1, "--refresh-tiers", "beyond=40"), "beyond has no bound"},
		{"not a number", source, append(run1, "--refresh-tiers", "near=five"), `"near=five": want NAME=N`},
		{"every 0 nights", source, append(run1, "--refresh-every", "near=0"), "ETALAKE_REFRESH_EVERY (--refresh-every): near=0: want 1 to 60 nights"},
		{"near less often than far", source, append(run1, "--refresh-every", "near=5"), "mid=2 is more often than near=5"},
		{"at-pod every year", with("ETALAKE_REFRESH_EVERY", "at-pod=365"), run1, "at-pod=365: want 1 to 60 nights"},
		{"a horizon of 0 days", source, append(run1, "--refresh-horizons", "14,0"), "ETALAKE_REFRESH_HORIZONS (--refresh-horizons): 0: want 1 to 60 days"},
		{"a horizon not a number", source, append(run1, "--refresh-horizons", "two weeks"), `"two weeks" is not a number of days`},
		{"a guard of no nights", source, append(run1, "--refresh-guard", "every=0"), "ETALAKE_REFRESH_GUARD (--refresh-guard): every=0: want 1 to 60 nights"},
		{"a guard part unknown", with("ETALAKE_REFRESH_GUARD", "below=4,around=2"), run1, `ETALAKE_REFRESH_GUARD (--refresh-guard) "below=4,around=2": no part "around": want below, above or every`},
		{"a guard not a number", source, append(run1, "--refresh-guard", "above=three"), `"above=three": want NAME=N`},
		{"a reserve of everything", source, append(run1, "--pace-reserve", "100%"), "ETALAKE_PACE_RESERVE (--pace-reserve): 100%: want 0 to 90%"},
		{"a reserve of minus", with("ETALAKE_PACE_RESERVE", "-5"), run1, "-5: want a count of 0 or more credits"},
		{"a reserve not a number", source, append(run1, "--pace-reserve", "some"), "want a share such as 5% or a count of credits such as 500"},
		{"billing per byte", with("ETALAKE_BILLING", "per-byte"), run1, `ETALAKE_BILLING (--billing): "per-byte": want per-call or per-shipment-month`},
		{"backfill billing per byte", source, []string{"backfill", "--dry-run", "--reask", "shipment:CT:MSCU1234566", "--billing", "per-byte"}, `(--billing): "per-byte"`},
		{"demo: refresh sometimes", nil, []string{"demo", "--refresh", "sometimes"}, `--refresh: "sometimes": want adaptive or nightly`},
		{"demo: a guard of no nights", nil, []string{"demo", "--refresh-guard", "every=0"}, `--refresh-guard: every=0: want 1 to 60 nights`},
		{"demo: a guard not read", nil, []string{"demo", "--refresh-guard", "sometimes"}, `"sometimes": want NAME=N, such as below=4`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wh := filepath.Join(t.TempDir(), "wh")
			code, stdout, stderr := run(t, tc.env, append(append([]string(nil), tc.args...), "--warehouse", wh)...)
			if code != exitUsage || !strings.Contains(stderr, tc.mention) {
				t.Fatalf("exit %d, want %d naming %q:\n%s%s", code, exitUsage, tc.mention, stdout, stderr)
			}
			if _, err := os.Stat(wh); err == nil {
				t.Errorf("the warehouse was created")
			}
		})
	}
}

// The demo takes the adaptive policy's settings, and says them. With the
// horizon band asked every night (--refresh-guard
// below=4,above=3,every=1) its report is nightly's line for line, but for
// the credits it spent, which are fewer, and etalake's own estimate,
// which learns from every ETA observed: README, "Nightly's very ETAs at
// the horizons cost 58 %".
func TestCLITheDemoWithTheBandEveryNightReportsAsNightly(t *testing.T) {
	slowtest.Require(t, "runs the 30-night demo twice, about a minute")
	report := func(args ...string) (string, string) {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "demo")
		code, out, errOut := run(t, nil, append([]string{"demo", "--warehouse", dir}, args...)...)
		if code != exitOK {
			t.Fatalf("demo %v: exit %d\n%s%s", args, code, out, errOut)
		}
		began := regexp.MustCompile(`\(--refresh [^)]*\)`).FindString(out)
		_, rep, ok := strings.Cut(out, "demo: rows loaded:")
		if !ok {
			t.Fatalf("demo %v: no report:\n%s", args, out)
		}
		// What differs by construction: the rows and credits spent, the
		// warehouse's name, and etalake's own estimate (its sections 6
		// to 8, the last): it learns from every ETA observed, and
		// nightly observes more of them than the band does.
		rep, _, _ = strings.Cut(rep, "6. etalake's estimate")
		var keep []string
		for _, line := range strings.Split(rep, "\n")[1:] {
			if !strings.HasPrefix(line, "Credits:") && !strings.HasPrefix(line, "Our count matches") && !strings.Contains(line, dir) {
				keep = append(keep, line)
			}
		}
		return began, strings.Join(keep, "\n")
	}
	saidBand, band := report("--refresh-guard", "below=4,above=3,every=1")
	saidNightly, nightly := report("--refresh", "nightly")
	if saidBand != "(--refresh adaptive --refresh-guard below=4,above=3,every=1)" || saidNightly != "(--refresh nightly)" {
		t.Errorf("the demos say their policies as %q and %q", saidBand, saidNightly)
	}
	if band != nightly {
		t.Errorf("the band every night and nightly report differently:\n%s", lineDiff(nightly, band))
	}
}

// lineDiff lists the lines of b not in a, and of a not in b.
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out []string
	for _, l := range strings.Split(a, "\n") {
		if !inb[l] {
			out = append(out, "- "+l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ina[l] {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
