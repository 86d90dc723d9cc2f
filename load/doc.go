// Package load owns the warehouse on disk: the raw landing (every HTTP
// response stored, zstd-compressed and content-addressed, before anything
// parses it), the DuckDB loader (the forward-only migrations of package
// schema, and an idempotent, order-independent merge of Arrow batches per
// table kind), and the Parquet mirror (a hive-partitioned projection of the
// DuckDB tables, rewritten partition by partition through a temp file and a
// rename). It also holds the single-writer lock of a warehouse.
//
// It does not parse JSON (raw bodies are opaque bytes), speak HTTP or build
// records: extract, transform and jobs do, and load imports none of them.
// Everything it writes is derived from the definitions in package schema;
// no SQL is written per table.
package load
