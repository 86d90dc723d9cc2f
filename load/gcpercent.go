package load

import (
	"os"
	"runtime/debug"
	"sync"
)

// writerGCPercent is the Go GC target while a Warehouse is open for
// writing. A writing process's memory is DuckDB's (its memory_limit and
// what it allocates outside it) plus Go's, and Go's is mostly the load
// batch of the job's sink: collecting at 50 % growth instead of Go's
// default 100 % keeps 30–50 MiB less mapped at a load's peak for no
// measurable time (BENCHMARKS.md, "end to end").
const writerGCPercent = 50

// gcScope sets the GC target while writers are open: the first Open sets
// it, the last Close restores what was there. A GOGC in the environment
// is the user's choice and is left alone.
var gcScope struct {
	sync.Mutex
	open int
	prev int
}

// enterWriterGC counts an open writer and reports whether it set the
// target, in which case the writer calls leaveWriterGC when it closes.
func enterWriterGC() bool {
	if os.Getenv("GOGC") != "" {
		return false
	}
	gcScope.Lock()
	defer gcScope.Unlock()
	if gcScope.open == 0 {
		gcScope.prev = debug.SetGCPercent(writerGCPercent)
	}
	gcScope.open++
	return true
}

func leaveWriterGC() {
	gcScope.Lock()
	defer gcScope.Unlock()
	if gcScope.open--; gcScope.open == 0 {
		debug.SetGCPercent(gcScope.prev)
	}
}
