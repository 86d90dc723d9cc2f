package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim/simtest"
)

// A schedule-only or a tracking-only setup needs only its own product's
// URL: a job that needs only that product runs; one that needs the other
// stops before any request with exit 2, naming the variable, the flag and
// what needs it; a selection that needs it is refused before the
// warehouse is touched (no shipment joins the tracked set).
func TestCLIOneProductSetups(t *testing.T) {
	slowtest.Long(t)
	env := cliSim(t)
	w := env.Service.World()
	port := simtest.Port(t, w, w.Config().Start)
	ship := simtest.Shipment(t, w, w.Config().Start)
	csv := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(csv, []byte("shipment_number,shipment_type,sealine\n"+ship.Number+","+string(ship.Type)+","+ship.Sealine+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wh := t.TempDir()
	base := map[string]string{"ETALAKE_WAREHOUSE": wh, "ETALAKE_API_KEY": cliKey, "ETALAKE_RATE": "1000/1s"}
	only := func(name, url string) map[string]string {
		m := map[string]string{name: url}
		for k, v := range base {
			m[k] = v
		}
		return m
	}
	scheduleOnly, trackingOnly := only("ETALAKE_SCHEDULE_URL", env.ScheduleURL), only("ETALAKE_TRACKING_URL", env.TrackingURL)
	const date = "2026-01-05"
	steps := []struct {
		env     map[string]string
		args    []string
		code    int
		mention string
	}{
		{scheduleOnly, []string{"run", "--ports", port, "--date", date}, 0, "ok"},
		{scheduleOnly, []string{"run", "--ports", port, "--shipments", csv, "--date", date}, 2,
			"1 shipment is given with --shipments but ETALAKE_TRACKING_URL (--tracking-url) is not set: set it to the tracking product's base URL (…/container-tracking/api/v2); nothing was asked"},
		{base, []string{"track", "list"}, 0, "(0 shipments)"},
		{base, []string{"track", "add", ship.Number + ":" + string(ship.Type) + ":" + ship.Sealine}, 0, "1 added"},
		{scheduleOnly, []string{"run", "--ports", port, "--date", date, "--dry-run"}, 2,
			"1 tracked shipment is due but ETALAKE_TRACKING_URL (--tracking-url) is not set"},
		{scheduleOnly, []string{"run", "--date", date}, 2, "1 tracked shipment is due but ETALAKE_TRACKING_URL (--tracking-url) is not set"},
		{trackingOnly, []string{"backfill", "--ports", port, "--vessels", "9321483", "--date", date}, 2,
			"2 schedules are selected (--ports, --lanes, --vessels) but ETALAKE_SCHEDULE_URL (--schedule-url) is not set: set it to the schedule product's base URL (…/schedule/api/v1)"},
		{trackingOnly, []string{"run", "--date", date}, 0, "ok"},
		{scheduleOnly, []string{"credits"}, 0, "not configured: ETALAKE_TRACKING_URL (--tracking-url) is not set"},
	}
	for _, s := range steps {
		before := len(env.Service.Ledger())
		code, out, stderr := run(t, s.env, s.args...)
		if code != s.code || !strings.Contains(out+stderr, s.mention) {
			t.Fatalf("%v: exit %d (want %d), output lacks %q:\n%s%s", s.args, code, s.code, s.mention, out, stderr)
		}
		if code == 2 && len(env.Service.Ledger()) != before {
			t.Errorf("%v: %d requests sent before exit 2", s.args, len(env.Service.Ledger())-before)
		}
	}
}
