package sim_test

import (
	"math"
	"testing"
)

func TestCarriersCoverTheMarketAndTheQueryKinds(t *testing.T) {
	_, tr := defaultWorld(t)
	if len(tr.Carriers) < 12 {
		t.Fatalf("%d carriers, want at least 12", len(tr.Carriers))
	}
	seen := map[string]bool{}
	port, vessel := 0, 0
	minOT, maxOT := 1.0, 0.0
	for _, c := range tr.Carriers {
		if len(c.SCAC) != 4 || seen[c.SCAC] || c.Name == "" {
			t.Errorf("carrier %+v: want a unique 4-letter SCAC and a name", c)
		}
		seen[c.SCAC] = true
		if !c.Supports.P2P {
			t.Errorf("%s does not support port to port", c.SCAC)
		}
		if c.Supports.Port {
			port++
		}
		if c.Supports.Vessel {
			vessel++
		}
		if c.OnTimeShare < 0.48 || c.OnTimeShare > 0.77 {
			t.Errorf("%s: on-time share %.2f outside the 2025 range 48–77 %%", c.SCAC, c.OnTimeShare)
		}
		minOT, maxOT = math.Min(minOT, c.OnTimeShare), math.Max(maxOT, c.OnTimeShare)
		if c.ETABiasHours < -6 || c.ETABiasHours > 30 || c.ETASpreadHours < 6 || c.ETASpreadHours > 30 {
			t.Errorf("%s: bias %.1f h, spread %.1f h outside −6…30 h and 6…30 h", c.SCAC, c.ETABiasHours, c.ETASpreadHours)
		}
		if c.LateMeanDays < 4 || c.LateMeanDays > 6 {
			t.Errorf("%s: late mean %.1f days, want about 5", c.SCAC, c.LateMeanDays)
		}
		if len(c.Services) < 3 || c.Vessels < 5 {
			t.Errorf("%s: %d services, %d vessels", c.SCAC, len(c.Services), c.Vessels)
		}
	}
	if minOT > 0.50 || maxOT < 0.75 {
		t.Errorf("on-time shares span %.2f–%.2f, want them spread over 48–77 %%", minOT, maxOT)
	}
	n := float64(len(tr.Carriers))
	if s := float64(vessel) / n; s < 0.5 || s > 0.7 {
		t.Errorf("by-vessel coverage %.0f %%, want about 60 %%", 100*s)
	}
	if s := float64(port) / n; s < 0.2 || s > 0.4 {
		t.Errorf("by-port coverage %.0f %%, want about 30 %%", 100*s)
	}
}

func TestRealisedOnTimeShareMatchesParameter(t *testing.T) {
	_, tr := defaultWorld(t)
	for _, c := range tr.Carriers {
		if c.RealisedCalls < 100 {
			t.Errorf("%s: only %d calls in the window", c.SCAC, c.RealisedCalls)
		}
		if d := math.Abs(c.RealisedOnTimeShare - c.OnTimeShare); d > 0.03 {
			t.Errorf("%s: realised on-time share %.3f, parameter %.3f", c.SCAC, c.RealisedOnTimeShare, c.OnTimeShare)
		}
		if c.RealisedLateMeanDays < 3 || c.RealisedLateMeanDays > 7 {
			t.Errorf("%s: late calls are %.1f days late on average, want about 5", c.SCAC, c.RealisedLateMeanDays)
		}
	}
}

func TestCoverageFiltersQueryKinds(t *testing.T) {
	w, tr := defaultWorld(t)
	supports := map[string]bool{}
	for _, c := range tr.Carriers {
		supports[c.SCAC] = c.Supports.Vessel
	}
	for _, p := range w.Ports() {
		ps, err := w.PortSchedule(p.Locode, start)
		if err != nil {
			continue
		}
		for _, vs := range ps.VesselSchedules {
			if !carrierTruth(t, tr, vs.CarrierCode).Supports.Port {
				t.Errorf("port schedule of %s lists %s, which does not support by-port", p.Locode, vs.CarrierCode)
			}
		}
	}
	ok, refused := 0, 0
	for _, v := range w.Vessels() {
		_, err := w.VesselSchedule(v.IMO, start)
		switch {
		case supports[v.Carrier] && err == nil:
			ok++
		case supports[v.Carrier] && swappedOut(tr, v.IMO, start):
			// its voyages in the window sailed by substitutes
		case !supports[v.Carrier] && err != nil:
			refused++
		default:
			t.Errorf("vessel %d of %s: err %v, carrier supports by-vessel %v", v.IMO, v.Carrier, err, supports[v.Carrier])
		}
	}
	if ok == 0 || refused == 0 {
		t.Errorf("%d vessel schedules answered, %d refused; want both", ok, refused)
	}
}
