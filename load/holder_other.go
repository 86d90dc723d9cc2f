//go:build !(linux || darwin || freebsd)

package load

// writeLockHolder cannot tell a lock here: on Windows, where DuckDB locks
// the whole file, a copy could not be read either.
func writeLockHolder(string) (Process, bool) { return Process{}, false }
