//go:build !duckdb_arrow

package cli

// The command needs DuckDB's Arrow bridge, which duckdb-go builds only with
// the duckdb_arrow tag. load/arrowtag.go stops a build without it before
// this package is compiled; this file says the same should the command
// ever be compiled first (README: every build and test command).
type _ ["etalake builds only with -tags duckdb_arrow"]int
