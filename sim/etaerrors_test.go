package sim_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/setting"
	"github.com/etalake/etalake/sim"
)

// errorsWorld is a world of 1500 shipments without jumps with these ETA
// errors, and its truth.
func errorsWorld(e sim.ETAErrors, days int) (*sim.World, sim.Truth) {
	w := sim.NewWorld(sim.WorldConfig{Seed: 3, Shipments: 1500, Days: days, NoJumps: true, Errors: &e})
	return w, w.Truth()
}

// podObs is what a client saw of a shipment's POD 3 days before arrival:
// the carrier's error actual − eta and the truth's full-scale bias b of
// that call at that revision (the expected error is b·s(h), s = 0.6 on
// [2 d, 5 d)).
type podObs struct {
	scac      string
	errH, b   float64
	own       float64 // the carrier's own bias
	revisedAt time.Time
}

func observePODs(t *testing.T, w *sim.World, tr sim.Truth) []podObs {
	t.Helper()
	var out []podObs
	for _, s := range tr.Shipments {
		last := s.Legs[len(s.Legs)-1]
		at := last.ActualArrival.Add(-72 * time.Hour)
		if at.Before(s.BookedAt) {
			continue
		}
		r, err := w.CarrierETA(refOf(s), at)
		if err != nil || r.Actual {
			continue
		}
		out = append(out, podObs{scac: s.Sealine, errH: last.ActualArrival.Sub(r.ETA).Hours(),
			b: tr.CallBiasHours(s.Sealine, last.Service, last.To, r.RevisedAt), own: carrierTruth(t, tr, s.Sealine).ETABiasHours, revisedAt: r.RevisedAt})
	}
	return out
}

// slope is the least-squares slope of y on x, and the sd of x.
func slope(x, y []float64) (b, sdx float64) {
	mx, my := meanOf(x), meanOf(y)
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	return sxy / sxx, math.Sqrt(sxx / float64(len(x)))
}

func meanOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// With --eta-lane-bias 0 every call of a carrier has its own bias; with it
// on, the calls' biases spread about LaneBiasH around it, the errors the
// world answers follow the truth's call bias one for one, and over a
// carrier's shipments the offsets average to nothing (its ranking holds).
func TestLaneBiasSpreadsACarriersCalls(t *testing.T) {
	w, tr := errorsWorld(sim.ETAErrors{}, 60)
	for _, o := range observePODs(t, w, tr) {
		if o.b != o.own {
			t.Fatalf("%s: call bias %.3f h without lane bias, carrier's %.3f h", o.scac, o.b, o.own)
		}
	}
	const lane = 24
	w, tr = errorsWorld(sim.ETAErrors{LaneBiasH: lane}, 60)
	obs := observePODs(t, w, tr)
	var off, errOff []float64
	sum := map[string]float64{}
	for _, o := range obs {
		off = append(off, 0.6*(o.b-o.own))
		errOff = append(errOff, o.errH-0.6*o.own)
		sum[o.scac] += o.b - o.own
	}
	b, sd := slope(off, errOff)
	t.Logf("%d shipments: offsets at 3 d spread %.1f h (LaneBiasH·s = %.1f h); error on offset slope %.2f", len(obs), sd, lane*0.6, b)
	if sd < 0.5*lane*0.6 || sd > 1.5*lane*0.6 {
		t.Errorf("offsets at 3 d spread %.1f h, want about %.1f h", sd, lane*0.6)
	}
	if math.Abs(b-1) > 0.15 {
		t.Errorf("errors follow the truth's call bias with slope %.2f, want 1", b)
	}
	for scac, s := range sum {
		// Centred on the shipments' PODs: only those booked by the
		// 3-day cut are observed here, so allow a little.
		if n := countOf(obs, scac); math.Abs(s/float64(n)) > 0.25*lane {
			t.Errorf("%s: mean offset %.2f h over %d shipments, want about 0", scac, s/float64(n), n)
		}
	}
}

func countOf(obs []podObs, scac string) int {
	n := 0
	for _, o := range obs {
		if o.scac == scac {
			n++
		}
	}
	return n
}

// --eta-drift moves a carrier's mean error from the first month of the
// window to the last, as the truth's drift says, and averages 0 over the
// window.
func TestDriftMovesACarriersBiasOverMonths(t *testing.T) {
	const drift = 24
	w, tr := errorsWorld(sim.ETAErrors{DriftH: drift}, 120)
	start := tr.Start
	var predicted, measured []float64
	moved := 0
	for _, c := range tr.Carriers {
		lo := int(start.Sub(c.DriftFrom).Hours() / 24)
		mean := meanOf(c.DriftDailyHours[lo : lo+tr.Days])
		if math.Abs(mean) > 1e-9 {
			t.Errorf("%s: drift averages %.3f h over the window, want 0", c.SCAC, mean)
		}
		var first, last, bFirst, bLast []float64
		for _, o := range observePODs(t, w, tr) {
			if o.scac != c.SCAC {
				continue
			}
			switch d := o.revisedAt.Sub(start); {
			case d >= 0 && d < 30*24*time.Hour:
				first, bFirst = append(first, o.errH), append(bFirst, 0.6*o.b)
			case d >= 90*24*time.Hour && d < 120*24*time.Hour:
				last, bLast = append(last, o.errH), append(bLast, 0.6*o.b)
			}
		}
		if len(first) < 10 || len(last) < 10 {
			continue
		}
		p := meanOf(bLast) - meanOf(bFirst)
		if math.Abs(p) > 5 {
			moved++
		}
		predicted, measured = append(predicted, p), append(measured, meanOf(last)-meanOf(first))
	}
	b, _ := slope(predicted, measured)
	t.Logf("%d carriers, %d moved more than 5 h at 3 d between the first and the fourth month; measured on truth slope %.2f", len(predicted), moved, b)
	if moved < 3 || math.Abs(b-1) > 0.3 {
		t.Errorf("drift: %d carriers moved, slope %.2f; want several, and the world's errors moving as the truth's drift", moved, b)
	}
}

// kurtosis of xs.
func kurtosis(xs []float64) float64 {
	m := meanOf(xs)
	var m2, m4 float64
	for _, x := range xs {
		d := (x - m) * (x - m)
		m2 += d
		m4 += d * d
	}
	n := float64(len(xs))
	return (m4 / n) / ((m2 / n) * (m2 / n))
}

// --eta-tails 3 makes the carriers' errors heavy-tailed: a kurtosis far
// above a normal's 3, and about 3 with 0.
func TestTailsMakeCarrierErrorsHeavyTailed(t *testing.T) {
	for _, c := range []struct {
		df     float64
		lo, hi float64
	}{{0, 2.5, 3.6}, {3, 8, math.Inf(1)}} {
		w, tr := errorsWorld(sim.ETAErrors{TailsDF: c.df}, 60)
		var all []float64
		for _, car := range tr.Carriers {
			errs := w.HorizonErrors(car.SCAC, sim.SourceCarrier, 48*time.Hour, 96*time.Hour)
			m, sd := meanOf(errs), 0.6*car.ETASpreadHours
			for _, e := range errs {
				all = append(all, (e-m)/sd)
			}
		}
		k := kurtosis(all)
		t.Logf("tails %g: kurtosis %.1f over %d errors", c.df, k, len(all))
		if k < c.lo || k > c.hi {
			t.Errorf("tails %g: kurtosis %.2f, want %g to %g", c.df, k, c.lo, c.hi)
		}
	}
}

// --predictive-gaps 0.3 leaves about 30 % of shipments without a
// predictive ETA a day before arrival, when it is otherwise always shown.
func TestPredictiveGapsLeaveCallsWithout(t *testing.T) {
	for _, gaps := range []float64{0, 0.3} {
		w, tr := errorsWorld(sim.ETAErrors{PredictiveGaps: gaps}, 60)
		if tr.Predictive.GapShare != gaps {
			t.Errorf("truth gap share %g, want %g", tr.Predictive.GapShare, gaps)
		}
		none, n := 0, 0
		for _, s := range tr.Shipments {
			at := podArrival(s).Add(-24 * time.Hour)
			if at.Before(s.BookedAt) {
				continue
			}
			n++
			if mustShipment(t, w, refOf(s), at).Route.Pod.PredictiveETA == nil {
				none++
			}
		}
		share := float64(none) / float64(n)
		t.Logf("gaps %g: %d of %d shipments without a predictive ETA a day out (%.3f)", gaps, none, n, share)
		if math.Abs(share-gaps) > 0.06 {
			t.Errorf("gaps %g: %.3f of shipments without a predictive ETA", gaps, share)
		}
	}
}

// --predictive-bias shifts the predictive ETA's mean error by the bias
// times s(h).
func TestPredictiveBiasShiftsItsMeanError(t *testing.T) {
	for _, bias := range []float64{0, 10} {
		w, tr := errorsWorld(sim.ETAErrors{PredictiveBiasH: bias}, 60)
		var all []float64
		for _, c := range tr.Carriers {
			all = append(all, w.HorizonErrors(c.SCAC, sim.SourcePredictive, 48*time.Hour, 72*time.Hour)...)
		}
		m := meanOf(all)
		if tr.Predictive.BiasHours != bias || math.Abs(m-0.6*bias) > 0.3 {
			t.Errorf("predictive bias %g: mean error %.2f h at 2–3 d (want %.1f), truth %g", bias, m, 0.6*bias, tr.Predictive.BiasHours)
		}
	}
}

// The default world has the realistic errors, and its truth says so.
func TestDefaultWorldHasRealisticErrors(t *testing.T) {
	_, tr := defaultWorld(t)
	if tr.ETAErrors != sim.DefaultETAErrors() {
		t.Errorf("default world's errors %+v, want %+v", tr.ETAErrors, sim.DefaultETAErrors())
	}
}

func TestETAErrorsOutOfRangeAreRefusedByName(t *testing.T) {
	for _, c := range []struct {
		e     sim.ETAErrors
		field string
	}{
		{sim.ETAErrors{LaneBiasH: -1}, "Errors.LaneBiasH"},
		{sim.ETAErrors{DriftH: 49}, "Errors.DriftH"},
		{sim.ETAErrors{TailsDF: 2}, "Errors.TailsDF"},
		{sim.ETAErrors{TailsDF: 1001}, "Errors.TailsDF"},
		{sim.ETAErrors{PredictiveBiasH: -49}, "Errors.PredictiveBiasH"},
		{sim.ETAErrors{PredictiveGaps: 0.96}, "Errors.PredictiveGaps"},
		{sim.ETAErrors{PredictiveGaps: math.NaN()}, "Errors.PredictiveGaps"},
	} {
		cfg := sim.DefaultWorldConfig()
		cfg.Errors = &c.e
		var se *setting.Error
		if err := cfg.Validate(); !errors.As(err, &se) || se.Field != c.field {
			t.Errorf("%+v: %v, want a setting error naming %s", c.e, err, c.field)
		}
	}
	if err := sim.DefaultWorldConfig().Validate(); err != nil {
		t.Error(err)
	}
}
