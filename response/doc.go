// Package response is the hand-off of a response between the stages: a
// Received response is what the client received (extract yields it, and
// a job lands it the moment it arrives); a Landed response is one as the
// raw landing keeps it, with where it came from and its id (load stores
// it and reads it back, transform derives rows from it). A body is opaque
// bytes here, or a BodyFile when it is too large to hold: this package
// decodes nothing, does no I/O, and depends only on the names of the
// service's products and endpoints (package wire).
package response
