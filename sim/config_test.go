package sim_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/sim"
)

// The simulator's settings are checked by its own rules, each naming the
// field it is about, whoever configures it (sim serve, the demo, a test).
func TestConfigRulesNameTheField(t *testing.T) {
	dcsa := sim.ScheduleAPIDCSA
	for _, tc := range []struct {
		cfg          sim.Config
		field, words string
	}{
		{sim.Config{ScheduleAPI: "dcsa"}, "ScheduleAPI", `ScheduleAPI "dcsa": want service or dcsa-cs-1.0`},
		{sim.Config{PageSize: 5}, "PageSize", "PageSize 5: want 0 unless ScheduleAPI is dcsa-cs-1.0"},
		{sim.Config{ScheduleAPI: dcsa, PageSize: -1}, "PageSize", "PageSize -1: want 1 to 10000"},
		{sim.Config{ScheduleAPI: dcsa, PageSize: 10001}, "PageSize", "PageSize 10001"},
		{sim.Config{DCSAVersion: "1.0.3"}, "DCSAVersion", `DCSAVersion "1.0.3": want none unless ScheduleAPI is dcsa-cs-1.0`},
		{sim.Config{ScheduleAPI: dcsa, DCSAVersion: "1.1"}, "DCSAVersion", "want one of 1.0.0, 1.0.1, 1.0.2, 1.0.3"},
		{sim.Config{Rate: sim.Rate{N: 0, Window: time.Second}}, "Rate", "Rate 0 per 1s: want at least 1 request"},
		{sim.Config{Faults: sim.Faults{ErrorRate: 1.5}}, "Faults.ErrorRate", "Faults.ErrorRate 1.5: want a share from 0 to 1"},
		{sim.Config{Faults: sim.Faults{LatencyMedian: time.Second, LatencyP99: time.Millisecond}}, "Faults.LatencyP99", "want 0, or at least Faults.LatencyMedian, 1s"},
		{sim.Config{Faults: sim.Faults{BurstLength: -1}}, "Faults.BurstLength", "Faults.BurstLength -1"},
	} {
		_, err := sim.New(tc.cfg)
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("New(%+v) = %v, want a setting error of %s saying %q", tc.cfg, err, tc.field, tc.words)
		}
	}
	for _, cfg := range []sim.WorldConfig{{Shipments: 0, Days: 1}, {Shipments: 1, Days: 0}, {Shipments: 2_000_000, Days: 1}} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	if err := sim.DefaultWorldConfig().Validate(); err != nil {
		t.Errorf("the default world: %v", err)
	}
}
