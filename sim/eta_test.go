package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
)

func meanRMSE(xs []float64) (mean, rmse float64) {
	for _, x := range xs {
		mean += x
		rmse += x * x
	}
	n := float64(len(xs))
	return mean / n, math.Sqrt(rmse / n)
}

// The expected carrier error at the 3-day horizon is bias·s(3 d): sampled
// through the world's own estimator at every revision 3 to 4 days before
// each call's actual arrival, in a world without lane, port and drift
// biases (etaerrors_test.go checks the call's bias with them).
func TestCarrierErrorAtThreeDays(t *testing.T) {
	w, tr := plainWorld(t)
	for _, c := range tr.Carriers {
		errs := w.HorizonErrors(c.SCAC, sim.SourceCarrier, 72*time.Hour, 96*time.Hour)
		if len(errs) < 500 {
			t.Errorf("%s: %d samples", c.SCAC, len(errs))
			continue
		}
		mean, _ := meanRMSE(errs)
		if math.Abs(mean-c.ETABias3dHours) > 2 {
			t.Errorf("%s: mean error %.2f h at 3–4 d, truth %.2f h", c.SCAC, mean, c.ETABias3dHours)
		}
		want := c.ETABiasHours * 0.6
		if math.Abs(c.ETABias3dHours-want) > 1e-9 || math.Abs(tr.ExpectedCarrierError(c.SCAC, 80*time.Hour)-want) > 1e-9 {
			t.Errorf("%s: eta_bias_3d_hours %.2f, ExpectedCarrierError %.2f, want bias·0.6 = %.2f", c.SCAC,
				c.ETABias3dHours, tr.ExpectedCarrierError(c.SCAC, 80*time.Hour), want)
		}
	}
}

// Far from arrival the carrier still quotes (most of) the schedule.
func TestFarEstimatesFollowTheSchedule(t *testing.T) {
	w, tr := defaultWorld(t)
	for _, scac := range []string{"ZIMU", "HLCU"} {
		c := carrierTruth(t, tr, scac)
		mean, _ := meanRMSE(w.HorizonErrors(scac, sim.SourceCarrier, 25*24*time.Hour, 30*24*time.Hour))
		want := c.ETABiasHours + 0.8*c.MeanArrivalDelayHours
		if math.Abs(mean-want) > 0.25*math.Abs(want)+3 {
			t.Errorf("%s: mean error %.1f h at 25–30 d, want about bias + 0.8·mean delay = %.1f h", scac, mean, want)
		}
	}
}

// Without a predictive bias (ETAErrors.PredictiveBiasH 0) the predictive
// ETA is unbiased, and tighter than the carriers' either way.
func TestPredictiveIsUnbiasedAndTighter(t *testing.T) {
	w, tr := plainWorld(t)
	for _, c := range tr.Carriers {
		pred := w.HorizonErrors(c.SCAC, sim.SourcePredictive, 0, 72*time.Hour)
		car := w.HorizonErrors(c.SCAC, sim.SourceCarrier, 0, 72*time.Hour)
		pm, pr := meanRMSE(pred)
		_, cr := meanRMSE(car)
		if math.Abs(pm) > 0.3 {
			t.Errorf("%s: predictive mean error %.2f h, want 0", c.SCAC, pm)
		}
		if pr > 0.7*cr {
			t.Errorf("%s: predictive RMSE %.2f h not clearly under the carrier's %.2f h", c.SCAC, pr, cr)
		}
	}
	if tr.Predictive.AfterArrival != "null" || tr.Predictive.WindowHours != 72 || tr.Predictive.Spread3dHours >= tr.Predictive.SpreadHours {
		t.Errorf("predictive truth %+v", tr.Predictive)
	}
}

// Without gaps (ETAErrors.PredictiveGaps 0) the predictive ETA is shown
// whenever it is within 72 hours; never outside them, gaps or not.
func TestPredictiveOnlyWithin72Hours(t *testing.T) {
	w, tr := plainWorld(t)
	shown, expected := 0, 0
	for i, s := range tr.Shipments {
		if i%4 != 0 {
			continue
		}
		arr := podArrival(s)
		for at := arr.Add(-5 * 24 * time.Hour); at.Before(arr.Add(24 * time.Hour)); at = at.Add(5 * time.Hour) {
			if at.Before(s.BookedAt) {
				continue
			}
			pod := mustShipment(t, w, refOf(s), at).Route.Pod
			p := pod.PredictiveETA
			if *pod.Actual != !at.Before(arr) {
				t.Errorf("%s at %s: pod actual %v, arrival %s", s.Number, at, *pod.Actual, arr)
			}
			if p != nil {
				shown++
				if *pod.Actual || math.Abs(hours(p.Sub(at))) > 72 {
					t.Errorf("%s at %s: predictive %s shown (arrived %v)", s.Number, at, p, *pod.Actual)
				}
			}
			if !*pod.Actual && arr.Sub(at) < 60*time.Hour {
				expected++
				if p == nil {
					t.Errorf("%s at %s: no predictive ETA %s before arrival", s.Number, at, arr.Sub(at))
				}
			}
		}
	}
	if shown == 0 || expected == 0 {
		t.Errorf("predictive shown %d times, expected %d", shown, expected)
	}
}

func TestEstimatesAreRevisedDailyAndReplacedByActuals(t *testing.T) {
	w, tr := defaultWorld(t)
	changed := 0
	for _, s := range tr.Shipments[:120] {
		arr := podArrival(s)
		if arr.Before(start.AddDate(0, 0, 5)) || arr.After(start.AddDate(0, 0, 40)) || start.Before(s.BookedAt) {
			continue
		}
		ref := refOf(s)
		var prev time.Time
		for at := start; at.Before(arr); at = at.Add(24 * time.Hour) {
			sh := mustShipment(t, w, ref, at)
			// Within a carrier revision (a day) the estimate does not move.
			again := mustShipment(t, w, ref, sh.Metadata.UpdatedAt.Add(23*time.Hour))
			if !again.Route.Pod.Date.Equal(*sh.Route.Pod.Date) && !*again.Route.Pod.Actual {
				t.Errorf("%s: estimate moved within a revision: %s then %s", s.Number, sh.Route.Pod.Date, again.Route.Pod.Date)
			}
			if !prev.IsZero() && !prev.Equal(*sh.Route.Pod.Date) {
				changed++
			}
			prev = *sh.Route.Pod.Date
		}
		after := mustShipment(t, w, ref, arr)
		if !*after.Route.Pod.Actual || !after.Route.Pod.Date.Equal(arr) {
			t.Errorf("%s at arrival: pod %s actual %v, want %s", s.Number, after.Route.Pod.Date, *after.Route.Pod.Actual, arr)
		}
	}
	if changed == 0 {
		t.Error("no estimate was ever revised")
	}
}
