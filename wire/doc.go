// Package wire is the service's data format: the Go types of every response
// (shipment tracking, the three DCSA schedule payloads, consumption periods,
// the error body), their decoders, the names of the products and
// endpoints, and the identifiers a request carries (ShipmentRef, ISO 6346
// container numbers). It does no I/O, so that the client (extract), the
// simulator (sim) and the transforms (transform) can depend on it without
// depending on each other.
package wire
