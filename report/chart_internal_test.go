package report

import (
	"slices"
	"testing"
)

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		hi   float64
		n    int
		want []float64
	}{
		{116.6, 6, []float64{0, 20, 40, 60, 80, 100, 120}},
		{30, 3, []float64{0, 10, 20, 30}},
		{65, 3, []float64{0, 25, 50, 75}},
		{1, 3, []float64{0, 0.5, 1}},
		{0, 3, []float64{0, 0.5, 1}}, // nothing to show: a unit axis
	} {
		if got := niceTicks(tc.hi, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("niceTicks(%v, %d) = %v, want %v", tc.hi, tc.n, got, tc.want)
		}
	}
}

func TestHistogramClipsTheTails(t *testing.T) {
	samples := []ErrorSample{
		{Hours: []float64{-200, -50, -7, -0.5, 0, 5.99, 6, 71.9, 72, 300}},
		{Hours: []float64{-1, 1}},
	}
	lo, hi := errorRange(samples)
	if lo != clipLow || hi != clipHigh {
		t.Fatalf("range [%v, %v), want the clip [%v, %v)", lo, hi, clipLow, clipHigh)
	}
	h := newHistogram(samples[0].Hours, lo, hi, binHours)
	if h.Below != 2 || h.Above != 2 {
		t.Errorf("tails %d below, %d above; want 2 and 2", h.Below, h.Above)
	}
	want := map[int]int{6: 1, 7: 1, 8: 2, 9: 1, 19: 1} // bins of [-48, 72) by 6 h
	for i, n := range h.Counts {
		if n != want[i] {
			t.Errorf("bin %d [%v, %v): %d, want %d", i, lo+float64(i)*binHours, lo+float64(i+1)*binHours, n, want[i])
		}
	}
	// A narrow sample keeps 0 inside and its extent in whole bins.
	lo, hi = errorRange([]ErrorSample{{Hours: []float64{0.5, 2, 13}}})
	if lo != -6 || hi != 18 {
		t.Errorf("range [%v, %v), want [-6, 18)", lo, hi)
	}
}
