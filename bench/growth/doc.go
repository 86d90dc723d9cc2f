// Command growth measures whether a night costs what the night brings:
// the same nightly job, timed on warehouses of 1×, 4× and 16× the history
// (64× with -big), in one run, so their ratios compare like with like.
//
//	go run -tags duckdb_arrow ./bench/growth            # 1×, 4×, 16×
//	go run -tags duckdb_arrow ./bench/growth -sizes 100,400 -night 100   # a quick look
//	go run -tags duckdb_arrow ./bench/growth -big -json
//	go run -tags duckdb_arrow ./bench/growth -nightly 60 -sizes 500   # a lake fed night by night
//
// Like bench/e2e it treats etalake as a black box: it builds the binary
// from the module root and drives its commands.
//
// For each size S (shipments in the simulated world; 500 is 1×):
//
//  1. etalake sim responses --seed 1 --shipments S --days 31 writes a day of
//     tracking answers per file; the last day is kept aside as the night.
//
//  2. etalake import of days 1–30, with a SQLite Iceberg lake, builds the
//     warehouse: its history. A copy of it (cp -a, links kept) is pristine.
//
//  3. Each run restores the pristine copy at the same paths and times the
//     night: an import of the first -night answers of day 31 (the file's
//     modification time kept, so observed_at is that of the day).
//
//  4. Once per world, after the history: etalake lake pull of the lake
//     whole (the analysts' pull, kept with the pristine copy), and a lake
//     holding only the night (a fresh warehouse importing the night alone)
//     pulled, timed: what a night's pull is measured against.
//
// Measured per night: wall time; CPU (user + system, from the child's
// rusage); peak RSS; disk of the warehouse before (steady) and sampled every
// 50 ms during the job (peak), each inode counted once; disk per stored
// answer; rows derived (the job's summary) against rows the lake committed
// (lake_rows and lake_deleted in its log: data and position deletes) and
// rows the upkeep compacted (lake_compacted_rows); the most files (data
// and delete) of a table's current snapshot, from etalake lake status;
// then the time of lake pull after the night against the pull of the
// night's lake alone. Medians of -runs.
//
// With -nightly N it does something else: a 1× world of N days fed to a
// lake by one import a day, with no lake maintain, reporting each night's
// rows (derived, written, compacted) and, at the end, the most files a
// table's current snapshot holds.
package main
