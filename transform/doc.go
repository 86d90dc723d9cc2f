// Package transform turns landed service responses into Arrow record
// batches of the warehouse's contract tables (package schema): a Batch
// derives, deduplicates and buffers the rows of many responses, and a body
// or record that does not fit becomes a dead_letters row instead of an
// error. It is pure computation: it does no I/O, knows neither HTTP nor
// DuckDB nor Parquet, and depends only on the wire format (package wire)
// and the schema.
//
// A tracking answer is decoded by a fast path for the common, well-formed
// body, else by wire.DecodeShipment element by element: each element it
// leaves out is one dead letter naming its path, and the rest loads. Codes,
// UN/LOCODEs, SCACs and container numbers are kept in one spelling
// (codes.go). A container event is identified by what does not change
// about it, the container, its code, its place and its occurrence, never
// its date, vessel or voyage (eventkey.go): the event_key of its
// container_events row and its event_observations. docs/decoding.md says
// all of it for users.
package transform
