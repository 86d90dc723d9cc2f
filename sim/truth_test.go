package sim_test

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
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
	for _, k := range []string{"seed", "start", "carriers", "predictive", "horizon_scale", "schedule_weight", "shipment_counts", "jumps", "shipments"} {
		if _, ok := m[k]; !ok {
			t.Errorf("truth JSON lacks %q", k)
		}
	}
	c := m["carriers"].([]any)[0].(map[string]any)
	for _, k := range []string{"scac", "name", "eta_bias_hours", "eta_spread_hours", "eta_bias_3d_hours", "on_time_share",
		"realised_on_time_share", "late_mean_days", "supports", "jumps"} {
		if _, ok := c[k]; !ok {
			t.Errorf("carrier truth lacks %q", k)
		}
	}
	cj := c["jumps"].(map[string]any)
	for _, k := range []string{"roll_rate", "loadings", "rolls", "omission_rate", "omissible_calls", "omitted_calls", "swap_rate", "voyages", "swapped_voyages"} {
		if _, ok := cj[k]; !ok {
			t.Errorf("carrier jumps truth lacks %q", k)
		}
	}
	j := m["jumps"].(map[string]any)
	for _, k := range []string{"enabled", "min_lead_hours", "revision_aligned", "counts", "omissions", "swaps"} {
		if _, ok := j[k]; !ok {
			t.Errorf("jumps truth lacks %q", k)
		}
	}
	jumped := 0
	for _, s := range m["shipments"].([]any) {
		js, ok := s.(map[string]any)["jumps"].([]any)
		if !ok {
			continue
		}
		jumped++
		for _, k := range []string{"kind", "announced_at", "visible", "leg", "pod", "vessel_imo", "eta_before", "eta_after", "eta_jump_hours", "arrival_shift_hours"} {
			if _, ok := js[0].(map[string]any)[k]; !ok {
				t.Errorf("shipment jump truth lacks %q", k)
			}
		}
	}
	if jumped == 0 {
		t.Error("no shipment of the default world jumps")
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
