// Package cheap reports how much of the C heap (glibc malloc) is in use,
// for benchmarks that measure what DuckDB and the Arrow C data interface
// allocate outside Go's heap and DuckDB's own allocator, and what they
// never give back. Off Linux with glibc it reports that it cannot.
package cheap
