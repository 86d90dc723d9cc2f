package sim

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// call is one vessel call at a port: planned (PLN, fixed long before) and
// actual (ACT) arrival and departure, in Unix seconds.
type call struct {
	svc    int32
	k      int32 // rotation
	pos    int16 // position in the service's loop
	port   int16 // place index
	vessel int32
	plnArr int64
	plnDep int64
	actArr int64
	actDep int64
}

// delayDraw holds the seeded draws of one call, fixed before calibration.
type delayDraw struct {
	u      float64 // on-time if u < the carrier's draw probability
	onTime int64   // delay if on time: uniform −12 h … +20 h
	late   int64   // delay if late: 24 h + gamma(2) with the carrier's mean
	stay   int64   // actual time in port
}

// buildCalls lays out every rotation of every service that touches
// [lo, hi] and the planned times of its calls.
func (w *World) buildCalls(lo, hi int64) {
	for si := range w.services {
		s := &w.services[si]
		m := len(s.ports)
		loop := s.periodSecond
		s.kMin = int(math.Floor(float64(lo-epoch-s.offset-loop) / float64(week)))
		s.kMax = int(math.Ceil(float64(hi-epoch-s.offset) / float64(week)))
		s.callBase = len(w.calls)
		for k := s.kMin; k <= s.kMax; k++ {
			start := s.rotationStart(k)
			v := s.vessels[mod(k, s.n)]
			for p := 0; p < m; p++ {
				w.calls = append(w.calls, call{
					svc: int32(si), k: int32(k), pos: int16(p), port: int16(s.ports[p]), vessel: int32(v),
					plnArr: start + s.arr[p], plnDep: start + s.dep[p],
				})
			}
		}
	}
}

func mod(a, n int) int {
	r := a % n
	if r < 0 {
		r += n
	}
	return r
}

// callIndex is the index of the call at position pos of rotation k, or -1
// when that rotation was not generated.
func (w *World) callIndex(si, k, pos int) int {
	s := &w.services[si]
	if k < s.kMin || k > s.kMax {
		return -1
	}
	return s.callBase + (k-s.kMin)*len(s.ports) + pos
}

// callKey is the stable identity of a call for hashing.
func (w *World) callKey(ci int) (int64, int64, int64) {
	c := &w.calls[ci]
	return w.services[c.svc].id, int64(c.k), int64(c.pos)
}

// drawDelays makes the seeded per-call draws.
func (w *World) drawDelays() []delayDraw {
	draws := make([]delayDraw, len(w.calls))
	for ci := range w.calls {
		c := &w.calls[ci]
		car := &w.carriers[w.services[c.svc].carrier]
		a, b, d := w.callKey(ci)
		h := hash(w.seed, tagDelay, a, b, d)
		lateDays := 1 + (car.lateMeanDays-1)*(exponential(mix(h^2))+exponential(mix(h^3)))/2
		lateDays = math.Min(lateDays, 21)
		stay := c.plnDep - c.plnArr
		f := uniform(mix(h^4), 0.7, 1.3)
		draws[ci] = delayDraw{
			u:      unit(mix(h ^ 1)),
			onTime: int64(uniform(mix(h^5), -12, 20) * 3600),
			late:   int64(lateDays * float64(day)),
			stay:   max(int64(float64(stay)*f), stay/2),
		}
	}
	return draws
}

// chains lists, per carrier, the calls of each vessel slot in sailing order:
// a vessel's rotations k, k+n, k+2n, … one after the other.
func (w *World) chains() [][][]int {
	out := make([][][]int, len(w.carriers))
	for si := range w.services {
		s := &w.services[si]
		m := len(s.ports)
		for slot := 0; slot < s.n; slot++ {
			var chain []int
			for k := s.kMin; k <= s.kMax; k++ {
				if mod(k, s.n) != slot {
					continue
				}
				for p := 0; p < m; p++ {
					chain = append(chain, w.callIndex(si, k, p))
				}
			}
			out[s.carrier] = append(out[s.carrier], chain)
		}
	}
	return out
}

// sailChains computes the actual times of one carrier's calls for a draw
// probability p, keeping each vessel physically coherent: it cannot arrive
// before its previous departure plus 80 % of the planned sea leg. It returns
// the realised on-time share (|ACT − PLN| ≤ 24 h) of the calls planned to
// arrive in [from, to).
//
// A swapped voyage (jumps.go) is sailed by its substitute, which starts it
// fresh, its shift after where the slot's ship would have been; the slot's
// ship sits it out and takes up its next voyage from where it was. What the
// slot's ship would have done on the swapped voyage is kept (callJump.cfArr,
// cfDep). Omitted calls do not count: they do not happen.
func (w *World) sailChains(chains [][]int, draws []delayDraw, p float64, from, to int64) (share float64, n int) {
	onTime := 0
	none := int64(math.MinInt64 / 2)
	for _, chain := range chains {
		ship := vesselState{dep: none} // the slot's ship
		var sub, cf vesselState        // a substitute, and the slot's ship as it would have sailed its voyage
		for _, ci := range chain {
			c := &w.calls[ci]
			d := &draws[ci]
			delay := d.late
			if d.u < p {
				delay = d.onTime
			}
			sea := w.services[c.svc].minSea[c.pos]
			if sw := w.swapOf(ci); sw != nil {
				if c.pos == 0 {
					sub, cf = vesselState{dep: none}, ship
				}
				j := &w.callJumps[ci]
				j.cfArr, j.cfDep = cf.call(c.plnArr+delay, d.stay, sea)
				shift := int64(0)
				if c.pos == 0 {
					shift = sw.shift
				}
				c.actArr, c.actDep = sub.call(c.plnArr+delay+shift, d.stay, sea)
			} else {
				c.actArr, c.actDep = ship.call(c.plnArr+delay, d.stay, sea)
			}
			if c.plnArr >= from && c.plnArr < to && !w.omitted(ci) {
				n++
				if abs64(c.actArr-c.plnArr) <= day {
					onTime++
				}
			}
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(onTime) / float64(n), n
}

// vesselState is where a ship is along its calls: its last departure and
// the shortest sea leg to its next call.
type vesselState struct{ dep, sea int64 }

// call makes the ship's next call, due at want (plan plus delay): it cannot
// arrive before its last departure plus the sea leg. It returns the arrival
// and departure (stay in port), to the minute, and moves the ship on.
func (v *vesselState) call(want, stay, sea int64) (arr, dep int64) {
	arr = max(want, v.dep+v.sea)
	arr -= mod64(arr, 60)
	dep = arr + stay - mod64(stay, 60)
	v.dep, v.sea = dep, sea
	return arr, dep
}

// sortCalls orders call indices by planned arrival (then index).
func sortCalls(calls []call, list []int32) {
	sort.Slice(list, func(i, j int) bool {
		a, b := &calls[list[i]], &calls[list[j]]
		if a.plnArr != b.plnArr {
			return a.plnArr < b.plnArr
		}
		return list[i] < list[j]
	})
}

func mod64(a, n int64) int64 {
	r := a % n
	if r < 0 {
		r += n
	}
	return r
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// sail draws the actual times of every call. Lateness propagates along a
// vessel's calls, so the per-call on-time draw probability is solved per
// carrier (bisection over fixed draws; the realised share only grows with
// it) for the realised share over the configured window to equal the
// carrier's on-time parameter.
func (w *World) sail() {
	draws := w.drawDelays()
	chains := w.chains()
	from, to := w.start.Unix(), w.start.Unix()+int64(w.cfg.Days)*day
	for ci := range w.carriers {
		c := &w.carriers[ci]
		lo, hi := 0.0, 1.0
		for it := 0; it < 24; it++ {
			mid := (lo + hi) / 2
			if r, _ := w.sailChains(chains[ci], draws, mid, from, to); r < c.onTime {
				lo = mid
			} else {
				hi = mid
			}
		}
		c.pDraw = hi
		c.realisedOnTime, c.realisedCalls = w.sailChains(chains[ci], draws, hi, from, to)
	}
	w.summariseDelays(from, to)
}

// summariseDelays records, per carrier, the mean delay of the window's calls
// and of its late calls.
func (w *World) summariseDelays(from, to int64) {
	sum := make([]float64, len(w.carriers))
	lateSum := make([]float64, len(w.carriers))
	n := make([]int, len(w.carriers))
	late := make([]int, len(w.carriers))
	for ci := range w.calls {
		c := &w.calls[ci]
		if c.plnArr < from || c.plnArr >= to || w.omitted(ci) {
			continue
		}
		car := w.services[c.svc].carrier
		d := float64(c.actArr - c.plnArr)
		sum[car] += d
		n[car]++
		if d > float64(day) {
			lateSum[car] += d
			late[car]++
		}
	}
	for i := range w.carriers {
		if n[i] > 0 {
			w.carriers[i].meanDelayH = sum[i] / float64(n[i]) / 3600
		}
		if late[i] > 0 {
			w.carriers[i].realisedLate = lateSum[i] / float64(late[i]) / float64(day)
		}
	}
}

// indexCalls builds the per-port and per-vessel call lists, sorted by
// planned arrival. Omitted calls are in them: until the omission is
// announced the service shows them (omittedAt).
func (w *World) indexCalls() {
	w.portCalls = make([][]int32, len(w.places))
	w.vesselCalls = make([][]int32, len(w.vessels))
	for ci := range w.calls {
		c := &w.calls[ci]
		w.portCalls[c.port] = append(w.portCalls[c.port], int32(ci))
		w.vesselCalls[c.vessel] = append(w.vesselCalls[c.vessel], int32(ci))
	}
	// A substitute's calls are its voyage's; the slot's ship keeps them in
	// its list too, shown until the swap is announced (vesselAt).
	for _, sw := range w.swaps {
		for pos := range w.services[sw.svc].ports {
			w.vesselCalls[sw.vessel] = append(w.vesselCalls[sw.vessel], int32(w.callIndex(sw.svc, sw.k, pos)))
		}
	}
	for _, list := range [][][]int32{w.portCalls, w.vesselCalls} {
		for _, calls := range list {
			sortCalls(w.calls, calls)
		}
	}
}

// voyages returns the import and export voyage numbers of a call. They differ
// at the turnaround port (arrival on the outbound voyage, departure on the
// return voyage) and at the first port of the loop (arrival on the previous
// rotation's return voyage).
func (w *World) voyages(ci int) (imp, exp string) {
	c := &w.calls[ci]
	s := &w.services[c.svc]
	k, pos := int(c.k), int(c.pos)
	switch {
	case pos == 0:
		return w.voyageNumber(s, k-s.n, true), w.voyageNumber(s, k, false)
	case pos == s.tpl.turn:
		return w.voyageNumber(s, k, false), w.voyageNumber(s, k, true)
	case pos > s.tpl.turn:
		v := w.voyageNumber(s, k, true)
		return v, v
	default:
		v := w.voyageNumber(s, k, false)
		return v, v
	}
}

// voyageNumber formats the outbound (back=false) or return voyage of
// rotation k in the carrier's style.
func (w *World) voyageNumber(s *service, k int, back bool) string {
	dir := s.tpl.dirOut
	ref := s.rotationStart(k)
	if back {
		dir = s.tpl.dirBack
		ref += s.dep[s.tpl.turn]
	}
	year, wk := time.Unix(ref, 0).UTC().ISOWeek()
	// Per-vessel counters: each slot has its own base, and a vessel's
	// counter grows by one per loop.
	seq := s.voyBase + 37*mod(k, s.n) + int(math.Floor(float64(k)/float64(s.n)))
	switch w.carriers[s.carrier].voyageStyle {
	case voyYearWeek:
		return fmt.Sprintf("%d%02d%s", year%10, wk, dir)
	case voyYYWW:
		return fmt.Sprintf("%02d%02d%s", year%100, wk, dir)
	case voyPrefix:
		return fmt.Sprintf("%s%d%02d%s", s.prefix, year%10, wk, dir)
	case voyCMA:
		return fmt.Sprintf("0%s%d%s1MA", s.cmaCode, mod(seq, 10), dir)
	case voySeq4:
		return fmt.Sprintf("%04d%s", mod(seq, 10000), dir)
	case voyDirFirst:
		return fmt.Sprintf("%s%03d", dir, mod(seq, 1000))
	default:
		return fmt.Sprintf("%03d%s", mod(seq, 1000), dir)
	}
}
