package sim

import (
	"math"
	"time"
)

// The carrier ETA model. A carrier revises the estimate (EST) of every future
// arrival once a day, at its own minute of the UTC day. The estimate made at
// revision r (time T_r) of a call that actually arrives at ACT is
//
//	EST = ACT − error_hours,  error_hours = b·s(h) + spread·s(h)·z + w(h)·(ACT − PLN)
//	b = bias + lane(service) + port(carrier, port) + drift(carrier, day of T_r)
//
// with h = ACT − T_r in days, z a unit-variance noise that is a pure
// function of (seed, call, r), s(h) a step function shrinking towards
// arrival (constant on [2 d, 5 d)) and w(h) zero below 5 d and rising to
// 0.8 far out (far from arrival carriers still quote the schedule). The
// expected error at a horizon below 5 days is therefore exactly b·s(h).
// Once the call has happened, ACT replaces EST.
//
// The terms of b beside the carrier's own bias are the realistic errors
// (etaerrors.go, WorldConfig.Errors), each 0 when its setting is:
//
//   - lane(service) and port(carrier, port) are normals hashed from (seed,
//     service) and (seed, carrier, port), each of standard deviation
//     LaneBiasH/√2 (so their sum spreads LaneBiasH), then centred per
//     carrier: their means over the PODs of the carrier's shipments are 0,
//     so that its average bias over what is tracked stays its own.
//   - drift(carrier, d) is a random walk over the days of the world's span,
//     steps normal of variance DriftH²/30 hashed from (seed, carrier, d),
//     so that it moves by DriftH (one standard deviation) in 30 days;
//     centred so that its mean over the days of the window [Start, Start +
//     Days) is 0.
//
// z mixes a vessel component (shared by the vessel's calls at the same
// revision, so a vessel's estimates move together) and a call component,
// each a moving average over three consecutive revisions (so estimates
// drift rather than jump); both are standard normal. With TailsDF = ν the
// mix is multiplied by √((ν − 2)/V), V a chi-square of ν degrees drawn once
// per call from (seed, call): z is then a Student t of ν degrees scaled to
// unit variance at every revision, and a call whose V is small is far off
// at all its revisions, as a vessel caught in a storm or a strike is.
//
// A jump (jumps.go) does not bend this model: a rolled box or one
// discharged elsewhere takes the estimates of the call it now arrives on,
// and a swapped voyage's calls are estimated, until the swap is announced,
// from where the planned ship would have been (expected) — the estimate
// jumps at the announcement by how far the substitute is from it.
//
// The predictive ETA is the service's own estimate, revised every 6 hours:
// ACT − (PredictiveBiasH + predictiveSpread·z_p)·s(h), z_p standard normal,
// tighter than every carrier. It is shown only while the arrival has not
// happened and the estimate is within 72 hours of the time of the request;
// after arrival it is null; and for a share PredictiveGaps of the calls
// (hashed from (seed, call)) it is never shown.

// HorizonStep is one step of a horizon table: the value applies to horizons
// h (days before actual arrival) with FromDays ≤ h < ToDays; ToDays is nil
// for the open last step.
type HorizonStep struct {
	FromDays float64  `json:"from_days"`
	ToDays   *float64 `json:"to_days"`
	Value    float64  `json:"value"`
}

type step struct{ from, to, v float64 }

var (
	// horizonScale is s(h).
	horizonScale = []step{{0, 1, 0.3}, {1, 2, 0.45}, {2, 5, 0.6}, {5, 10, 0.8}, {10, math.Inf(1), 1.0}}
	// scheduleWeight is w(h).
	scheduleWeight = []step{{0, 5, 0}, {5, 10, 0.3}, {10, 20, 0.6}, {20, math.Inf(1), 0.8}}
)

const (
	predictiveSpreadH = 5.0                   // full scale; times s(h)
	predictiveWindow  = 72 * time.Hour        // shown when within this of at
	predictiveEvery   = int64(6 * 3600)       // seconds between predictive revisions
	estimateHorizon   = int64(14 * 24 * 3600) // port-to-port legs show EST within this
	vesselShare       = 0.5                   // share of z's variance common to a vessel
)

// stepAt evaluates a step table; horizons below zero take the first step.
func stepAt(tbl []step, hDays float64) float64 {
	for _, s := range tbl {
		if hDays < s.to {
			return s.v
		}
	}
	return tbl[len(tbl)-1].v
}

// exportSteps renders a step table for Truth.
func exportSteps(tbl []step) []HorizonStep {
	out := make([]HorizonStep, len(tbl))
	for i, s := range tbl {
		out[i] = HorizonStep{FromDays: s.from, Value: s.v}
		if !math.IsInf(s.to, 1) {
			to := s.to
			out[i].ToDays = &to
		}
	}
	return out
}

// revision is the index of the carrier's latest ETA revision at or before t.
func (c *carrier) revision(t int64) int64 {
	return floorDiv(t-epoch-int64(c.revMinute)*60, day)
}

// revisionTime is when revision r was made.
func (c *carrier) revisionTime(r int64) int64 { return epoch + int64(c.revMinute)*60 + r*day }

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// movingNormal is (n(r) + n(r−1) + n(r−2))/√3 over hashed normals of an
// identity: standard normal, correlated across neighbouring revisions.
func movingNormal(seed int64, tag uint64, a, b, c, r int64) float64 {
	s := 0.0
	for i := int64(0); i < 3; i++ {
		s += normal(hash(seed, tag, a, b, c, r-i))
	}
	return s / math.Sqrt(3)
}

// carrierZ is the unit-variance noise of call ci at revision r: standard
// normal, or a scaled Student t with Errors.TailsDF.
func (w *World) carrierZ(ci int, r int64) float64 {
	a, b, c := w.callKey(ci)
	imo := int64(w.vessels[w.calls[ci].vessel].IMO)
	zv := movingNormal(w.seed, tagESTVessel, imo, 0, 0, r)
	zc := movingNormal(w.seed, tagEST, a, b, c, r)
	return (math.Sqrt(vesselShare)*zv + math.Sqrt(1-vesselShare)*zc) * w.tailScale(ci)
}

// expected are the arrival and departure of call ci the carrier's revision
// r is built on: the actual ones, but for a swapped voyage (jumps.go)
// before the swap is announced, the planned ship's.
func (w *World) expected(ci int, r int64) (arr, dep int64) {
	c := &w.calls[ci]
	if sw := w.swapOf(ci); sw != nil && w.carriers[w.services[c.svc].carrier].revisionTime(r) < sw.at {
		j := w.jumpOf(ci)
		return j.cfArr, j.cfDep
	}
	return c.actArr, c.actDep
}

// carrierError is expected − estimate, in hours, of the arrival (dep=false)
// or departure of call ci as estimated at revision r: actual − estimate
// but before a swap is announced (expected).
func (w *World) carrierError(ci int, r int64, dep bool) float64 {
	c := &w.calls[ci]
	car := &w.carriers[w.services[c.svc].carrier]
	arr, depT := w.expected(ci, r)
	target := arr
	if dep {
		target = depT
	}
	h := float64(target-car.revisionTime(r)) / float64(day)
	s, wt := stepAt(horizonScale, h), stepAt(scheduleWeight, h)
	delayH := float64(arr-c.plnArr) / 3600
	return w.callBias(ci, car.revisionTime(r))*s + car.spreadH*s*w.carrierZ(ci, r) + wt*delayH
}

// estimate is the carrier's EST of the arrival (or departure) of call ci at
// revision r, truncated to the minute.
func (w *World) estimate(ci int, r int64, dep bool) int64 {
	arr, depT := w.expected(ci, r)
	target := arr
	if dep {
		target = depT
	}
	t := target - int64(math.Round(w.carrierError(ci, r, dep)*3600))
	return t - mod64(t, 60)
}

// callTimes is what the service says at time at about a call: arrival and
// departure, each actual once it happened, else the carrier's current
// estimate. It is the single source of every EST the world shows.
type callTimes struct {
	arr, dep       int64
	arrAct, depAct bool
	revision       int64 // the carrier revision in force
	revisionAt     int64 // when it was made
}

func (w *World) callAt(ci int, at int64) callTimes {
	c := &w.calls[ci]
	car := &w.carriers[w.services[c.svc].carrier]
	r := car.revision(at)
	ct := callTimes{revision: r, revisionAt: car.revisionTime(r)}
	if at >= c.actArr {
		ct.arr, ct.arrAct = c.actArr, true
	} else {
		ct.arr = w.estimate(ci, r, false)
	}
	if at >= c.actDep {
		ct.dep, ct.depAct = c.actDep, true
	} else {
		ct.dep = max(w.estimate(ci, r, true), ct.arr+3600)
	}
	return ct
}

// predictive is the service's predictive ETA of call ci's arrival at time
// at, and whether it is shown (arrival not yet happened, the call not one
// of the gaps, and the estimate within 72 hours of at).
func (w *World) predictive(ci int, at int64) (int64, bool) {
	c := &w.calls[ci]
	if at >= c.actArr || w.predictiveGap(ci) {
		return 0, false
	}
	q := floorDiv(at-epoch, predictiveEvery)
	t := w.predictiveAt(ci, q)
	if abs64(t-at) > int64(predictiveWindow/time.Second) {
		return 0, false
	}
	return t, true
}

// predictiveAt is the predictive estimate of call ci made at predictive
// revision q (time epoch + q·6 h), truncated to the minute.
func (w *World) predictiveAt(ci int, q int64) int64 {
	t := w.calls[ci].actArr - int64(math.Round(w.predictiveError(ci, q)*3600))
	return t - mod64(t, 60)
}

// predictiveError is actual − predictive estimate, in hours.
func (w *World) predictiveError(ci int, q int64) float64 {
	c := &w.calls[ci]
	h := float64(c.actArr-(epoch+q*predictiveEvery)) / float64(day)
	a, b, k := w.callKey(ci)
	s := stepAt(horizonScale, h)
	return w.cfg.Errors.PredictiveBiasH*s + predictiveSpreadH*s*movingNormal(w.seed, tagPredictive, a, b, k, q)
}
