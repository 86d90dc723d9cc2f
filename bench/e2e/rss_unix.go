//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakRSSKiB is the peak resident set size of an exited child, in KiB:
// its rusage's ru_maxrss (KiB on Linux, bytes on macOS). On Linux that is
// the largest of the child's and those of the processes it waited for.
func peakRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
