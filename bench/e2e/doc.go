// Command e2e is etalake's end-to-end benchmark: how long, and in how
// much memory, the etalake binary takes to turn tracking responses saved
// as NDJSON into a warehouse (DuckDB tables and their Parquet mirror),
// and to rebuild that warehouse from its raw landing.
//
// It treats etalake as a black box: it builds the binary from the module
// root and drives its commands, and imports nothing of the product, so it
// measures whatever the code of the day does and outlives refactors.
//
//	go run ./bench/e2e -events 1000000 -runs 3
//	go run ./bench/e2e -events 50000 -runs 1 -demo
//
// What it does, in order:
//
//  1. Builds the binary once: go build -tags duckdb_arrow -o TMP/etalake .
//     in the module root (-root; by default the one `go env GOMOD` names
//     from the current directory).
//  2. Generates the input with the binary itself, `etalake sim responses
//     --seed S --shipments N --days D --out DIR`: one NDJSON file per day,
//     the tracking response of every shipment visible that day. N is chosen
//     so that the bodies hold about -events container events: a world of
//     400 shipments over the same days is generated and counted first, and
//     events are taken to grow in proportion to shipments. Inputs are
//     cached under -cache, one directory per seed, shipments and days, so a
//     second run with the same flags reuses them (even if the simulator
//     has changed since: remove the directory then); a directory is
//     complete once its manifest.json (counts, size, generation time, the
//     commit that generated it) is written.
//  3. Runs, -runs times, each command as a child process on a fresh
//     warehouse directory: `etalake import --warehouse W DIR`, then
//     `etalake replay --warehouse W` (the full replay of that warehouse),
//     and with -demo `etalake demo --days 30 --warehouse W2` (which
//     simulates a world of its own, 400 shipments whatever -events says).
//     After each it counts the rows of container_events,
//     event_observations and eta_observations with `etalake sql --format
//     csv` (not measured), and warns if the replay changed a count.
//
// For each child it records the wall time (process start, warehouse open
// and close included), the peak RSS (getrusage's ru_maxrss of the child,
// which on Linux is the largest of the child and the processes it waited
// for: an import or replay in parts reports its largest part), its exit
// code and the size of the warehouse directory afterwards (the sum of its
// files' sizes). events/s divides the input's container events (the rows
// offered to event_observations, before deduplication) by the wall time.
//
// It prints a line per child run, then a report ready to paste into
// BENCHMARKS.md: the command line, the date, the git commit of the module
// root (with -dirty if `git status --porcelain` says anything), `go
// version`, the CPU count, the load average, the input, the resulting row
// counts and a table of the median and maximum wall time and peak RSS per
// step. If a child fails, it prints the tail of its standard error and
// exits with status 1.
//
// The children get -memory-limit as ETALAKE_MEMORY_LIMIT (DuckDB's
// memory_limit syntax: 1GB, 40%). Every other ETALAKE_* variable of the
// benchmark's environment is withheld from them, so that the command line
// says everything etalake was given; Go's own variables (GOGC, GOMAXPROCS,
// GOMEMLIMIT, GODEBUG) pass through and the report names those set.
//
// Sizes on the project machine (2 cores; seed 1, 30 days): 1 M events is
// 2 682 shipments, 68 305 responses and 0.8 GB of NDJSON, generated in
// about 14 s and counted in about as long; 10 M events about 27 000
// shipments and 8 GB, some 2.5 minutes each. The warehouses go under
// -keep, or a temporary directory removed at the end.
package main
