package sim_test

import (
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

var (
	defaultOnce  sync.Once
	defaultW     *sim.World
	defaultTruth sim.Truth
)

// defaultWorld is the default world (seed 1), built once for the package.
func defaultWorld(t testing.TB) (*sim.World, sim.Truth) {
	t.Helper()
	defaultOnce.Do(func() {
		defaultW = sim.NewWorld(sim.WorldConfig{Seed: 1})
		defaultTruth = defaultW.Truth()
	})
	return defaultW, defaultTruth
}

var (
	plainOnce  sync.Once
	plainW     *sim.World
	plainTruth sim.Truth
)

// plainWorld is the default world (seed 1) without the realistic ETA
// errors (a zero ETAErrors): one bias per carrier, normal noise, an
// unbiased predictive ETA always shown within 72 hours.
func plainWorld(t testing.TB) (*sim.World, sim.Truth) {
	t.Helper()
	plainOnce.Do(func() {
		plainW = sim.NewWorld(sim.WorldConfig{Seed: 1, Errors: &sim.ETAErrors{}})
		plainTruth = plainW.Truth()
	})
	return plainW, plainTruth
}

var start = sim.DefaultStart

// refOf finds the reference of a shipment of the truth.
func refOf(s sim.ShipmentTruth) wire.ShipmentRef {
	return wire.ShipmentRef{Number: s.Number, Type: wire.ShipmentType(s.Type), Sealine: s.Sealine}
}

// carrierTruth finds a carrier of the truth.
func carrierTruth(t testing.TB, tr sim.Truth, scac string) sim.CarrierTruth {
	t.Helper()
	for _, c := range tr.Carriers {
		if c.SCAC == scac {
			return c
		}
	}
	t.Fatalf("carrier %s not in truth", scac)
	return sim.CarrierTruth{}
}

// mustShipment fetches a shipment that must exist at at.
func mustShipment(t testing.TB, w *sim.World, ref wire.ShipmentRef, at time.Time) *wire.Shipment {
	t.Helper()
	s, err := w.Shipment(ref, at)
	if err != nil {
		t.Fatalf("Shipment(%s, %s): %v", ref, at.Format(time.RFC3339), err)
	}
	return s
}

// bookedLegs is the itinerary of s as booked.
func bookedLegs(s sim.ShipmentTruth) []sim.LegTruth {
	if s.BookedLegs != nil {
		return s.BookedLegs
	}
	return s.Legs
}

// legsAt is the itinerary the service shows for s at at: as booked, then as
// each roll or omission announced by then left it.
func legsAt(s sim.ShipmentTruth, at time.Time) []sim.LegTruth {
	legs := bookedLegs(s)
	for _, j := range s.Jumps {
		if j.Legs != nil && !j.AnnouncedAt.After(at) {
			legs = j.Legs
		}
	}
	return legs
}

// vesselAt is the vessel the service shows sailing leg l at at: the truth's
// (the one that sails it), but the planned ship until its voyage's swap is
// announced.
func vesselAt(tr sim.Truth, l sim.LegTruth, at time.Time) int {
	for _, sw := range tr.Jumps.Swaps {
		if sw.Substitute.IMO == l.VesselIMO && at.Before(sw.AnnouncedAt) {
			return sw.VesselIMO
		}
	}
	return l.VesselIMO
}

// swappedOut reports whether a voyage of the fleet's vessel imo is sailed by
// a substitute announced by at: the vessel may then have no call to show.
func swappedOut(tr sim.Truth, imo int, at time.Time) bool {
	for _, sw := range tr.Jumps.Swaps {
		if sw.VesselIMO == imo && !sw.AnnouncedAt.After(at) {
			return true
		}
	}
	return false
}

// podArrival is the last leg's actual arrival.
func podArrival(s sim.ShipmentTruth) time.Time { return s.Legs[len(s.Legs)-1].ActualArrival }

// polDeparture is the first leg's actual departure.
func polDeparture(s sim.ShipmentTruth) time.Time { return s.Legs[0].ActualDeparture }

// hours is a duration in hours as a float.
func hours(d time.Duration) float64 { return d.Hours() }
