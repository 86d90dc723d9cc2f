package estimate_test

import (
	"math"
	"testing"
	"time"

	"github.com/etalake/etalake/estimate"
)

// An arrival teaches each horizon bucket the latest ETA observed that far
// before it (actual − observed, as eta_accuracy picks the ETA it judges),
// not the latest whose own distance (ETA − observed) fell in the bucket:
// that one is the ETA whose error kept it inside, and a late carrier's
// corrections came out too small (BENCHMARKS.md). Here a late carrier:
// the ETA seen 3.3 days before the arrival says 2.5 days ahead (19.2 h
// late, bucket 2.5–4 either way), the one seen 2.8 days before says 1.6
// days ahead (28.8 h late, bucket 1.5–2.5 by its own distance): bucket
// 2.5–4 learns the later one's error, and no bucket the earlier one's.
func TestAnArrivalTeachesABucketTheLatestETASeenThatFarBeforeIt(t *testing.T) {
	actual := day0.Add(10 * 24 * time.Hour)
	key := estimate.Key{Shipment: "S", Type: "CT", Target: "POD"}
	row := func(before, aheadDays float64) estimate.Row {
		at := actual.Add(-time.Duration(before * 24 * float64(time.Hour)))
		eta := at.Add(time.Duration(aheadDays * 24 * float64(time.Hour)))
		o := estimate.Obs{Key: key, ObservedAt: at, Carrier: "MSCU", Port: "NLRTM", Lane: "CNSHA-NLRTM", ETA: eta}
		return estimate.Row{Obs: o, HorizonDays: aheadDays, Bucket: estimate.Bucket(aheadDays), Estimate: eta, SpreadH: 1}
	}
	rows := []estimate.Row{row(3.3, 2.5), row(2.8, 1.6)}
	learned := estimate.Learn(estimate.Arrival{Key: key, KnownAt: actual.Add(time.Hour), ActualAt: actual}, rows)
	got := map[int]float64{}
	for _, l := range learned {
		got[l.Bucket] = l.CarrierH
	}
	if want := 1.2 * 24; len(got) != 1 || math.Abs(got[estimate.Bucket(3)]-want) > 1e-6 {
		t.Errorf("learned %v (bucket → carrier error, hours), want only bucket %d (2.5–4 days) with %.1f h, the ETA seen 2.8 days before",
			got, estimate.Bucket(3), want)
	}
}
