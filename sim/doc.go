// Package sim is the service simulator: an http.Handler (Service), a world
// generator (World) and a virtual clock (Clock). Tests, `etalake demo` and
// `etalake sim serve` use it; no production path needs it.
//
// Service applies every rule of the service spec in order — API_KEY
// authentication (401; or, as Config.Auth says, a bearer token or a header
// of another name, as carriers' APIs want it), the per-key rate window
// (429), product access (403), input validation (400), quota (403, before
// processing), no data (404) — charges one credit per successful paid
// call in monthly periods, answers the consumption endpoints for free, and
// can misbehave on purpose (Faults: latency, 5xx, cut bodies, 429
// bursts), seeded. Every request is kept in a ledger that names keys by a
// one-way id only (KeyID). Requests are checked by the simulator's own
// rules, written from the spec (validate.go, auth.go), never by the
// client's validators: the conformance tests run the real client against
// this service, and a shared check would agree with itself. So the
// package imports wire (the service's data format) and nothing of the
// client: its settings (Auth, Rate) are its own, read by its own code.
//
// The schedule product speaks one of two profiles (Config.ScheduleAPI):
// the service's own (spec/schedules.md, under SchedulePrefix), or DCSA
// Commercial Schedules 1.0.3 (dcsa.go, under DCSAPrefix: port-schedules,
// vessel-schedules, point-to-point-routes), from the same world, with the
// same keys, rate window, credits and faults. DCSA answers are arrays of
// root items cut into pages (the client's limit, or Config.PageSize when
// smaller), each page charged as one call, continued by an opaque
// Next-Page-Cursor bound to the request's filters and answered as of the
// first page's time (cursor.go). Its JSON types are the simulator's own,
// written from the standard's OpenAPI, not the client's decoders.
//
// World is a deterministic, seeded model of real ports, carriers, weekly
// services, vessels, voyages and shipments that answers "what would the
// service say at virtual time at" for the port, port-to-port, vessel and
// shipment queries, with a Truth of the parameters it drew (schedule
// reliability, carrier ETA bias, predictive ETA spread) for checking what
// the warehouse measures. Every answer is a pure function of the
// configuration, the request and at; the world never reads a clock and
// holds no mutable state, so it is safe for concurrent use.
//
// Carrier ETAs drift (eta.go: daily revisions, a bias and a spread that
// shrink towards arrival) and, unless WorldConfig.NoJumps, jump (jumps.go):
// a box rolled to the next sailing, a port call omitted (its boxes
// discharged at the next port), a voyage sailed by a substitute ship — at
// rates per carrier (carriers.go), announced on a carrier revision at least
// 4 days before the arrival they make, consistent across tracking answers
// and schedules, each kept in Truth (which shipments, when announced, the
// ETA either side, how far the arrival moved). World.CarrierETA is what
// the carrier reports of a shipment's POD at any time: the one source of
// route.pod in tracking answers.
//
// The vendor's webhooks (push.go, pusher.go): a shipment asked for is
// subscribed, and the service lists the pushes of its events — a
// container discharged at the POD, the POD date the carrier reports
// moved by more than 24 h — as the virtual clock passes them
// (DuePushes); a Pusher signs them as Standard Webhooks do, with the
// simulator's own code (webhook.go), and POSTs them, retrying on the
// standard's schedule.
package sim
