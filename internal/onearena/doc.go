// Package onearena, imported for its side effect, caps glibc's malloc
// arenas at one for the whole process, as MALLOC_ARENA_MAX=1 would:
//
//	import _ "github.com/etalake/etalake/internal/onearena"
//
// glibc gives a thread that mallocs an arena of its own (up to eight per
// core), and the small blocks DuckDB keeps in each (the bookkeeping of its
// buffers, table metadata) pin the pages around them, so every arena keeps
// its own fragmented high-water mark. DuckDB takes its buffers from its own
// jemalloc, so little traffic is left for glibc to spread over threads:
// one arena kept the import's peak RSS 19–29 MiB lower at 5 M events for no
// measurable time (BENCHMARKS.md, "The C heap").
//
// The limit has to be set before the process starts threads (Go's runtime
// makes them before any init function runs, and an arena, once made,
// stays), so it is set by a C constructor when the binary loads. A
// MALLOC_ARENA_MAX in the environment is the user's choice and wins.
// Elsewhere than Linux with glibc the package does nothing.
package onearena
