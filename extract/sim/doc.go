// Package sim is the service simulator: an http.Handler, a world generator
// and a virtual clock.
//
// The world part (World, built by NewWorld) is a deterministic, seeded model
// of real ports, carriers, weekly services, vessels, voyages and shipments
// that answers "what would the service say at virtual time at" for the port,
// port-to-port, vessel and shipment queries, with a Truth of the parameters
// it drew (schedule reliability, carrier ETA bias, predictive ETA spread) for
// checking what the warehouse measures. Every answer is a pure function of
// the configuration, the request and at; the world never reads a clock and
// holds no mutable state, so it is safe for concurrent use.
package sim
