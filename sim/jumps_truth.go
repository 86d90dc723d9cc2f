package sim

import (
	"math"
	"sort"
	"time"
)

// JumpsTruth is the ground truth of the world's jumps (jumps.go): every
// omitted call and swapped voyage of the generated world, the shipments they
// and the rolls changed (ShipmentTruth.Jumps says how), and the guarantee on
// their timing.
type JumpsTruth struct {
	// Enabled is false in a world built with WorldConfig.NoJumps: ETAs only
	// drift, and every list and count here is empty.
	Enabled bool `json:"enabled"`
	// MinLeadHours: every change is announced at least this long before the
	// arrival it makes (a shipment's new POD arrival; a swapped voyage's
	// calls), so the ETAs known 1 and 3 days before an arrival are never
	// from before a jump: the carriers' bias there is the ETA model's alone
	// (CarrierTruth.ETABias3dHours). At 7 and 14 days an ETA from before a
	// jump, days off, can be the one known.
	MinLeadHours float64 `json:"min_lead_hours"`
	// RevisionAligned: announcements fall on the carrier's daily revision
	// (CarrierTruth.RevisionTimeUTC), when its answers change anyway.
	RevisionAligned bool `json:"revision_aligned"`

	Counts    JumpCounts      `json:"counts"`
	Omissions []OmissionTruth `json:"omissions"`
	Swaps     []SwapTruth     `json:"swaps"`
}

// JumpCounts counts the shipments with at least one jump of each kind, and
// those with at least one announced after they were booked (the changes a
// client tracking them from booking sees).
type JumpCounts struct {
	Rolled  int `json:"shipments_rolled"`
	Omitted int `json:"shipments_omitted"`
	Swapped int `json:"shipments_swapped"`
	Visible int `json:"shipments_with_visible_jumps"`
}

// CarrierJumps are a carrier's jump rates (carriers.go; 0 without jumps) and
// what they drew over the whole generated world (every generated voyage and
// call, every shipment; not only the window).
type CarrierJumps struct {
	// RollRate is per loading; Loadings counts the shipments' loadings (one
	// per shipment, two when transhipped) and Rolls the rolls drawn and made
	// (a box rolled because its loading call was omitted is not in Rolls).
	RollRate float64 `json:"roll_rate"`
	Loadings int     `json:"loadings"`
	Rolls    int     `json:"rolls"`
	// OmissionRate is per omissible call: a range port's, the vessel's next
	// call within 4 days, never a hub's.
	OmissionRate   float64 `json:"omission_rate"`
	OmissibleCalls int     `json:"omissible_calls"`
	OmittedCalls   int     `json:"omitted_calls"`
	// SwapRate is per voyage (a rotation of one of its services).
	SwapRate       float64 `json:"swap_rate"`
	Voyages        int     `json:"voyages"`
	SwappedVoyages int     `json:"swapped_voyages"`
}

// OmissionTruth is a call the vessel skipped.
type OmissionTruth struct {
	Carrier        string    `json:"carrier"`
	Service        string    `json:"service"`
	VesselIMO      int       `json:"vessel_imo"`
	Voyage         string    `json:"voyage"` // the import voyage of the arrival skipped
	Port           string    `json:"port"`
	PlannedArrival time.Time `json:"planned_arrival"`
	AnnouncedAt    time.Time `json:"announced_at"`
	// NextPort is where the vessel calls next, where its boxes for Port are
	// discharged (jumps.go).
	NextPort string `json:"next_port"`
}

// SwapTruth is a voyage sailed by a substitute.
type SwapTruth struct {
	Carrier string `json:"carrier"`
	Service string `json:"service"`
	Voyage  string `json:"voyage"` // the export voyage of its first call
	// VesselIMO is the ship planned; Substitute the one that sails it.
	VesselIMO       int        `json:"vessel_imo"`
	Substitute      VesselInfo `json:"substitute"`
	FirstPort       string     `json:"first_port"`
	PlannedStart    time.Time  `json:"planned_start"` // planned arrival at the first port
	AnnouncedAt     time.Time  `json:"announced_at"`
	Calls           int        `json:"calls"`
	StartShiftHours float64    `json:"start_shift_hours"` // the substitute's first arrival − the planned ship's, as it would have been
}

// JumpTruth is one change of a shipment: the roll, an omission of a call
// it was to load or be discharged at, or the swap of a voyage it sails.
type JumpTruth struct {
	Kind        string    `json:"kind"` // roll, omission or swap
	AnnouncedAt time.Time `json:"announced_at"`
	// Visible: announced at or after the shipment was booked, so tracking
	// answers show the change; before, the shipment is first seen changed.
	Visible bool `json:"visible"`
	// Leg is the leg changed: 1 the first, 2 the one after the hub.
	Leg int `json:"leg"`
	// Port: where the box missed its sailing (roll), the port skipped
	// (omission; at the POL the box is rolled, at the POD discharged at
	// the vessel's next call); empty for a swap.
	Port string `json:"port,omitempty"`
	// POD is the port of discharge from the announcement on; VesselIMO
	// the vessel of the changed leg then (the new sailing's, the
	// substitute).
	POD       string `json:"pod"`
	VesselIMO int    `json:"vessel_imo"`
	// ETABefore and ETAAfter are the carrier's POD ETA (CarrierETA) just
	// before the announcement and from it on; ETAJumpHours the difference.
	ETABefore    time.Time `json:"eta_before"`
	ETAAfter     time.Time `json:"eta_after"`
	ETAJumpHours float64   `json:"eta_jump_hours"`
	// ArrivalShiftHours is how far the change moved the actual arrival at
	// the POD (0 for a swap of a voyage that does not end at it).
	ArrivalShiftHours float64 `json:"arrival_shift_hours"`
	// Legs is the itinerary from the announcement on, for a roll or an
	// omission (a swap changes no leg, only who sails it).
	Legs []LegTruth `json:"legs,omitempty"`
}

// jumpsTruth is the world's JumpsTruth, its shipments' jumps counted from
// the ShipmentTruths.
func (w *World) jumpsTruth(ships []ShipmentTruth) JumpsTruth {
	t := JumpsTruth{Enabled: w.callJumps != nil, MinLeadHours: float64(minJumpLead) / 3600, RevisionAligned: true,
		Omissions: []OmissionTruth{}, Swaps: []SwapTruth{}}
	if !t.Enabled {
		return t
	}
	for ci := range w.calls {
		j := w.jumpOf(ci)
		if !j.omitted {
			continue
		}
		c := &w.calls[ci]
		s := &w.services[c.svc]
		imp, _ := w.voyages(ci)
		next := ""
		if n := w.nextCall(ci); n >= 0 {
			next = w.places[w.calls[n].port].Locode
		}
		t.Omissions = append(t.Omissions, OmissionTruth{
			Carrier: w.carriers[s.carrier].scac, Service: s.code, VesselIMO: w.vessels[w.vesselAt(ci, math.MaxInt64)].IMO,
			Voyage: imp, Port: w.places[c.port].Locode, PlannedArrival: unixUTC(c.plnArr), AnnouncedAt: unixUTC(j.omitAt),
			NextPort: next,
		})
	}
	for i := range w.swaps {
		sw := &w.swaps[i]
		s := &w.services[sw.svc]
		ci := w.callIndex(sw.svc, sw.k, 0)
		c, j := &w.calls[ci], w.jumpOf(ci)
		_, exp := w.voyages(ci)
		t.Swaps = append(t.Swaps, SwapTruth{
			Carrier: w.carriers[s.carrier].scac, Service: s.code, Voyage: exp, VesselIMO: w.vessels[sw.planned].IMO,
			Substitute: w.vessels[sw.vessel].VesselInfo, FirstPort: w.places[c.port].Locode, PlannedStart: unixUTC(c.plnArr),
			AnnouncedAt: unixUTC(sw.at), Calls: len(s.ports), StartShiftHours: round(float64(c.actArr-j.cfArr)/3600, 2),
		})
	}
	for _, st := range ships {
		kinds := map[string]bool{}
		visible := false
		for _, j := range st.Jumps {
			kinds[j.Kind] = true
			visible = visible || j.Visible
		}
		t.Counts.Rolled += btoi(kinds["roll"])
		t.Counts.Omitted += btoi(kinds["omission"])
		t.Counts.Swapped += btoi(kinds["swap"])
		t.Counts.Visible += btoi(visible)
	}
	return t
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// carrierJumps is carrier ci's CarrierJumps.
func (w *World) carrierJumps(ci int) CarrierJumps {
	if w.callJumps == nil {
		return CarrierJumps{}
	}
	c := &w.carriers[ci]
	out := CarrierJumps{RollRate: c.rollRate, OmissionRate: c.omitRate, SwapRate: c.swapRate}
	for k := range w.calls {
		if w.services[w.calls[k].svc].carrier != ci || !w.omissible(k) {
			continue
		}
		out.OmissibleCalls++
		out.OmittedCalls += btoi(w.omitted(k))
	}
	for si := range w.services {
		if s := &w.services[si]; s.carrier == ci {
			out.Voyages += s.kMax - s.kMin + 1
		}
	}
	for i := range w.swaps {
		out.SwappedVoyages += btoi(w.services[w.swaps[i].svc].carrier == ci)
	}
	for i := range w.shipments {
		s := &w.shipments[i]
		if s.carrier != ci {
			continue
		}
		out.Loadings += len(s.legs)
		for _, v := range s.versions {
			out.Rolls += btoi(v.kind == jumpRoll)
		}
	}
	return out
}

// shipmentJumps are the changes of s, in announcement order.
func (w *World) shipmentJumps(s *shipment) []JumpTruth {
	var out []JumpTruth
	prev := s.legs
	for i := range s.versions {
		v := &s.versions[i]
		kind := "roll"
		if v.kind != jumpRoll {
			kind = "omission"
		}
		j := w.jumpTruth(s, kind, v.since, v.leg, v.legs)
		j.Port = w.places[v.port].Locode
		j.Legs = w.legTruths(v.legs)
		j.ArrivalShiftHours = round(float64(w.calls[v.legs[len(v.legs)-1].to].actArr-w.calls[prev[len(prev)-1].to].actArr)/3600, 2)
		out = append(out, j)
		prev = v.legs
	}
	for _, i := range w.swapsOf(s) {
		sw := &w.swaps[i]
		legs := s.legsAt(sw.at)
		l := 0
		for l < len(legs)-1 && !w.inSwap(legs[l], i) {
			l++
		}
		j := w.jumpTruth(s, "swap", sw.at, l, legs)
		if pod := legs[len(legs)-1].to; w.jumpOf(pod).swap == int32(i+1) {
			j.ArrivalShiftHours = round(float64(w.calls[pod].actArr-w.jumpOf(pod).cfArr)/3600, 2)
		}
		out = append(out, j)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].AnnouncedAt.Before(out[b].AnnouncedAt) })
	return out
}

// jumpTruth fills what every kind of change says: when, whether the
// shipment saw it, its POD and the changed leg's vessel from then on, and
// the carrier's POD ETA either side of it.
func (w *World) jumpTruth(s *shipment, kind string, at int64, legIdx int, legs []leg) JumpTruth {
	before, after := w.reportedETA(s, at-1), w.reportedETA(s, at)
	return JumpTruth{
		Kind: kind, AnnouncedAt: unixUTC(at), Visible: at >= s.booked, Leg: legIdx + 1,
		POD: w.places[w.calls[legs[len(legs)-1].to].port].Locode, VesselIMO: w.vessels[w.vesselAt(legs[legIdx].from, at)].IMO,
		ETABefore: before.ETA, ETAAfter: after.ETA, ETAJumpHours: round(after.ETA.Sub(before.ETA).Hours(), 2),
	}
}

// inSwap reports whether leg l loads or discharges on swapped voyage i.
func (w *World) inSwap(l leg, i int) bool {
	return w.jumpOf(l.from).swap == int32(i+1) || w.jumpOf(l.to).swap == int32(i+1)
}

// swapsOf are the swaps that change what the service shows of s: those of
// a voyage one of its legs sails in the itinerary in force when the swap is
// announced.
func (w *World) swapsOf(s *shipment) []int {
	if w.callJumps == nil {
		return nil
	}
	seen := map[int]bool{}
	var out []int
	check := func(legs []leg) {
		for _, l := range legs {
			for _, ci := range []int{l.from, l.to} {
				i := int(w.jumpOf(ci).swap) - 1
				if i < 0 || seen[i] {
					continue
				}
				seen[i] = true
				for _, m := range s.legsAt(w.swaps[i].at) {
					if w.inSwap(m, i) {
						out = append(out, i)
						break
					}
				}
			}
		}
	}
	check(s.legs)
	for i := range s.versions {
		check(s.versions[i].legs)
	}
	sort.Ints(out)
	return out
}
