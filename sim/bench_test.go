package sim_test

import (
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
)

func BenchmarkNewWorld(b *testing.B) {
	for _, n := range []int{100, 400, 1600} {
		b.Run(map[int]string{100: "shipments=100", 400: "shipments=400", 1600: "shipments=1600"}[n], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sim.NewWorld(sim.WorldConfig{Seed: int64(i), Shipments: n})
			}
		})
	}
}

func BenchmarkShipment(b *testing.B) {
	w, _ := defaultWorld(b)
	refs := w.Shipments()
	at := start.AddDate(0, 0, 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = w.Shipment(refs[i%len(refs)], at.Add(time.Duration(i%97)*time.Hour))
	}
}

func BenchmarkPortSchedule(b *testing.B) {
	w, _ := defaultWorld(b)
	ports := w.Ports()
	at := start.AddDate(0, 0, 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = w.PortSchedule(ports[i%len(ports)].Locode, at)
	}
}

func BenchmarkPointToPoint(b *testing.B) {
	w, _ := defaultWorld(b)
	lanes := w.Lanes()
	at := start.AddDate(0, 0, 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l := lanes[i%len(lanes)]
		_, _ = w.PointToPoint(l.POL, l.POD, sim.P2PQuery{MaxTranshipment: -1}, at)
	}
}

func BenchmarkVesselSchedule(b *testing.B) {
	w, _ := defaultWorld(b)
	vessels := w.Vessels()
	at := start.AddDate(0, 0, 20)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = w.VesselSchedule(vessels[i%len(vessels)].IMO, at)
	}
}
