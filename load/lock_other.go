//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos)

package load

import "os"

// On systems without flock (Windows, Solaris, AIX, Plan 9, WebAssembly) the
// lock file is still written, but only DuckDB's own lock on the database
// file keeps a second writer out, with DuckDB's message instead of a
// *BusyError, and two Warehouses of one process are not kept apart.

// tryFlock always succeeds on this system.
func tryFlock(*os.File, bool) (bool, error) { return true, nil }

// unflock does nothing on this system.
func unflock(*os.File) error { return nil }
