package jobs_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/wire"
)

// A job's options are refused by one rule each, naming the field, the same
// whoever runs the job: the command line (before it opens anything) and
// RunJob, the demo and Demo.
func TestOptionsRulesNameTheField(t *testing.T) {
	run := func(change func(*jobs.RunOptions)) error {
		opt := jobs.RunOptions{CapSchedule: extract.Unlimited, CapTracking: 5, MaxReasks: 3, MaxBody: 1 << 20}
		change(&opt)
		return opt.Validate()
	}
	nightly := jobs.NightlyRefresh()
	nightly.Horizons = []int{0}
	demo := func(change func(*jobs.DemoOptions)) error {
		opt := jobs.DemoOptions{Days: 30, Shipments: 400}
		change(&opt)
		return opt.Validate()
	}
	for _, tc := range []struct {
		name, field, words string
		err                error
	}{
		{"a cap of -2", "CapSchedule", "CapSchedule -2: want a count of 0 or more", run(func(o *jobs.RunOptions) { o.CapSchedule = -2 })},
		{"a negative grace", "Grace", "Grace -1h0m0s: want 0 to 366 days", run(func(o *jobs.RunOptions) { o.Grace = -time.Hour })},
		{"a grace of years", "Grace", "Grace 20000h0m0s", run(func(o *jobs.RunOptions) { o.Grace = 20000 * time.Hour })},
		{"no re-ask", "MaxReasks", "MaxReasks 0: want 1 to 100", run(func(o *jobs.RunOptions) { o.MaxReasks = 0 })},
		{"no body", "MaxBody", "MaxBody 0: want at least 1 byte", run(func(o *jobs.RunOptions) { o.MaxBody = 0 })},
		{"progress back in time", "ProgressEvery", "ProgressEvery -1s", run(func(o *jobs.RunOptions) { o.ProgressEvery = -time.Second })},
		{"a horizon of 0 days", "Refresh.Horizons", "Refresh.Horizons: 0: want 1 to 60 days", run(func(o *jobs.RunOptions) { o.Refresh = &nightly })},
		{"a demo of a year", "Days", "Days 365: want 1 to 90", demo(func(o *jobs.DemoOptions) { o.Days = 365 })},
		{"a demo of nothing", "Shipments", "Shipments 0", demo(func(o *jobs.DemoOptions) { o.Shipments = 0 })},
		{"a demo paged in the service's profile", "PageSize", "PageSize 5: want 0 unless ScheduleAPI is dcsa-cs-1.0", demo(func(o *jobs.DemoOptions) { o.PageSize = 5 })},
		{"a demo of a profile unknown", "ScheduleAPI", `ScheduleAPI "soap"`, demo(func(o *jobs.DemoOptions) { o.ScheduleAPI = "soap" })},
		{"a replay backwards", "To", "To 2026-01-01: want a date after From, 2026-01-05",
			jobs.ReplayOptions{From: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), MaxBody: 1}.Validate()},
		{"an import of a request alone", "Endpoint", "Endpoint: ", jobs.ImportOptions{Request: "/schedule/NLRTM", MaxBody: 1}.Validate()},
	} {
		var se *setting.Error
		if !errors.As(tc.err, &se) || se.Field != tc.field || !strings.Contains(tc.err.Error(), tc.words) {
			t.Errorf("%s: %v, want a setting error of %s saying %q", tc.name, tc.err, tc.field, tc.words)
		}
	}
	if err := run(func(o *jobs.RunOptions) { o.Grace = jobs.NoGrace }); err != nil {
		t.Errorf("NoGrace: %v", err)
	}
	if err := demo(func(o *jobs.DemoOptions) { o.ScheduleAPI, o.PageSize = wire.ScheduleAPIDCSA, 5 }); err != nil {
		t.Errorf("a paged DCSA demo: %v", err)
	}
}
