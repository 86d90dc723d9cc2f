package sim

import (
	"math"
	"regexp"
	"testing"
)

// A vessel never arrives before its previous departure plus 80 % of the
// planned sea leg, and every call arrives before it departs: a fleet's ship
// over the calls it sails (not a swapped voyage's), a substitute over its
// voyage.
func TestVesselsArePhysicallyCoherent(t *testing.T) {
	w := NewWorld(WorldConfig{Seed: 5, Shipments: 10})
	if len(w.swaps) == 0 {
		t.Fatal("no swapped voyage: the test proves less than it says")
	}
	for vi, all := range w.vesselCalls {
		var calls []int32
		for _, ci := range all {
			if w.vesselAt(int(ci), math.MaxInt64) == vi {
				calls = append(calls, ci)
			}
		}
		for n, ci := range calls {
			c := &w.calls[ci]
			if c.actDep <= c.actArr || c.plnDep <= c.plnArr {
				t.Fatalf("vessel %d: call %d departs before it arrives", vi, ci)
			}
			if n == 0 {
				continue
			}
			p := &w.calls[calls[n-1]]
			if c.actArr < p.actDep+w.services[p.svc].minSea[p.pos] {
				t.Fatalf("vessel %d: arrives %d s after leaving, planned sea leg %d s", vi, c.actArr-p.actDep, w.services[p.svc].minSea[p.pos])
			}
		}
	}
}

var voyageShapes = map[int]*regexp.Regexp{
	voyYearWeek: regexp.MustCompile(`^[0-9]{3}[NSEW]$`),
	voyYYWW:     regexp.MustCompile(`^[0-9]{4}[NSEW]$`),
	voyPrefix:   regexp.MustCompile(`^[A-Z]{2}[0-9]{3}[NSEW]$`),
	voyCMA:      regexp.MustCompile(`^0[A-Z0-9]{3}[0-9][NSEW]1MA$`),
	voySeq:      regexp.MustCompile(`^[0-9]{3}[NSEW]$`),
	voySeq4:     regexp.MustCompile(`^[0-9]{4}[NSEW]$`),
	voyDirFirst: regexp.MustCompile(`^[NSEW][0-9]{3}$`),
}

// Voyage numbers have each carrier's shape; consecutive sailings of a
// service differ; at the turnaround port the vessel arrives on one voyage
// and leaves on another.
func TestVoyageNumbers(t *testing.T) {
	w := NewWorld(WorldConfig{Seed: 2, Shipments: 10})
	for si := range w.services {
		s := &w.services[si]
		style := w.carriers[s.carrier].voyageStyle
		k := (s.kMin + s.kMax) / 2
		a := w.callIndex(si, k, 1)
		b := w.callIndex(si, k+1, 1)
		imp, exp := w.voyages(a)
		next, _ := w.voyages(b)
		for _, v := range []string{imp, exp, next} {
			if !voyageShapes[style].MatchString(v) {
				t.Errorf("%s %s: voyage %q has not the carrier's shape", w.carriers[s.carrier].scac, s.code, v)
			}
		}
		if imp == next {
			t.Errorf("%s %s: consecutive sailings share voyage %s", w.carriers[s.carrier].scac, s.code, imp)
		}
		ti, te := w.voyages(w.callIndex(si, k, s.tpl.turn))
		if ti == te {
			t.Errorf("%s %s: same voyage %s both ways at the turnaround", w.carriers[s.carrier].scac, s.code, ti)
		}
	}
}
