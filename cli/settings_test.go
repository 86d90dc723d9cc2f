package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
)

// Every numeric setting out of its range — negative, zero where zero
// means nothing, absurdly large — is refused before anything is asked or
// created (exit 2), naming the ETALAKE_* variable and the flag it came by,
// and the range it takes; whichever command takes it.
func TestSettingsOutOfRangeAreRefused(t *testing.T) {
	source := map[string]string{"ETALAKE_SCHEDULE_URL": "http://127.0.0.1:1/schedule/api/v1", "ETALAKE_API_KEY": cliKey}
	with := func(k, v string) map[string]string {
		m := map[string]string{k: v}
		for a, b := range source {
			m[a] = b
		}
		return m
	}
	backfill := []string{"backfill", "--dry-run", "--ports", "NLRTM"}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    []string
		mention string
	}{
		{"max-reasks -1 (asked nothing)", with("ETALAKE_MAX_REASKS", "-1"), backfill, "ETALAKE_MAX_REASKS (--max-reasks) -1: want 1 to 100"},
		{"max-reasks 0", source, append(backfill, "--max-reasks", "0"), "ETALAKE_MAX_REASKS (--max-reasks) 0: want 1 to 100"},
		{"max-reasks 1000", source, append(backfill, "--max-reasks", "1000"), "ETALAKE_MAX_REASKS (--max-reasks) 1000"},
		{"max-reasks not a number", with("ETALAKE_MAX_REASKS", "three"), backfill, `ETALAKE_MAX_REASKS (--max-reasks) "three": want a whole number`},
		// A variable that does not read as its flag's type is worded as a
		// range error is: the variable, the flag, what is wanted; never
		// strconv's message.
		{"max-credits not a number", with("ETALAKE_MAX_CREDITS", "abc"), backfill, `ETALAKE_MAX_CREDITS (--max-credits) "abc": want a whole number`},
		{"timeout not a duration", with("ETALAKE_TIMEOUT", "abc"), backfill, `ETALAKE_TIMEOUT (--timeout) "abc": want a duration such as 90s, 5m or 1h30m`},
		{"strict not a bool", with("ETALAKE_STRICT", "maybe"), backfill, `ETALAKE_STRICT (--strict) "maybe": want true or false`},
		{"demo: threads not a number", with("ETALAKE_THREADS", "x"), []string{"demo"}, `ETALAKE_THREADS (--threads) "x": want a whole number`},
		{"max-pages 0", with("ETALAKE_MAX_PAGES", "0"), backfill, "ETALAKE_MAX_PAGES (--max-pages) 0: want 1 to 10000"},
		{"max-pages a million", source, append(backfill, "--max-pages", "1000000"), "ETALAKE_MAX_PAGES (--max-pages) 1000000"},
		{"page-size -1", with("ETALAKE_PAGE_SIZE", "-1"), backfill, "ETALAKE_PAGE_SIZE (--page-size) -1: want 1 to 10000, or 0 for the default"},
		{"schedule-days 0", source, append(backfill, "--schedule-days", "0"), "ETALAKE_SCHEDULE_DAYS (--schedule-days) 0: want 1 to 366"},
		{"timeout 0", with("ETALAKE_TIMEOUT", "0s"), backfill, "ETALAKE_TIMEOUT (--timeout) 0s: want 1s to 1h"},
		{"timeout 10ms", source, append(backfill, "--timeout", "10ms"), "ETALAKE_TIMEOUT (--timeout) 10ms"},
		{"timeout a day", source, append(backfill, "--timeout", "24h"), "ETALAKE_TIMEOUT (--timeout) 24h0m0s"},
		{"rate 0", with("ETALAKE_RATE", "0/10s"), backfill, "ETALAKE_RATE (--rate)"},
		{"max-credits -1 (no cap?)", with("ETALAKE_MAX_CREDITS", "-1"), backfill, "ETALAKE_MAX_CREDITS (--max-credits) -1: want a count of 0 or more"},
		{"max-tracking-calls -5", source, append(backfill, "--max-tracking-calls", "-5"), "ETALAKE_MAX_TRACKING_CALLS (--max-tracking-calls) -5"},
		{"lock-timeout -1s", with("ETALAKE_LOCK_TIMEOUT", "-1s"), backfill, "ETALAKE_LOCK_TIMEOUT (--lock-timeout) -1s: want 0 (do not wait) to 24h"},
		{"grace -1h", source, []string{"run", "--dry-run", "--ports", "NLRTM", "--grace", "-1h"}, "(--grace) -1h0m0s: want 0 to 366 days"},
		{"grace of years", source, []string{"run", "--dry-run", "--ports", "NLRTM", "--grace", "20000h"}, "(--grace) 20000h0m0s"},
		{"reask of nothing known", source, []string{"backfill", "--reask", "port:NLRTM,harbour:X"}, `invalid resource "harbour:X": want port:LOCODE`},
		{"credits: timeout 0", with("ETALAKE_TIMEOUT", "0s"), []string{"credits"}, "ETALAKE_TIMEOUT (--timeout) 0s"},
		{"credits: max-pages 0", source, []string{"credits", "--max-pages", "0"}, "ETALAKE_MAX_PAGES (--max-pages) 0"},
		{"track list: grace -1h", nil, []string{"track", "list", "--grace", "-1h"}, "(--grace) -1h0m0s: want 0 to 366 days"},
		{"demo: page-size -1", nil, []string{"demo", "--page-size", "-1"}, "--page-size -1: want 1 to 10000, or 0 for the client's limit"},
		{"demo: page-size without dcsa", nil, []string{"demo", "--page-size", "5"}, "--page-size 5: want 0 unless --schedule-api is dcsa-cs-1.0"},
		{"demo: days 0", nil, []string{"demo", "--days", "0"}, "--days 0: want 1 to 90"},
		{"demo: shipments 0", nil, []string{"demo", "--shipments", "0"}, "--shipments 0: want 1 to 1000000"},
		{"demo: refresh tiers", nil, []string{"demo", "--refresh", "sometimes"}, `--refresh: "sometimes": want adaptive or nightly`},
		{"sim world: days 0", nil, []string{"sim", "world", "--days", "0"}, "--days 0: want 1 to 3660"},
		{"sim serve: error rate 2", nil, []string{"sim", "serve", "--error-rate", "2"}, "--error-rate 2: want a share from 0 to 1"},
		{"sim serve: p99 under the median", nil, []string{"sim", "serve", "--latency-median", "2s", "--latency-p99", "1s"}, "--latency-p99 1s: want 0, or at least --latency-median, 2s"},
		{"replay: max-body 0", nil, []string{"replay", "--max-body", "0"}, "ETALAKE_MAX_BODY (--max-body) 0: want at least 1 byte"},
		{"replay: to before from", nil, []string{"replay", "--from", "2026-01-05", "--to", "2026-01-01"}, `--to 2026-01-01: want a date after --from, 2026-01-05`},
		{"import: request without endpoint", nil, []string{"import", "--request", "/x", "f.json"}, "--endpoint: "},
		{"demo: lock-timeout of days", nil, []string{"demo", "--lock-timeout", "72h"}, "ETALAKE_LOCK_TIMEOUT (--lock-timeout) 72h0m0s"},
		{"sim serve: rate 0", nil, []string{"sim", "serve", "--rate", "0/1s"}, "--rate: invalid rate"},
		{"sim serve: page-size a million", nil, []string{"sim", "serve", "--schedule-api", "dcsa-cs-1.0", "--page-size", "1000000"}, "--page-size 1000000: want 1 to 10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wh := filepath.Join(t.TempDir(), "wh")
			args := append(append([]string(nil), tc.args...), "--warehouse", wh)
			switch tc.args[0] {
			case "sim", "credits":
				args = tc.args
			case "import": // flags before the files
				args = append([]string{"import", "--warehouse", wh}, tc.args[1:]...)
			}
			code, stdout, stderr := run(t, tc.env, args...)
			if code != exitUsage || !strings.Contains(stderr, tc.mention) || strings.Contains(stderr, "strconv") {
				t.Fatalf("exit %d, want %d naming %q:\n%s%s", code, exitUsage, tc.mention, stdout, stderr)
			}
			if _, err := os.Stat(wh); err == nil {
				t.Errorf("the warehouse was created")
			}
		})
	}
}

// The settings at the ends of their ranges, and the caps' "none", are
// taken.
func TestSettingsInRangeAreTaken(t *testing.T) {
	service := simtest.Start(t, simtest.Options{Keys: []sim.KeySpec{{Key: cliKey, Schedule: simtest.Credits(10), Tracking: simtest.Credits(10)}}})
	env := map[string]string{"ETALAKE_SCHEDULE_URL": service.ScheduleURL, "ETALAKE_API_KEY": cliKey,
		"ETALAKE_MAX_REASKS": "100", "ETALAKE_MAX_PAGES": "1", "ETALAKE_PAGE_SIZE": "0", "ETALAKE_TIMEOUT": "1h", "ETALAKE_MAX_CREDITS": "0"}
	code, stdout, stderr := run(t, env, "run", "--dry-run", "--ports", "NLRTM", "--grace", "0s", "--schedule-days", "366",
		"--lock-timeout", "0s", "--rate", "10000/24h", "--warehouse", filepath.Join(t.TempDir(), "wh"))
	if code != exitOK || !strings.Contains(stdout, "caps      schedule 0, tracking none") {
		t.Fatalf("exit %d:\n%s%s", code, stdout, stderr)
	}
}
