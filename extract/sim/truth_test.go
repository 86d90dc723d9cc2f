package sim_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/etalake/etalake/extract/sim"
)

func TestTruthJSON(t *testing.T) {
	_, tr := defaultWorld(t)
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"seed", "start", "carriers", "predictive", "horizon_scale", "schedule_weight", "shipment_counts", "shipments"} {
		if _, ok := m[k]; !ok {
			t.Errorf("truth JSON lacks %q", k)
		}
	}
	c := m["carriers"].([]any)[0].(map[string]any)
	for _, k := range []string{"scac", "name", "eta_bias_hours", "eta_spread_hours", "eta_bias_3d_hours", "on_time_share",
		"realised_on_time_share", "late_mean_days", "supports"} {
		if _, ok := c[k]; !ok {
			t.Errorf("carrier truth lacks %q", k)
		}
	}
	steps := tr.HorizonScale
	if len(steps) == 0 || steps[len(steps)-1].ToDays != nil {
		t.Errorf("s(h) table %+v", steps)
	}
	for _, h := range []float64{2, 3, 4.99} {
		if v := stepValue(tr.HorizonScale, h); v != 0.6 {
			t.Errorf("s(%v d) = %v, want constant 0.6 on [2 d, 5 d)", h, v)
		}
		if v := stepValue(tr.ScheduleWeight, h); v != 0 {
			t.Errorf("w(%v d) = %v, want 0 below 5 d", h, v)
		}
	}
	if !math.IsNaN(tr.ExpectedCarrierError("NOPE", time.Hour)) {
		t.Error("unknown carrier: want NaN")
	}
	if tr.Start != start || tr.Days != 60 || tr.Seed != 1 {
		t.Errorf("truth header %v %d %d", tr.Start, tr.Days, tr.Seed)
	}
}

func stepValue(tbl []sim.HorizonStep, h float64) float64 {
	for _, s := range tbl {
		if h >= s.FromDays && (s.ToDays == nil || h < *s.ToDays) {
			return s.Value
		}
	}
	return math.NaN()
}
