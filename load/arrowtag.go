//go:build !duckdb_arrow

package load

// Without the duckdb_arrow tag, duckdb-go leaves out its Arrow bridge and
// session.go fails to compile with "undefined: duckdb.Arrow", which does
// not say what to do. This file, built only then, stops the build first
// (the type checker reports type declarations before the rest) with an
// error that names the tag.
type _ ["etalake builds only with -tags duckdb_arrow"]int
