// Package bytesize reads sizes written for people, such as "512MiB",
// "2GiB", "800MB" or "4096": the units DuckDB's memory_limit takes, and
// the ones etalake's size flags take.
package bytesize
