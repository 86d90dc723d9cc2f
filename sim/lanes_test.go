package sim_test

import "testing"

func TestLanesAreTheShipmentsPortPairs(t *testing.T) {
	w, tr := defaultWorld(t)
	ports := map[string]bool{}
	for _, p := range w.Ports() {
		ports[p.Locode] = true
	}
	want := map[[2]string]int{}
	for _, s := range tr.Shipments {
		legs := bookedLegs(s) // a lane is booked: an omission moves a POD, not the lane
		want[[2]string{legs[0].From, legs[len(legs)-1].To}]++
	}
	lanes := w.Lanes()
	if len(lanes) != len(want) {
		t.Errorf("%d lanes, shipments use %d port pairs", len(lanes), len(want))
	}
	for i, l := range lanes {
		if want[[2]string{l.POL, l.POD}] != l.Shipments || l.POL == l.POD || !ports[l.POL] || !ports[l.POD] {
			t.Errorf("lane %+v: truth has %d shipments", l, want[[2]string{l.POL, l.POD}])
		}
		if i > 0 && (lanes[i-1].POL > l.POL || lanes[i-1].POL == l.POL && lanes[i-1].POD >= l.POD) {
			t.Errorf("lanes not sorted at %+v", l)
		}
	}
	// Lanes carry real trades: Asia to North Europe and across the Pacific
	// are among the busiest.
	for _, l := range [][2]string{{"CNSHA", "NLRTM"}, {"CNSHA", "USLAX"}} {
		if want[l] == 0 {
			t.Errorf("no shipment on %s→%s", l[0], l[1])
		}
	}
}
