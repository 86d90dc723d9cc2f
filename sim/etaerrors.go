package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/etalake/etalake/internal/setting"
)

// ETAErrors are the settings of the realistic ETA errors of a world (the
// model is eta.go's): biases that differ by lane and port and wander over
// time, heavy-tailed carrier errors, and a predictive ETA that is itself
// biased and sometimes missing. A zero field turns its part off; the zero
// ETAErrors is the model the simulator had before them. The defaults
// (DefaultETAErrors) and the figures they come from are in docs/simulator.md
// and docs/design.md.
type ETAErrors struct {
	// LaneBiasH is the spread (standard deviation, hours at full scale
	// s(h) = 1) of a carrier's bias from one call to another around its own
	// bias: half its variance by service (lane), half by port, each
	// centred so that the carrier's average stays its own.
	LaneBiasH float64 `json:"lane_bias_hours"`
	// DriftH is the standard deviation after 30 days of a random walk of
	// each carrier's bias (hours at full scale), centred on the window.
	DriftH float64 `json:"drift_hours_per_30d"`
	// TailsDF makes the carrier's noise a Student t with this many degrees
	// of freedom, scaled to unit variance (more than 2); 0 keeps it normal.
	TailsDF float64 `json:"tails_df"`
	// PredictiveBiasH is the bias of the service's predictive ETA, actual −
	// predictive, hours at full scale.
	PredictiveBiasH float64 `json:"predictive_bias_hours"`
	// PredictiveGaps is the share of calls for which the service never
	// shows a predictive ETA (0 to 0.95).
	PredictiveGaps float64 `json:"predictive_gaps"`
}

// DefaultETAErrors are the realistic settings a WorldConfig with nil
// Errors takes.
func DefaultETAErrors() ETAErrors {
	return ETAErrors{LaneBiasH: 8, DriftH: 6, TailsDF: 4, PredictiveBiasH: 2, PredictiveGaps: 0.15}
}

// Bounds of ETAErrors.
const (
	maxLaneBiasH       = 48
	maxDriftH          = 48
	maxTailsDF         = 1000
	maxPredictiveBiasH = 48
	maxPredictiveGaps  = 0.95
)

// Validate says the first rule e breaks, as a *setting.Error, or nil.
func (e ETAErrors) Validate() error {
	return setting.First(
		within("LaneBiasH", e.LaneBiasH, 0, maxLaneBiasH, "hours"),
		within("DriftH", e.DriftH, 0, maxDriftH, "hours"),
		e.validateTails(),
		within("PredictiveBiasH", e.PredictiveBiasH, -maxPredictiveBiasH, maxPredictiveBiasH, "hours"),
		within("PredictiveGaps", e.PredictiveGaps, 0, maxPredictiveGaps, "share"),
	)
}

func (e ETAErrors) validateTails() error {
	if e.TailsDF == 0 || (e.TailsDF > 2 && e.TailsDF <= maxTailsDF) {
		return nil
	}
	return setting.Refuse("TailsDF", e.TailsDF, fmt.Sprintf("0 (normal errors) or more than 2 and at most %d degrees of freedom (a t with 2 or fewer has no variance)", maxTailsDF))
}

// within checks that x, a number of unit, is from lo to hi (NaN is not).
func within(field string, x, lo, hi float64, unit string) error {
	if !(x >= lo && x <= hi) {
		return setting.Refuse(field, x, fmt.Sprintf("%g to %g %s, 0 for off", lo, hi, unit))
	}
	return nil
}

// etaBiases are a world's biases beside each carrier's own, drawn once at
// NewWorld so that an ETA only looks them up.
type etaBiases struct {
	lane  []float64   // per service, hours at full scale
	port  [][]float64 // per carrier, per place
	drift [][]float64 // per carrier, per day from driftFrom
	from  int64       // unix time of drift day 0 (midnight UTC)
}

// driftDays is the day of a time in the drift tables, clamped to them.
func (b *etaBiases) driftDay(car int, t int64) float64 {
	d := b.drift[car]
	if len(d) == 0 {
		return 0
	}
	i := min(max(floorDiv(t-b.from, day), 0), int64(len(d)-1))
	return d[i]
}

// callBias is the full-scale bias of call ci estimated at time t: the
// carrier's own, its service's and its port's offsets, and its drift then.
func (w *World) callBias(ci int, t int64) float64 {
	c := &w.calls[ci]
	car := w.services[c.svc].carrier
	return w.carriers[car].biasH + w.biases.lane[c.svc] + w.biases.port[car][c.port] + w.biases.driftDay(car, t)
}

// drawBiases draws the lane, port and drift biases (after the shipments:
// the offsets are centred on the carrier's shipments' arrivals).
func (w *World) drawBiases(e ETAErrors, from, to int64) {
	b := &w.biases
	b.lane = make([]float64, len(w.services))
	b.port = make([][]float64, len(w.carriers))
	b.drift = make([][]float64, len(w.carriers))
	for i := range b.port {
		b.port[i] = make([]float64, len(w.places))
	}
	b.from = from - mod64(from, day)
	if e.LaneBiasH > 0 {
		w.drawOffsets(e.LaneBiasH / math.Sqrt2)
	}
	if e.DriftH > 0 {
		w.drawDrift(e.DriftH, to)
	}
}

// drawOffsets draws each service's and each carrier-port's offset, normal
// with standard deviation sd, and centres them per carrier on the PODs of
// its shipments (so that a carrier's mean bias over what is tracked stays
// its own): weighted by how many shipments arrive on each service and at
// each port; a carrier without shipments, unweighted over its services and
// ports.
func (w *World) drawOffsets(sd float64) {
	b := &w.biases
	nc := len(w.carriers)
	svcW, portW := make([]float64, len(w.services)), make([][]float64, nc)
	for i := range portW {
		portW[i] = make([]float64, len(w.places))
	}
	shipped := make([]bool, nc)
	for i := range w.shipments {
		legs := w.shipments[i].finalLegs()
		c := &w.calls[legs[len(legs)-1].to]
		car := w.services[c.svc].carrier
		svcW[c.svc]++
		portW[car][c.port]++
		shipped[car] = true
	}
	called := make([][]bool, nc) // the ports each carrier calls
	for i := range called {
		called[i] = make([]bool, len(w.places))
	}
	for si := range w.services {
		s := &w.services[si]
		b.lane[si] = sd * normal(hash(w.seed, tagLaneBias, s.id))
		for _, p := range s.ports {
			called[s.carrier][p] = true
		}
	}
	for car := range w.carriers {
		for p := range w.places {
			if called[car][p] {
				b.port[car][p] = sd * normal(hash(w.seed, tagPortBias, strID(w.carriers[car].scac), strID(w.places[p].Locode)))
			}
		}
	}
	for car := range w.carriers {
		var ls, lw, ps, pw float64
		for si := range w.services {
			if w.services[si].carrier == car {
				wt := svcW[si]
				if !shipped[car] {
					wt = 1
				}
				ls, lw = ls+wt*b.lane[si], lw+wt
			}
		}
		for p := range w.places {
			if called[car][p] {
				wt := portW[car][p]
				if !shipped[car] {
					wt = 1
				}
				ps, pw = ps+wt*b.port[car][p], pw+wt
			}
		}
		for si := range w.services {
			if w.services[si].carrier == car && lw > 0 {
				b.lane[si] -= ls / lw
			}
		}
		for p := range w.places {
			if called[car][p] && pw > 0 {
				b.port[car][p] -= ps / pw
			}
		}
	}
}

// drawDrift draws each carrier's random walk, a day at a time from
// b.from to to: increments normal with variance driftH²/30, so that its
// standard deviation after 30 days is driftH; then centred on the days of
// the window [Start, Start + Days), where the world's realised figures
// (and a demo's nights) are.
func (w *World) drawDrift(driftH float64, to int64) {
	b := &w.biases
	n := int(floorDiv(to-b.from, day)) + 1
	step := driftH / math.Sqrt(30)
	lo := int(floorDiv(w.start.Unix()-b.from, day))
	hi := min(lo+w.cfg.Days, n)
	for car := range w.carriers {
		d := make([]float64, n)
		x, id := 0.0, strID(w.carriers[car].scac)
		for i := range d {
			x += step * normal(hash(w.seed, tagDrift, id, int64(i)))
			d[i] = x
		}
		mean := 0.0
		for _, v := range d[lo:hi] {
			mean += v
		}
		mean /= float64(hi - lo)
		for i := range d {
			d[i] -= mean
		}
		b.drift[car] = d
	}
}

// tailScale is the scale of call ci's carrier noise that makes it a
// Student t with df degrees of freedom and unit variance: √((df − 2)/V)
// with V a chi-square of df degrees drawn once per call, so that a call's
// errors stay correlated across revisions and each is exactly t; 1 when
// df is 0 (normal).
func (w *World) tailScale(ci int) float64 {
	df := w.cfg.Errors.TailsDF
	if df == 0 {
		return 1
	}
	a, b, c := w.callKey(ci)
	return math.Sqrt((df - 2) / (2 * gamma(df/2, hash(w.seed, tagTails, a, b, c))))
}

// gamma draws from Gamma(shape, 1), shape ≥ 1, by Marsaglia and Tsang's
// method over a stream of hashed draws from h: a pure function of h.
func gamma(shape float64, h uint64) float64 {
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for i := uint64(0); ; i++ {
		x := normal(mix(h ^ (2*i + 1)))
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := unit(mix(h ^ (2*i + 2)))
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// predictiveGap says whether the service never shows a predictive ETA of
// call ci: a hashed share PredictiveGaps of calls.
func (w *World) predictiveGap(ci int) bool {
	g := w.cfg.Errors.PredictiveGaps
	if g == 0 {
		return false
	}
	a, b, c := w.callKey(ci)
	return unit(hash(w.seed, tagPredictiveGap, a, b, c)) < g
}

// biasTruth fills the lane, port and drift biases of carrier ci.
func (w *World) biasTruth(ci int, ct *CarrierTruth) {
	b := &w.biases
	ct.ServiceBiasHours, ct.PortBiasHours = map[string]float64{}, map[string]float64{}
	for si := range w.services {
		s := &w.services[si]
		if s.carrier != ci {
			continue
		}
		ct.ServiceBiasHours[s.code] = b.lane[si]
		for _, p := range s.ports {
			ct.PortBiasHours[w.places[p].Locode] = b.port[ci][p]
		}
	}
	ct.DriftFrom = unixUTC(b.from)
	ct.DriftDailyHours = append([]float64{}, b.drift[ci]...)
}

// CallBiasHours is the full-scale bias b of the carrier ETA model (the
// package's eta.go) of a call of the carrier's service at the port, as
// estimated by a revision made at revisedAt: the carrier's own bias, its
// service's and port's offsets and its drift that day. The expected error
// actual − eta at a horizon h under 5 days is b·s(h). NaN for an unknown
// carrier.
func (t Truth) CallBiasHours(scac, service, port string, revisedAt time.Time) float64 {
	for _, c := range t.Carriers {
		if c.SCAC != scac {
			continue
		}
		b := c.ETABiasHours + c.ServiceBiasHours[service] + c.PortBiasHours[port]
		if d := c.DriftDailyHours; len(d) > 0 {
			i := min(max(int(math.Floor(revisedAt.Sub(c.DriftFrom).Hours()/24)), 0), len(d)-1)
			b += d[i]
		}
		return b
	}
	return math.NaN()
}
