// Package transform turns landed service responses into Arrow record
// batches of the warehouse's contract tables (package schema): a Batch
// derives, deduplicates and buffers the rows of many responses, and a body
// or record that does not fit becomes a dead_letters row instead of an
// error. It is pure computation: it does no I/O, knows neither HTTP nor
// DuckDB nor Parquet, and depends only on the wire format (package wire)
// and the schema.
package transform
