package sim

import (
	"fmt"
	"math"
	"time"
)

// Truth is the ground truth of a world: the parameters it drew and what they
// produced, for checking what the warehouse measures.
type Truth struct {
	Seed  int64     `json:"seed"`
	Start time.Time `json:"start"`
	Days  int       `json:"days"`

	Carriers   []CarrierTruth  `json:"carriers"`
	Predictive PredictiveTruth `json:"predictive"`
	// ETAErrors are the world's realistic ETA error settings; each
	// carrier's lane, port and drift biases are in its CarrierTruth, and
	// CallBiasHours adds them up for a call.
	ETAErrors ETAErrors `json:"eta_errors"`
	// HorizonScale is s(h), ScheduleWeight w(h) of the carrier ETA model
	// (see the package's eta.go): error = b·s(h) + spread·s(h)·z + w(h)·(ACT − PLN),
	// b the call's bias (CallBiasHours).
	HorizonScale   []HorizonStep `json:"horizon_scale"`
	ScheduleWeight []HorizonStep `json:"schedule_weight"`
	// EstimateHorizonDays: port-to-port legs show EST (rather than PLN) when
	// planned within this many days of the request.
	EstimateHorizonDays float64 `json:"estimate_horizon_days"`

	Counts ShipmentCounts `json:"shipment_counts"`
	// Jumps are the rolls, omitted calls and swapped vessels (jumps.go).
	Jumps     JumpsTruth      `json:"jumps"`
	Shipments []ShipmentTruth `json:"shipments"`
}

// CarrierTruth is one carrier's parameters and realised behaviour.
type CarrierTruth struct {
	SCAC string `json:"scac"`
	Name string `json:"name"`
	// ETABiasHours and ETASpreadHours are the full-scale (s = 1) bias and
	// spread of actual − eta; ETABias3dHours is the expected error at the
	// 3-day horizon, bias·s(3 d), jumps or not: none is announced within 4
	// days of the arrival it makes. ETABiasHours is the carrier's average
	// over its shipments' arrivals in the window: the lane, port and drift
	// biases below are centred on it.
	ETABiasHours   float64 `json:"eta_bias_hours"`
	ETASpreadHours float64 `json:"eta_spread_hours"`
	ETABias3dHours float64 `json:"eta_bias_3d_hours"`
	// ServiceBiasHours and PortBiasHours are the full-scale offsets of the
	// bias by service code and by port (UN/LOCODE of each port its services
	// call), ETAErrors.LaneBiasH's; all 0 when it is.
	ServiceBiasHours map[string]float64 `json:"service_bias_hours"`
	PortBiasHours    map[string]float64 `json:"port_bias_hours"`
	// DriftDailyHours is the full-scale drift of the bias for revisions
	// made on each UTC day from DriftFrom (ETAErrors.DriftH's; empty when
	// it is 0); before the first day the first value holds, after the last
	// the last.
	DriftFrom       time.Time `json:"drift_from"`
	DriftDailyHours []float64 `json:"drift_daily_hours"`
	// RevisionTimeUTC is the time of day (HH:MM UTC) of the daily revision.
	RevisionTimeUTC string `json:"revision_time_utc"`
	// OnTimeShare is the parameter: share of arrivals within ±24 h of PLN.
	// RealisedOnTimeShare is the share among the RealisedCalls calls planned
	// to arrive in [Start, Start + Days); OnTimeDrawProbability is the
	// per-call draw probability that realises it (delays propagate along a
	// vessel's calls).
	OnTimeShare           float64 `json:"on_time_share"`
	RealisedOnTimeShare   float64 `json:"realised_on_time_share"`
	RealisedCalls         int     `json:"realised_calls"`
	OnTimeDrawProbability float64 `json:"on_time_draw_probability"`
	// LateMeanDays is the mean delay of a freshly drawn late arrival;
	// RealisedLateMeanDays the mean delay of the window's late calls.
	LateMeanDays          float64 `json:"late_mean_days"`
	RealisedLateMeanDays  float64 `json:"realised_late_mean_days"`
	MeanArrivalDelayHours float64 `json:"mean_arrival_delay_hours"`

	Supports Supports `json:"supports"`
	Services []string `json:"services"`
	Vessels  int      `json:"vessels"` // its fleet (Vessels); substitutes are in Truth.Jumps.Swaps

	Jumps CarrierJumps `json:"jumps"`
}

// Supports tells which schedule query kinds include a carrier.
type Supports struct {
	Port   bool `json:"port"`
	P2P    bool `json:"p2p"`
	Vessel bool `json:"vessel"`
}

// PredictiveTruth describes the service's predictive ETA.
type PredictiveTruth struct {
	// SpreadHours is the full-scale standard deviation of actual − predictive;
	// at horizon h it is SpreadHours·s(h). Spread3dHours is its value just
	// under the 72-hour window (s(3 d)).
	SpreadHours   float64 `json:"spread_hours"`
	Spread3dHours float64 `json:"spread_3d_hours"`
	// BiasHours is the full-scale bias of actual − predictive
	// (ETAErrors.PredictiveBiasH); at horizon h it is BiasHours·s(h).
	BiasHours   float64 `json:"bias_hours"`
	WindowHours float64 `json:"window_hours"`
	// GapShare is the share of calls for which no predictive ETA is ever
	// shown (ETAErrors.PredictiveGaps).
	GapShare      float64 `json:"gap_share"`
	RevisionHours float64 `json:"revision_every_hours"`
	// AfterArrival is what route.pod.predictiveEta holds once the vessel has
	// arrived at the POD: "null".
	AfterArrival string `json:"after_arrival"`
}

// ShipmentCounts summarises the generated shipments.
type ShipmentCounts struct {
	Total       int            `json:"total"`
	ByType      map[string]int `json:"by_type"`
	Transhipped int            `json:"transhipped"`
	WithPrepol  int            `json:"with_prepol"`
	WithPostpod int            `json:"with_postpod"`
	WithInland  int            `json:"with_inland"`
}

// ShipmentTruth is one shipment's itinerary with planned and actual times:
// the one it sailed, jumps (jumps.go) included; BookedLegs the one booked
// when a jump changed it.
type ShipmentTruth struct {
	Number     string     `json:"number"`
	Type       string     `json:"type"`
	Sealine    string     `json:"sealine"`
	Containers []string   `json:"containers"`
	BookedAt   time.Time  `json:"booked_at"`
	Prepol     string     `json:"prepol,omitempty"`
	POL        string     `json:"pol"`
	Hub        string     `json:"hub,omitempty"`
	POD        string     `json:"pod"`
	Postpod    string     `json:"postpod,omitempty"`
	Legs       []LegTruth `json:"legs"`
	// BookedLegs is the itinerary as booked, when jumps changed it.
	BookedLegs []LegTruth `json:"booked_legs,omitempty"`
	// Jumps are the changes announced for it, in announcement order.
	Jumps []JumpTruth `json:"jumps,omitempty"`
}

// LegTruth is one vessel leg of a shipment; VesselIMO the vessel that sails
// it (a swapped voyage's substitute).
type LegTruth struct {
	Service          string    `json:"service"`
	VesselIMO        int       `json:"vessel_imo"`
	Voyage           string    `json:"voyage"`
	From             string    `json:"from"`
	To               string    `json:"to"`
	PlannedDeparture time.Time `json:"planned_departure"`
	ActualDeparture  time.Time `json:"actual_departure"`
	PlannedArrival   time.Time `json:"planned_arrival"`
	ActualArrival    time.Time `json:"actual_arrival"`
}

// Truth returns the ground truth of the world (a fresh copy).
func (w *World) Truth() Truth {
	t := Truth{
		Seed: w.seed, Start: w.start, Days: w.cfg.Days,
		Predictive: PredictiveTruth{
			SpreadHours: predictiveSpreadH, Spread3dHours: round(predictiveSpreadH*stepAt(horizonScale, 3), 3),
			WindowHours: predictiveWindow.Hours(), RevisionHours: float64(predictiveEvery) / 3600, AfterArrival: "null",
			BiasHours: w.cfg.Errors.PredictiveBiasH, GapShare: w.cfg.Errors.PredictiveGaps,
		},
		ETAErrors:           *w.cfg.Errors,
		HorizonScale:        exportSteps(horizonScale),
		ScheduleWeight:      exportSteps(scheduleWeight),
		EstimateHorizonDays: float64(estimateHorizon / day),
	}
	for ci := range w.carriers {
		c := &w.carriers[ci]
		ct := CarrierTruth{
			SCAC: c.scac, Name: c.name, ETABiasHours: c.biasH, ETASpreadHours: c.spreadH,
			ETABias3dHours:  round(c.biasH*stepAt(horizonScale, 3), 3),
			RevisionTimeUTC: fmt.Sprintf("%02d:%02d", c.revMinute/60, c.revMinute%60),
			OnTimeShare:     c.onTime, RealisedOnTimeShare: round(c.realisedOnTime, 4), RealisedCalls: c.realisedCalls,
			OnTimeDrawProbability: round(c.pDraw, 4), LateMeanDays: c.lateMeanDays,
			RealisedLateMeanDays: round(c.realisedLate, 3), MeanArrivalDelayHours: round(c.meanDelayH, 3),
			Supports: Supports{Port: c.byPort, P2P: true, Vessel: c.byVessel},
			Services: []string{},
			Jumps:    w.carrierJumps(ci),
		}
		w.biasTruth(ci, &ct)
		for si := range w.services {
			if w.services[si].carrier == ci {
				ct.Services = append(ct.Services, w.services[si].code)
				ct.Vessels += w.services[si].n
			}
		}
		t.Carriers = append(t.Carriers, ct)
	}
	t.Counts = ShipmentCounts{ByType: map[string]int{"CT": 0, "BL": 0, "BK": 0}}
	for i := range w.shipments {
		s := &w.shipments[i]
		st := w.shipmentTruth(s)
		t.Shipments = append(t.Shipments, st)
		t.Counts.Total++
		t.Counts.ByType[st.Type]++
		if st.Hub != "" {
			t.Counts.Transhipped++
		}
		if st.Prepol != "" {
			t.Counts.WithPrepol++
		}
		if st.Postpod != "" {
			t.Counts.WithPostpod++
		}
		if st.Prepol != "" || st.Postpod != "" {
			t.Counts.WithInland++
		}
	}
	t.Jumps = w.jumpsTruth(t.Shipments)
	return t
}

func (w *World) shipmentTruth(s *shipment) ShipmentTruth {
	legs := s.finalLegs()
	pol, pod, hub := w.legPorts(legs)
	st := ShipmentTruth{
		Number: s.ref.Number, Type: string(s.ref.Type), Sealine: s.ref.Sealine, BookedAt: unixUTC(s.booked),
		POL: w.places[pol].Locode, POD: w.places[pod].Locode,
	}
	if hub >= 0 {
		st.Hub = w.places[hub].Locode
	}
	if s.pre >= 0 {
		st.Prepol = inlandLinks[s.pre].inland
	}
	if s.post >= 0 {
		st.Postpod = inlandLinks[s.post].inland
	}
	for _, c := range s.containers {
		st.Containers = append(st.Containers, c.number)
	}
	st.Legs = w.legTruths(legs)
	if len(s.versions) > 0 {
		st.BookedLegs = w.legTruths(s.legs)
	}
	st.Jumps = w.shipmentJumps(s)
	return st
}

// legTruths are the LegTruths of an itinerary.
func (w *World) legTruths(legs []leg) []LegTruth {
	var out []LegTruth
	for _, l := range legs {
		f, t := &w.calls[l.from], &w.calls[l.to]
		_, voy := w.voyages(l.from)
		out = append(out, LegTruth{
			Service: w.services[f.svc].code, VesselIMO: w.vessels[w.vesselAt(l.from, math.MaxInt64)].IMO, Voyage: voy,
			From: w.places[f.port].Locode, To: w.places[t.port].Locode,
			PlannedDeparture: unixUTC(f.plnDep), ActualDeparture: unixUTC(f.actDep),
			PlannedArrival: unixUTC(t.plnArr), ActualArrival: unixUTC(t.actArr),
		})
	}
	return out
}

// ExpectedCarrierError is the expected carrier ETA error (actual − eta, in
// hours) of the carrier at a horizon before actual arrival. Below 5 days it
// is exactly bias·s(h); from 5 days on, the schedule term w(h)·(ACT − PLN)
// is added with the carrier's mean arrival delay over the window, an
// approximation. It is the ETA model's error: jumps are not in it. Below 4
// days none can be (JumpsTruth.MinLeadHours); at 7 and 14 days a shipment
// whose jump was announced after the horizon's cut is judged on the ETA
// from before it, days off — ShipmentTruth.Jumps says which. NaN for an
// unknown carrier or a negative horizon.
func (t Truth) ExpectedCarrierError(scac string, horizon time.Duration) float64 {
	if horizon < 0 {
		return math.NaN()
	}
	h := horizon.Hours() / 24
	for _, c := range t.Carriers {
		if c.SCAC != scac {
			continue
		}
		e := c.ETABiasHours * stepFromTable(t.HorizonScale, h)
		if h >= 5 {
			e += stepFromTable(t.ScheduleWeight, h) * c.MeanArrivalDelayHours
		}
		return round(e, 3)
	}
	return math.NaN()
}

// round rounds x to the given number of decimals, for readable truth.
func round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(x*p) / p
}

func stepFromTable(tbl []HorizonStep, h float64) float64 {
	for _, s := range tbl {
		if s.ToDays == nil || h < *s.ToDays {
			return s.Value
		}
	}
	return 0
}

// ETASource is who made an ETA.
type ETASource string

// The two sources of ETAs in a shipment response.
const (
	SourceCarrier    ETASource = "CARRIER"
	SourcePredictive ETASource = "PREDICTIVE"
)

// HorizonErrors samples the ETA model directly: for every call of the
// carrier generated in the world and every revision of the source made at a
// horizon h (actual arrival − revision time) with lo ≤ h < hi, the error
// actual − estimate in hours. Carrier revisions are daily, predictive ones
// every 6 hours (whether or not the predictive value would be displayed).
// A swapped voyage's calls count the swap's jump in the errors of the
// revisions before it was announced (never under 4 days from arrival);
// rolls and omissions are a shipment's, not a call's, and not in these.
func (w *World) HorizonErrors(scac string, src ETASource, lo, hi time.Duration) []float64 {
	ci := carrierIndex(w.carriers, scac)
	if ci < 0 {
		return nil
	}
	car := &w.carriers[ci]
	l, u := int64(lo/time.Second), int64(hi/time.Second)
	var out []float64
	for k := range w.calls {
		c := &w.calls[k]
		if w.services[c.svc].carrier != ci {
			continue
		}
		switch src {
		case SourceCarrier:
			// T_r ∈ (ACT − hi, ACT − lo]
			for r := car.revision(c.actArr-u) + 1; car.revisionTime(r) <= c.actArr-l; r++ {
				e := w.carrierError(k, r, false)
				if arr, _ := w.expected(k, r); arr != c.actArr {
					e += float64(c.actArr-arr) / 3600 // a swap not announced yet
				}
				out = append(out, e)
			}
		case SourcePredictive:
			for q := floorDiv(c.actArr-u-epoch, predictiveEvery) + 1; epoch+q*predictiveEvery <= c.actArr-l; q++ {
				out = append(out, w.predictiveError(k, q))
			}
		}
	}
	return out
}
