package estimate_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/estimate"
)

var day0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// arrivals builds n arrivals of carrier at bucket 3 (2.5–4 days) whose
// carrier ETA was late by errH ± 2 h, known over the 30 days before day0,
// with the estimate's own errors spread evenly over ±2 spreads.
func arrivals(carrier, lane string, n int, errH float64) []estimate.Learned {
	var out []estimate.Learned
	for i := range n {
		jitter := 3 * float64(i%5-2) // −6 … 6
		out = append(out, estimate.Learned{
			Key:     estimate.Key{Shipment: carrier + lane + string(rune('A'+i%26)) + string(rune('a'+i/26)), Type: "CT", Target: "POD"},
			KnownAt: day0.Add(-time.Duration(30*n-30*i) * time.Hour), Carrier: carrier, Port: "NLRTM", Lane: lane,
			Bucket: estimate.Bucket(3), CarrierH: errH + jitter, PredictiveH: math.NaN(), Own: float64(i%41-20) / 10,
		})
	}
	return out
}

func obs(carrier, lane string) estimate.Obs {
	at := day0.Add(5 * time.Hour)
	return estimate.Obs{Key: estimate.Key{Shipment: "X", Type: "CT", Target: "POD"}, ObservedAt: at,
		Carrier: carrier, Port: "NLRTM", Lane: lane, ETA: at.Add(3 * 24 * time.Hour)}
}

// A carrier late by 10 h on 100 arrivals gets its ETA moved about 10 h
// later (its own mean, barely shrunk towards none); a carrier never seen
// keeps its ETA; a lane with 5 arrivals moves a third of the
// way (5/(5+10)) from its carrier's correction towards its own mean.
func TestTheEstimateCorrectsByWhatEachLevelKnows(t *testing.T) {
	learned := append(arrivals("MAEU", "CNSHA-NLRTM", 100, 10), arrivals("MSCU", "CNSHA-NLRTM", 100, -10)...)
	learned = append(learned, arrivals("MSCU", "SGSIN-NLRTM", 5, -4)...)
	m := estimate.NewModel(day0, learned)

	shift := func(o estimate.Obs) (float64, estimate.Row) {
		r := m.Estimate(o)
		return r.Estimate.Sub(o.ETA).Hours(), r
	}
	if h, r := shift(obs("MAEU", "CNSHA-NLRTM")); math.Abs(h-10) > 1 || r.Level != "lane" {
		t.Errorf("MAEU, 100 arrivals 10 h late: moved %.2f h at level %s; want about 10 at lane", h, r.Level)
	}
	if h, r := shift(obs("ZIMU", "CNSHA-NLRTM")); h != 0 || r.Level != "all" || !r.Intervals {
		t.Errorf("ZIMU, never seen: moved %.2f h at level %s, intervals %v; want its ETA as it is, at level all, with the others' spread", h, r.Level, r.Intervals)
	}
	carrier, _ := shift(obs("MSCU", "NLRTM-NLRTM")) // a lane of its never seen
	h, r := shift(obs("MSCU", "SGSIN-NLRTM"))
	if want := carrier + 5.0/15*(-4-carrier); math.Abs(h-want) > 1 {
		t.Errorf("MSCU (moved %.2f h on a lane never seen) on a lane of 5 arrivals 4 h early: moved %.2f h; want about %.2f, a third of the way to the lane's mean", carrier, h, want)
	}
	if !strings.Contains(r.Basis, "carrier×lane 5") {
		t.Errorf("basis %q does not say the lane's 5 arrivals", r.Basis)
	}
	if !r.Intervals || !r.Lo95.Before(r.Lo80) || !r.Lo80.Before(r.Estimate) || !r.Estimate.Before(r.Hi80) || !r.Hi80.Before(r.Hi95) {
		t.Errorf("intervals lo95 %v lo80 %v est %v hi80 %v hi95 %v: want nested around the estimate", r.Lo95, r.Lo80, r.Estimate, r.Hi80, r.Hi95)
	}
}

// Nothing known: the carrier's ETA as it is, and no interval rather than
// one made up.
func TestWithNothingKnownTheEstimateIsTheCarriersWithoutInterval(t *testing.T) {
	r := estimate.NewModel(day0, nil).Estimate(obs("MAEU", "CNSHA-NLRTM"))
	if !r.Estimate.Equal(r.ETA) || r.Intervals || r.Level != "none" {
		t.Errorf("estimate %v of ETA %v, intervals %v, level %s; want the ETA, none, none", r.Estimate, r.ETA, r.Intervals, r.Level)
	}
}

// An arrival known on the day itself, or later, is not learned from.
func TestADayDoesNotLearnFromItsOwnArrivals(t *testing.T) {
	late := arrivals("MAEU", "CNSHA-NLRTM", 50, 30)
	for i := range late {
		late[i].KnownAt = day0.Add(time.Duration(i) * time.Minute)
	}
	r := estimate.NewModel(day0, late).Estimate(obs("MAEU", "CNSHA-NLRTM"))
	if !r.Estimate.Equal(r.ETA) || r.Level != "none" {
		t.Errorf("arrivals known on the day itself moved the estimate to %v (ETA %v, level %s)", r.Estimate, r.ETA, r.Level)
	}
}

// A carrier whose ETAs are pessimistic among optimistic ones is not
// pulled the wrong way by the others while its own arrivals are few: its
// correction is shrunk towards none (its own ETA), not towards all
// carriers' mean.
func TestAFewArrivalsOfAnUnlikeCarrierAreNotPulledTheWrongWay(t *testing.T) {
	learned := append(arrivals("MSCU", "CNSHA-NLRTM", 200, 20), arrivals("WHLC", "CNSHA-NLRTM", 5, -10)...)
	o := obs("WHLC", "CNSHA-NLRTM")
	r := estimate.NewModel(day0, learned).Estimate(o)
	if h := r.Estimate.Sub(o.ETA).Hours(); h > 0 || h < -10 {
		t.Errorf("WHLC, 5 arrivals 10 h early among others 20 h late: moved %+.2f h; want earlier than its ETA, by less than 10 h", h)
	}
}
