package load

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// heldOpen reports whether a DuckDB process has the database file at path
// open: DuckDB locks a database it opens (fcntl, shared for read-only),
// and the lock lasts as long as it has the file open.
//
// This process's own DuckDB instances are found by their open files, not
// by a lock test: closing any descriptor of a file drops every
// process-associated lock this process holds on it, so the file is
// opened for the test only when this process does not have it open.
// The test itself is an open file description lock (F_OFD_GETLK), which
// conflicts with any other process's lock.
func heldOpen(path string) bool {
	if openHere(path) {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		return true // cannot tell: keep it
	}
	return lk.Type != unix.F_UNLCK
}

// openHere reports whether this process has the file at path open.
func openHere(path string) bool {
	want, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return true // cannot tell: keep it
	}
	for _, fd := range fds {
		if got, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && got == want {
			return true
		}
	}
	return false
}
