// Command e2ebench is the end-to-end benchmark of etalake: how fast, and
// in how much memory, tracking responses saved as NDJSON become the
// warehouse (DuckDB tables and their Parquet mirror), by etalake's own
// path against DuckDB's own JSON reader into the same tables.
//
//	go run -tags duckdb_arrow ./internal/e2ebench -events 1000000
//
// It generates the input once with the simulator (seed 1, one file per
// day of -days days, as `etalake sim responses` writes it; the number of
// shipments is chosen so that the bodies hold about -events container
// events) and caches it under -cache. Then it runs each path, -runs
// times, alternately, each as a child process of itself on a fresh
// warehouse, so that wall time and peak RSS (getrusage's maxrss) are the
// path's alone:
//
//   - ours: `etalake import DIR`, as the command does it: every body
//     landed raw (zstd), derived by the transform, loaded in batches, then
//     the Parquet mirror written; an input larger than -part-size (1 GiB,
//     the command's default) in parts, each by a process of this program
//     in mode ours-part, as the command starts itself (jobs.ImportParts);
//     the peak RSS is then the largest of those processes';
//   - duckdb: per file, read_json_objects for the raw bodies (landed as
//     uncompressed BLOBs) and read_json + UNNEST for the rows, computed in
//     SQL by the transform's rules, merged by load.LoadFrom (the very
//     merge of Load), then the same Parquet mirror.
//
// Before measuring, it runs both on a small input (-verify-days days of a
// 400-shipment world, plus bodies varied to meet the transform's rules the
// simulator never needs: see writeVariants) and compares every table and
// Parquet mirror; it reports no numbers when they differ. events/s counts the container
// events of every body (the rows offered to event_observations before
// deduplication), over the child's whole wall time (process start,
// warehouse open and close included).
//
// Flags: -events N (target, approximate), -days D, -runs N, -part-size
// BYTES (0: the ours path in one process, as before parts), -cpu N
// (GOMAXPROCS of the children; DuckDB's threads are the warehouse's
// default), -duckdb-read columns|sample|full (how read_json learns the
// shape: an explicit columns= of the members used, its default sample of
// 20 480 lines, or sample_size=-1), -keep DIR (write the warehouses to
// DIR and keep them), -cpuprofile and -memprofile PREFIX (each child
// writes PREFIX.<path>.<run>; the ours path profiles its parts only with
// -part-size 0), -cache DIR.
//
// With -nightly N it compares nothing: it imports the input's days as N
// consecutive parts, a child each, into one warehouse, as nightly jobs
// fill one, and prints each child's peak RSS (whether a job's memory
// follows its input or the warehouse it writes to):
//
//	go run -tags duckdb_arrow ./internal/e2ebench -events 5000000 -nightly 5
package main
