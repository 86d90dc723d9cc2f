package cli

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// A user who points the default profile at a DCSA provider gets exit 2
// after one schedule request, with the URL asked, the profile and the
// settings to check — not an "ok" with no data.
func TestCLIAWrongProfileExitsTwoNamingTheURLAndTheProfile(t *testing.T) {
	env := simtest.Start(t, simtest.Options{ScheduleAPI: sim.ScheduleAPIDCSA, Rate: sim.Rate{N: 1000, Window: time.Second},
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)}}})
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_TRACKING_URL": env.TrackingURL, "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	wh := filepath.Join(t.TempDir(), "wh")
	code, stdout, stderr := run(t, vars, "backfill", "--warehouse", wh, "--date", "2026-01-05", "--yes", "--ports", "NLRTM,DEHAM,SGSIN,CNSHA")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, want := range []string{env.ScheduleURL + "/consumption/current-period", "schedule API service", "check ETALAKE_SCHEDULE_URL", "--schedule-api", ": failed in"} {
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("the output does not say %q:\nstdout: %s\nstderr: %s", want, stdout, stderr)
		}
	}
	if n := len(env.Service.Ledger()); n != 1 {
		t.Errorf("%d requests reached the provider, want 1", n)
	}
	if strings.Contains(stdout+stderr, cliKey) {
		t.Error("the key is in the output")
	}
}

func TestCLIMaxPagesIsAPositiveNumber(t *testing.T) {
	for _, v := range []string{"0", "-3"} {
		code, _, stderr := run(t, map[string]string{"ETALAKE_SCHEDULE_URL": "http://127.0.0.1:1/cs", "ETALAKE_API_KEY": cliKey, "ETALAKE_MAX_PAGES": v},
			"backfill", "--warehouse", t.TempDir(), "--dry-run", "--ports", "NLRTM")
		if code != exitUsage || !strings.Contains(stderr, "ETALAKE_MAX_PAGES (--max-pages) "+v) {
			t.Errorf("ETALAKE_MAX_PAGES=%s: exit %d, %s: want 2 naming it", v, code, stderr)
		}
	}
}

// The dry run prices a schedule request it has no history of as a range,
// and one it has as the pages its last answer took.
func TestCLIThePlanPricesPagesFromHistory(t *testing.T) {
	env := simtest.Start(t, simtest.Options{ScheduleAPI: sim.ScheduleAPIDCSA, PageSize: 1, Rate: sim.Rate{N: 1000, Window: time.Second},
		Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)}}})
	vars := map[string]string{"ETALAKE_SCHEDULE_URL": env.ScheduleURL, "ETALAKE_SCHEDULE_API": "dcsa-cs-1.0", "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	wh := filepath.Join(t.TempDir(), "wh")
	port := simtest.Port(t, env.Service.World(), env.Service.Clock().Now())
	args := []string{"backfill", "--warehouse", wh, "--ports", port, "--max-pages", "40"}
	_, plan, _ := run(t, vars, append(args, "--dry-run", "--date", "2026-01-05")...)
	if !strings.Contains(plan, "→ 1–40 credits") || !strings.Contains(plan, "1 never answered here") {
		t.Fatalf("the first plan:\n%s\nwant 1–40 credits, 1 never answered", plan)
	}
	if code, out, errs := run(t, vars, append(args, "--yes", "--date", "2026-01-05")...); code != exitOK {
		t.Fatalf("the backfill: exit %d\n%s\n%s", code, out, errs)
	}
	pages := int(env.Service.Stats().Charged["schedule"])
	_, plan, _ = run(t, vars, append(args, "--dry-run", "--date", "2026-01-06")...)
	if want := "→ " + strconv.Itoa(pages) + " credits"; !strings.Contains(plan, want) || strings.Contains(plan, "never answered") {
		t.Errorf("the plan after an answer of %d pages:\n%s\nwant %q", pages, plan, want)
	}
}
