package sim

import (
	"math"
	"testing"
)

func TestServicesAreWeeklyLoops(t *testing.T) {
	w := NewWorld(WorldConfig{Seed: 1, Shipments: 10})
	for _, s := range w.services {
		loop := float64(s.dep[len(s.dep)-1]+hours(s.tpl.calls[len(s.tpl.calls)-1].sea*24)) / float64(day)
		if s.n != int(math.Ceil(loop/7)) || len(s.vessels) != s.n {
			t.Errorf("%s %s: %d vessels for a %.1f-day loop", w.carriers[s.carrier].scac, s.code, s.n, loop)
		}
		if s.tpl.turn <= 0 || s.tpl.turn >= len(s.ports) {
			t.Errorf("%s: turnaround at %d", s.tpl.id, s.tpl.turn)
		}
	}
	for _, tpl := range templates {
		for i, c := range tpl.calls {
			if c.stay < 0.5 || c.sea < 0.2 || c.sea > 26 {
				t.Errorf("%s call %d (%s): stay %.1f d, sea %.1f d", tpl.id, i, c.port, c.stay, c.sea)
			}
		}
	}
}

// Every loop that calls Shanghai then Rotterdam (or Los Angeles) gives a
// 2025-realistic planned transit: 30–35 days round the Cape, 14–18 days
// across the Pacific.
func TestTemplateTransits(t *testing.T) {
	w := NewWorld(WorldConfig{Seed: 1, Shipments: 10})
	cases := []struct {
		pol, pod string
		lo, hi   float64
	}{{"CNSHA", "NLRTM", 30, 35}, {"CNSHA", "USLAX", 14, 18}}
	for _, c := range cases {
		n := 0
		for si := range w.services {
			s := &w.services[si]
			for i, p := range s.ports {
				for j, q := range s.ports {
					if w.places[p].Locode != c.pol || w.places[q].Locode != c.pod || !w.directOK(si, i, j) {
						continue
					}
					n++
					d, _ := s.transit(i, j)
					if days := float64(d) / float64(day); days < c.lo || days > c.hi {
						t.Errorf("%s %s: %s→%s %.1f days", w.carriers[s.carrier].scac, s.code, c.pol, c.pod, days)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("no service sails %s→%s", c.pol, c.pod)
		}
	}
}
