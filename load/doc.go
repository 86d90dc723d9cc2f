// Package load owns the warehouse on disk: the raw landing (every HTTP
// response stored, zstd-compressed and content-addressed, before anything
// parses it), the DuckDB loader (the forward-only migrations of package
// schema, and an idempotent, order-independent merge of Arrow batches per
// table kind), and the Parquet mirror (a hive-partitioned projection of
// the DuckDB tables: each table a sync changes swapped whole where the
// filesystem can, else rewritten partition by partition through a temp
// file and a rename). It also keeps the warehouse's own records — the run
// ledger (etl_runs), the tracked set, which responses were answered for a
// date and which were derived — and holds the single-writer lock of a
// warehouse. Every write to a warehouse goes through it.
//
// The writer works in its own copy of the database and publishes it for
// readers at the end of every job (publish.go), so that readers and the
// writer never wait for each other. A publish rebuilds the analytic
// tables and writes the mirror first, so that readers see every table,
// the analytic tables and the mirror as of one moment. Every response a
// job receives is synced to the landing journal before it is decoded
// (journal.go), so that a job killed at any moment loses none. A body
// larger than a job decodes is never held whole: it arrives in a file,
// which the journal takes in and the body store (bodies.go) keeps
// compressed, named by its SHA-256. A webhook receiver appends the bodies
// the vendor pushes to journals of its own without the writer lock, one
// at a time under an flock, rotated (pushjournal.go); the next writer's
// Open lands those it can lock.
//
// It does not decode answers (raw bodies are opaque bytes), speak HTTP
// or derive rows from responses: extract and transform do, and load
// imports neither. A response comes to it, and goes back out of the raw
// landing, as a response.Landed; rows come as schema.Rows. Everything it writes is derived from the definitions in package
// schema; no SQL is written per table. DuckDB works within the memory
// limit of Options, spilling to disk past it.
package load
