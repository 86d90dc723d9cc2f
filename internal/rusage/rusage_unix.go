//go:build unix

package rusage

import (
	"os"
	"runtime"
	"syscall"
)

// PeakRSSKiB is the peak resident set size of an exited child, in KiB
// (getrusage's ru_maxrss: KiB on Linux, bytes on macOS), including the
// children it waited for; 0 if ps is nil.
func PeakRSSKiB(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
