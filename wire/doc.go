// Package wire is the service's data format: the Go types of every response
// (shipment tracking, the three DCSA schedule payloads, consumption periods,
// the error body), their decoders, and the names of the products and
// endpoints. It does no I/O, so that both the client (extract) and the
// transforms (transform) can depend on it without depending on each other.
package wire
