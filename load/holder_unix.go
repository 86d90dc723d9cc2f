//go:build linux || darwin || freebsd

package load

import (
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// writeLockHolder reports whether another process holds a write lock on
// the file at path — DuckDB takes one (fcntl) on a database it opens
// read-write, and a shared one on a database it opens read-only — and
// which process it is.
//
// It opens and closes the file, which drops every fcntl lock this process
// holds on it: call it only where this process has the file open nowhere
// (here: after DuckDB failed to open it).
func writeLockHolder(path string) (Process, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Process{}, false
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_RDLCK, Whence: io.SeekStart}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil || lk.Type != syscall.F_WRLCK {
		return Process{}, false
	}
	h := Process{PID: int(lk.Pid)}
	if h.PID < 0 { // an open file description lock: no process to name
		h.PID = 0
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", h.PID)); err == nil && h.PID > 0 {
		h.Command = strings.TrimSpace(string(b))
	}
	return h, true
}
