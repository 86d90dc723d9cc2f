package sim

import "math"

// Jumps: the changes that move an ETA by days at once, where the ETA model
// (eta.go) only drifts. Three kinds, at rates fixed per carrier
// (carriers.go), drawn from the seed and stable identities like every other
// draw, and on unless WorldConfig.NoJumps:
//
//   - Roll: a box misses the sailing it was booked on, at its POL or at the
//     hub of a transhipment, and goes on the next sailing of the same
//     service that leaves at least a day after the announcement (a week
//     later, as a rule). The carrier announces it 1 to 5 days before the
//     missed sailing's departure (at a hub, from the day the box reaches
//     it); the box's POD ETA becomes the new sailing's, and so does its
//     arrival. A transhipped box rolled at its POL takes the first
//     connection at the hub after the new first leg, as a booking does.
//   - Omission: a vessel skips a call of a range port (never a transhipment
//     hub), announced 4 to 14 days before it was planned. The call leaves
//     every schedule (by port, by vessel, port to port) from then on; boxes
//     to be loaded there are rolled to the next sailing; boxes to be
//     discharged there are discharged at the vessel's next call instead,
//     which becomes their POD. The vessel keeps its timetable after the
//     skipped call (the time saved is not passed on).
//   - Swap: a voyage (one rotation of a service) is sailed by a substitute
//     ship, a charter with its own name and IMO number, announced 3 to 21
//     days before the voyage starts. From then on schedules and container
//     events show the substitute for the voyage's calls, by-vessel queries
//     of it answer, and the planned ship's schedule skips them. The
//     substitute starts the voyage −12 h to +60 h from where the planned
//     ship would have been and then sails it like any ship; until the
//     announcement the carrier's estimates are those of the planned ship.
//     No box is booked (or rolled, or discharged elsewhere) on a leg that
//     loads before the changeover and discharges after it: a box stays on
//     the ship it loaded on.
//
// Every announcement falls on a revision of the carrier's estimates (eta.go:
// once a day), so an answer changes only when the carrier revises, and at
// least 4 days before the (new) actual arrival it changes: the ETA known 3
// days before an arrival, and 1 day before, is never one from before a jump.
// What a box's events already said stays said: an event that had happened
// when a change was announced keeps its time, place and vessel (a box gated
// in for the missed sailing stays gated in then).
//
// Truth keeps it all: per carrier the rates and what they realised, every
// omitted call and swapped voyage, and per shipment each jump that changed
// it — when it was announced, whether the shipment was booked by then, the
// carrier's POD ETA just before and from then on, how far the actual arrival
// moved.

// Jump parameters: durations in seconds, leads and shifts drawn uniformly
// between their bounds, in days or hours as named.
const (
	minJumpLead    = 4 * day // every change is announced at least this long before the (new) arrival it makes
	rollLeadMin    = 1 * day // a roll is announced from 5 days to 1 day before the missed departure
	rollLeadMax    = 5 * day
	omitLeadMinD   = 4.0 // an omission, from 14 to 4 days before the call was planned
	omitLeadMaxD   = 14.0
	omitNextMax    = 4 * day // an omissible call's next call is planned within this of its departure
	swapLeadMinD   = 3.0     // a swap, from 21 to 3 days before the voyage was planned to start
	swapLeadMaxD   = 21.0
	swapShiftMinH  = -12.0    // a substitute starts its voyage from 12 h earlier …
	swapShiftMaxH  = 60.0     // … to 60 h later than the planned ship would have
	maxCallWalk    = 64       // bound on the calls and sailings walked to find where a box goes
	substituteSlot = -1 << 20 // vessel slots of substitutes start here (the fleet's are 0…n−1)
)

// callJump is what jumps change about one call.
type callJump struct {
	omitted bool
	omitAt  int64 // omitted: when announced
	swap    int32 // 1 + index into World.swaps of the voyage's swap; 0: none
	// cfArr, cfDep: a swapped call's times as the planned ship would have
	// kept them, what the carrier's estimates are built on until the swap is
	// announced.
	cfArr, cfDep int64
}

// swap is a voyage sailed by a substitute.
type swap struct {
	svc, k  int
	planned int   // the fleet's vessel of the slot
	vessel  int   // the substitute
	shift   int64 // seconds: where the substitute starts the voyage, from where the planned ship would have
	at      int64 // announced
}

// jumpOf is what jumps change about call ci (nothing without jumps).
func (w *World) jumpOf(ci int) callJump {
	if w.callJumps == nil {
		return callJump{}
	}
	return w.callJumps[ci]
}

// swapOf is the swap of call ci's voyage, or nil.
func (w *World) swapOf(ci int) *swap {
	if j := w.jumpOf(ci); j.swap > 0 {
		return &w.swaps[j.swap-1]
	}
	return nil
}

// vesselAt is the vessel that sails call ci as the service says at time at:
// the substitute once its swap is announced, else the slot's ship.
func (w *World) vesselAt(ci int, at int64) int {
	if sw := w.swapOf(ci); sw != nil && at >= sw.at {
		return sw.vessel
	}
	return int(w.calls[ci].vessel)
}

// omittedAt reports whether call ci is known to be omitted at time at.
func (w *World) omittedAt(ci int, at int64) bool {
	j := w.jumpOf(ci)
	return j.omitted && at >= j.omitAt
}

// omitted reports whether call ci is ever omitted (it does not happen).
func (w *World) omitted(ci int) bool { return w.jumpOf(ci).omitted }

// nextCall is the call the same vessel slot makes after ci: the next
// position of the rotation, or the first of the slot's next rotation; -1
// beyond the generated rotations.
func (w *World) nextCall(ci int) int {
	c := &w.calls[ci]
	s := &w.services[c.svc]
	if int(c.pos)+1 < len(s.ports) {
		return w.callIndex(int(c.svc), int(c.k), int(c.pos)+1)
	}
	return w.callIndex(int(c.svc), int(c.k)+s.n, 0)
}

// omissible reports whether call ci may be omitted: not at a transhipment
// hub, and the ship's next call is at another port planned within 4 days
// of its departure, where its boxes can be discharged instead.
func (w *World) omissible(ci int) bool {
	c := &w.calls[ci]
	if w.places[c.port].hub {
		return false
	}
	n := w.nextCall(ci)
	return n >= 0 && w.calls[n].port != c.port && w.calls[n].plnArr-c.plnDep <= omitNextMax && w.swapOf(n) == w.swapOf(ci)
}

// straddles reports whether a leg of legs would load on one ship and
// discharge from another: a voyage running into or out of a swapped one
// (the slot's ship sits the swapped voyage out). Bookings, rolls and
// discharges elsewhere never make one: a box stays on the ship it loaded on.
func (w *World) straddles(legs []leg) bool {
	if w.callJumps == nil {
		return false
	}
	for _, l := range legs {
		if w.jumpOf(l.from).swap != w.jumpOf(l.to).swap {
			return true
		}
	}
	return false
}

// atRevision is the carrier's revision at or before t: announcements fall on
// them.
func (c *carrier) atRevision(t int64) int64 { return c.revisionTime(c.revision(t)) }

// drawSwaps picks the swapped voyages and makes their substitutes, before
// the calls are sailed (sailChains sails a swapped voyage with its
// substitute).
func (w *World) drawSwaps(vf *vesselFactory) {
	for si := range w.services {
		s := &w.services[si]
		car := &w.carriers[s.carrier]
		for k := s.kMin; k <= s.kMax; k++ {
			h := hash(w.seed, tagSwap, s.id, int64(k))
			if unit(h) >= car.swapRate {
				continue
			}
			v := vf.make(w.carriers, s.carrier, s, substituteSlot-k)
			v.service, v.slot = si, -1
			vi := len(w.vessels)
			w.imoIdx[v.IMO] = vi
			w.vessels = append(w.vessels, v)
			shift := int64(uniform(mix(h^1), swapShiftMinH, swapShiftMaxH) * 3600)
			w.swaps = append(w.swaps, swap{svc: si, k: k, planned: s.vessels[mod(k, s.n)], vessel: vi, shift: shift - mod64(shift, 60)})
			for pos := range s.ports {
				w.callJumps[w.callIndex(si, k, pos)].swap = int32(len(w.swaps))
			}
		}
	}
}

// drawOmissions picks the omitted calls among the omissible ones.
func (w *World) drawOmissions() {
	for ci := range w.calls {
		car := &w.carriers[w.services[w.calls[ci].svc].carrier]
		a, b, c := w.callKey(ci)
		if w.omissible(ci) && unit(hash(w.seed, tagOmit, a, b, c)) < car.omitRate {
			w.callJumps[ci].omitted = true
		}
	}
}

// announceCallJumps dates the omissions and swaps, once the calls are
// sailed: within their lead before the plan, and at least minJumpLead before
// the call's arrival (or the voyage's first), on a revision of the carrier.
func (w *World) announceCallJumps() {
	for ci := range w.calls {
		j := &w.callJumps[ci]
		if !j.omitted {
			continue
		}
		c := &w.calls[ci]
		a, b, k := w.callKey(ci)
		lead := int64(uniform(hash(w.seed, tagOmit, a, b, k, 1), omitLeadMinD, omitLeadMaxD) * float64(day))
		j.omitAt = w.carriers[w.services[c.svc].carrier].atRevision(min(c.plnArr-lead, c.actArr-minJumpLead))
	}
	for i := range w.swaps {
		sw := &w.swaps[i]
		s := &w.services[sw.svc]
		ci := w.callIndex(sw.svc, sw.k, 0)
		c, j := &w.calls[ci], &w.callJumps[ci]
		lead := int64(uniform(hash(w.seed, tagSwap, s.id, int64(sw.k), 2), swapLeadMinD, swapLeadMaxD) * float64(day))
		sw.at = w.carriers[s.carrier].atRevision(min(c.plnArr-lead, min(c.actArr, j.cfArr)-minJumpLead))
	}
}

// jumpKind says what made a shipment's itinerary change.
type jumpKind uint8

const (
	jumpRoll    jumpKind = iota + 1 // rolled to the next sailing
	jumpOmitPOL                     // its loading call omitted: rolled to the next sailing
	jumpOmitPOD                     // its discharge call omitted: discharged at the vessel's next call
)

// version is a shipment's itinerary from an announcement on.
type version struct {
	since int64
	legs  []leg
	kind  jumpKind
	leg   int // the leg changed
	port  int // place: where the box missed its sailing, or the omitted port
}

// legsAt is the itinerary the service shows for s at time at.
func (s *shipment) legsAt(at int64) []leg {
	legs := s.legs
	for i := range s.versions {
		if s.versions[i].since > at {
			break
		}
		legs = s.versions[i].legs
	}
	return legs
}

// finalLegs is the itinerary the shipment actually sails.
func (s *shipment) finalLegs() []leg { return s.legsAt(math.MaxInt64) }

// jumpShipments draws each shipment's roll and applies, in announcement
// order, the roll and the omissions of the calls it loads or is discharged
// at.
func (w *World) jumpShipments() {
	for i := range w.shipments {
		w.jumpShipment(&w.shipments[i])
	}
}

func (w *World) jumpShipment(s *shipment) {
	car := &w.carriers[s.carrier]
	h := hash(w.seed, tagRoll, s.id)
	rollLeg := -1
	switch u := unit(h); {
	case u < car.rollRate:
		rollLeg = 0
	case len(s.legs) > 1 && u < 2*car.rollRate:
		rollLeg = 1
	}
	var rollAt int64
	if rollLeg >= 0 {
		dep := w.calls[s.legs[rollLeg].from].actDep
		lo, hi := dep-rollLeadMax, dep-rollLeadMin
		if rollLeg == 1 {
			lo = max(lo, min(w.calls[s.legs[0].to].actArr, hi))
		}
		rollAt = car.atRevision(lo + int64(unit(mix(h))*float64(hi-lo)))
	}
	cur := s.legs
	t := int64(math.MinInt64)
	for {
		// The next announcement after t that changes the itinerary.
		v := version{since: math.MaxInt64}
		if rollLeg >= 0 && rollAt > t && cur[rollLeg].from == s.legs[rollLeg].from {
			v = version{since: rollAt, kind: jumpRoll, leg: rollLeg, port: int(w.calls[cur[rollLeg].from].port)}
		}
		if j := w.jumpOf(cur[0].from); j.omitted && j.omitAt > t && j.omitAt < v.since {
			v = version{since: j.omitAt, kind: jumpOmitPOL, leg: 0, port: int(w.calls[cur[0].from].port)}
		}
		last := len(cur) - 1
		if j := w.jumpOf(cur[last].to); j.omitted && j.omitAt > t && j.omitAt < v.since {
			v = version{since: j.omitAt, kind: jumpOmitPOD, leg: last, port: int(w.calls[cur[last].to].port)}
		}
		if v.kind == 0 {
			return
		}
		t = v.since
		if v.kind == jumpRoll {
			rollLeg = -1
		}
		next, ok := w.rejump(s, cur, v.kind, v.leg, t)
		if !ok {
			continue // beyond the generated rotations: the change is not made
		}
		v.legs, cur = next, next
		s.versions = append(s.versions, v)
	}
}

// rejump applies a change announced at at to the itinerary cur, then the
// omissions already announced of the calls the new itinerary loads or
// discharges at.
func (w *World) rejump(s *shipment, cur []leg, kind jumpKind, legIdx int, at int64) ([]leg, bool) {
	var ok bool
	switch kind {
	case jumpOmitPOD:
		cur, ok = w.dischargeNext(cur, at)
	default:
		cur, ok = w.roll(s, cur, legIdx, at)
	}
	for n := 0; ok && n < maxCallWalk; n++ {
		switch last := len(cur) - 1; {
		case w.omittedAt(cur[0].from, at):
			cur, ok = w.roll(s, cur, 0, at)
		case w.omittedAt(cur[last].to, at):
			cur, ok = w.dischargeNext(cur, at)
		default:
			return cur, true
		}
	}
	return cur, false
}

// roll moves leg legIdx of cur to the next sailing of its service, on the
// route booked (a POD moved by an omission is the booked one again on
// another sailing), that leaves at least a day after at, calls where the
// box is to be loaded, and arrives at least minJumpLead after at; a first
// leg rolled takes the first connection at the hub after it.
func (w *World) roll(s *shipment, cur []leg, legIdx int, at int64) ([]leg, bool) {
	booked := s.legs[legIdx]
	svc, i, j := int(w.calls[booked.from].svc), int(w.calls[booked.from].pos), int(w.calls[booked.to].pos)
	after := w.calls[cur[legIdx].from].plnDep + 1
	for n := 0; n < maxCallWalk; n++ {
		l, ok := w.legFrom(svc, i, j, after)
		if !ok {
			return nil, false
		}
		out := append([]leg(nil), cur...)
		out[legIdx] = l
		if legIdx == 0 && len(out) > 1 {
			b := s.legs[1]
			if out[1], ok = w.connection(l, int(w.calls[b.from].svc), int(w.calls[b.from].pos), int(w.calls[b.to].pos)); !ok {
				return nil, false
			}
		}
		if w.calls[l.from].actDep >= at+day && !w.omittedAt(l.from, at) && w.calls[out[len(out)-1].to].actArr >= at+minJumpLead && !w.straddles(out) {
			return out, true
		}
		after = w.calls[l.from].plnDep + 1
	}
	return nil, false
}

// dischargeNext moves the POD of cur to the vessel's first call after the
// omitted one that is not omitted, is neither the box's POL nor its hub, and
// is reached at least minJumpLead after at.
func (w *World) dischargeNext(cur []leg, at int64) ([]leg, bool) {
	pol, _, hub := w.legPorts(cur)
	last := len(cur) - 1
	c := cur[last].to
	for n := 0; n < maxCallWalk; n++ {
		if c = w.nextCall(c); c < 0 {
			return nil, false
		}
		p := int(w.calls[c].port)
		if w.omittedAt(c, at) || p == pol || p == hub || w.calls[c].actArr < at+minJumpLead {
			continue
		}
		out := append([]leg(nil), cur...)
		out[last].to = c
		if w.straddles(out) {
			return nil, false // the walk left the ship the box is on
		}
		return out, true
	}
	return nil, false
}
