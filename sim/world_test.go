package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
)

// sampleAnswers renders a fixed sample of requests as JSON, one entry per
// request (errors included).
func sampleAnswers(t testing.TB, w *sim.World) [][]byte {
	t.Helper()
	var out [][]byte
	add := func(v any, err error) {
		b, jerr := json.Marshal(v)
		if jerr != nil {
			t.Fatal(jerr)
		}
		out = append(out, append(b, []byte(fmt.Sprint(err))...))
	}
	refs := w.Shipments()
	vessels := w.Vessels()
	for i, at := range []time.Time{start, start.Add(77 * time.Hour), start.AddDate(0, 0, 29)} {
		for j := i; j < len(refs); j += 23 {
			add(w.Shipment(refs[j], at))
		}
		for _, p := range []string{"NLRTM", "CNSHA", "USLAX", "SGSIN", "DEHAM"} {
			add(w.PortSchedule(p, at))
		}
		for _, pair := range [][2]string{{"CNSHA", "NLRTM"}, {"VNSGN", "DEHAM"}, {"CNNGB", "USLAX"}} {
			add(w.PointToPoint(pair[0], pair[1], sim.P2PQuery{MaxTranshipment: -1}, at))
		}
		for j := i; j < len(vessels); j += 37 {
			add(w.VesselSchedule(vessels[j].IMO, at))
		}
	}
	add(w.Truth(), nil)
	add(w.Lanes(), nil)
	add(w.Ports(), nil)
	add(w.Vessels(), nil)
	return out
}

func TestSameSeedSameAnswers(t *testing.T) {
	cfg := sim.WorldConfig{Seed: 7, Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Days: 40, Shipments: 150}
	a, b := sampleAnswers(t, sim.NewWorld(cfg)), sampleAnswers(t, sim.NewWorld(cfg))
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("answer %d differs between two worlds of the same seed", i)
		}
	}
	cfg.Seed = 8
	c := sampleAnswers(t, sim.NewWorld(cfg))
	if bytes.Equal(a[len(a)-4], c[len(c)-4]) {
		t.Error("truth of seeds 7 and 8 identical")
	}
	differ := 0
	for i := range a {
		if !bytes.Equal(a[i], c[i]) {
			differ++
		}
	}
	if differ < len(a)/2 {
		t.Errorf("only %d of %d answers differ between seeds 7 and 8", differ, len(a))
	}
}

func TestDefaults(t *testing.T) {
	w, _ := defaultWorld(t)
	cfg := w.Config()
	if !cfg.Start.Equal(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)) || cfg.Days != 60 || cfg.Shipments != 400 {
		t.Errorf("defaults %+v", cfg)
	}
	small := sim.NewWorld(sim.WorldConfig{Seed: 3, Shipments: 25})
	if n := len(small.Shipments()); n != 25 {
		t.Errorf("%d shipments, want 25", n)
	}
}

// Answers do not depend on which requests came first or on concurrency.
func TestConcurrentUse(t *testing.T) {
	slowtest.Long(t)
	w, _ := defaultWorld(t)
	want := sampleAnswers(t, w)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			got := sampleAnswers(t, w)
			for i := range got {
				j := (i + g*7) % len(got) // compare in a different order per goroutine
				if !bytes.Equal(got[j], want[j]) {
					errs <- fmt.Sprintf("goroutine %d: answer %d differs", g, j)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
