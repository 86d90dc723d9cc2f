// Package estimate is etalake's own arrival estimate: for every carrier
// ETA observed at a shipment's port of discharge (POD) or final place
// (POSTPOD), an estimate of when the box really arrives, with an 80 % and
// a 95 % interval, learned from the warehouse alone.
//
// It learns only from arrivals known before the UTC day the ETA was
// observed on (no look-ahead): the error of each carrier's ETA by horizon,
// by carrier, by carrier × port and by carrier × lane, each level shrunk
// towards the coarser one where its arrivals are few, recent arrivals
// weighing more; the service's predictive ETA where it is the better
// source, in the weight its own errors earn; and intervals from the
// quantiles of the estimate's own past errors (out of sample), not from a
// normal law.
//
// The model (model.go) is pure Go; Update (update.go) reads the
// warehouse's observations since the earliest one it has not estimated,
// and writes the tables arrival_estimates and arrival_learning, whose
// shape the file sql/views/001_arrival_estimates.sql gives. It does not
// fetch, transform or publish anything.
package estimate
