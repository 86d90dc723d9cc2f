package report

import "testing"

// A mean DuckDB summed in another order differs in its last bits: the
// report prints it the same either way (the demo's CMDU bias, 1.75 h,
// came back as 1.7499999999999991 and as 1.7500000000000009).
func TestTheSameMeanPrintsTheSameWhateverTheOrderOfItsSum(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		want string
	}{
		{1.7499999999999991, 1.7500000000000009, "+1.8"},
		{-2.2500000000000004, -2.2499999999999996, "-2.3"},
		{0.04999999999999999, 0.05000000000000001, "+0.1"},
	} {
		if a, b := signedHours(c.a), signedHours(c.b); a != c.want || b != c.want {
			t.Errorf("%v and %v print as %s and %s, want %s both", c.a, c.b, a, b, c.want)
		}
	}
	if a, b := percent(0.125-1e-17), percent(0.125+1e-16); a != b {
		t.Errorf("12.5 %% prints as %s and %s", a, b)
	}
	if got := hours(1.04); got != "1.0" {
		t.Errorf("1.04 h prints as %s, want 1.0", got)
	}
}
