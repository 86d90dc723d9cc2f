// Package transform turns landed service responses (response.Landed)
// into rows of the warehouse's contract tables (schema.Rows, Arrow record
// batches): a Batch derives, deduplicates and buffers the rows of many
// responses, and a body or record that does not fit becomes a dead_letters
// row instead of an error. It is the one decoder of the service's answers:
// the client hands over the bytes it received and decodes none of them
// but what it needs itself (an error's body, the next page, a current
// period's credits). It is pure computation: it does no I/O, knows
// neither HTTP nor DuckDB nor Parquet, and depends only on the wire
// format (package wire), the hand-off of a response (package response)
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
