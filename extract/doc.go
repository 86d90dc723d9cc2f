// Package extract is the source side of etalake: the wire types of the
// Shipping Schedule and Container ETA Service, validation of what we send it,
// and the HTTP client with its per-key rate limiter, credit budgets and retry
// policy.
//
// It returns decoded values together with the raw bytes they came from, so
// that callers can land a response before they trust it; a body too large
// to decode comes, with Config.SpillDir, in the file it was streamed to as
// it arrived, redacted, never held whole (body.go). It knows nothing of
// DuckDB, Arrow or the warehouse.
package extract
