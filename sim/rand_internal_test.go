package sim

import (
	"math"
	"testing"
)

func TestDrawsAreWellDistributed(t *testing.T) {
	const n = 200000
	var sum, sum2, usum float64
	for i := int64(0); i < n; i++ {
		z := normal(hash(42, tagEST, i))
		sum += z
		sum2 += z * z
		u := unit(hash(42, tagDelay, i))
		if u < 0 || u >= 1 {
			t.Fatalf("unit %v outside [0, 1)", u)
		}
		usum += u
	}
	mean, variance := sum/n, sum2/n-(sum/n)*(sum/n)
	if math.Abs(mean) > 0.01 || math.Abs(variance-1) > 0.02 {
		t.Errorf("normal: mean %.4f, variance %.4f", mean, variance)
	}
	if math.Abs(usum/n-0.5) > 0.005 {
		t.Errorf("uniform mean %.4f", usum/n)
	}
	var ms, ms2 float64
	for r := int64(0); r < n; r++ {
		z := movingNormal(42, tagEST, 1, 2, 3, r)
		ms += z
		ms2 += z * z
	}
	if v := ms2/n - (ms/n)*(ms/n); math.Abs(v-1) > 0.03 {
		t.Errorf("moving normal variance %.4f, want 1", v)
	}
}

func TestHashSeparatesInputs(t *testing.T) {
	seen := map[uint64]bool{}
	for seed := int64(0); seed < 50; seed++ {
		for tag := uint64(1); tag < 5; tag++ {
			for id := int64(-50); id < 50; id++ {
				h := hash(seed, tag, id)
				if seen[h] {
					t.Fatalf("collision at seed %d tag %d id %d", seed, tag, id)
				}
				seen[h] = true
			}
		}
	}
}
