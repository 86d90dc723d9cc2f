package report

import (
	"math"
	"slices"
	"testing"
)

func TestRankSharesPlacesNothingSeparates(t *testing.T) {
	acc := func(calls int, mae, se float64) map[int]Accuracy {
		return map[int]Accuracy{RankHorizon: {N: calls, NCalls: calls, Enough: calls >= 5, MAEHours: mae, MAESEHours: se}}
	}
	cs := []CarrierAccuracy{
		{Carrier: "NONE", ETA: map[int]Accuracy{}},
		{Carrier: "TINY", ETA: acc(2, 0.5, 0.1)},
		{Carrier: "SLOW", ETA: acc(9, 20, 1)},
		{Carrier: "TIE2", ETA: acc(8, 10.5, 1)},
		{Carrier: "FAST", ETA: acc(5, 2, 0.5)},
		{Carrier: "TIE1", ETA: acc(6, 10, 1)},
		{Carrier: "WIDE", ETA: acc(5, 8, 10)}, // so uncertain that nothing is clearly better
	}
	rank(cs, func(int) float64 { return 2 })
	var got []string
	var ranks [][2]int
	var tied []bool
	for _, c := range cs {
		got, ranks, tied = append(got, c.Carrier), append(ranks, [2]int{c.Rank, c.RankWorst}), append(tied, c.Tied())
	}
	// By MAE, never by the best place: WIDE (MAE 8) may be first or last
	// of the five, and is listed after FAST (2), not above it.
	if want := []string{"FAST", "WIDE", "TIE1", "TIE2", "SLOW", "TINY", "NONE"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	if want := [][2]int{{1, 2}, {1, 5}, {2, 4}, {2, 4}, {4, 5}, {0, 0}, {0, 0}}; !slices.Equal(ranks, want) {
		t.Errorf("ranks %v, want %v", ranks, want)
	}
	if want := []bool{true, true, true, true, true, false, false}; !slices.Equal(tied, want) {
		t.Errorf("tied %v, want %v", tied, want)
	}
}

func TestRankWithoutAQuantileSeparatesNothing(t *testing.T) {
	cs := []CarrierAccuracy{
		{Carrier: "A", ETA: map[int]Accuracy{RankHorizon: {N: 5, NCalls: 5, Enough: true, MAEHours: 1, MAESEHours: 0.1}}},
		{Carrier: "B", ETA: map[int]Accuracy{RankHorizon: {N: 5, NCalls: 5, Enough: true, MAEHours: 50, MAESEHours: 0.1}}},
	}
	rank(cs, func(int) float64 { return math.NaN() })
	if cs[0].Rank != 1 || cs[1].Rank != 1 || cs[0].RankWorst != 2 || !cs[0].Tied() {
		t.Errorf("ranks %d, %d: without a t quantile nothing is clearly better, want a tie", cs[0].Rank, cs[1].Rank)
	}
}
