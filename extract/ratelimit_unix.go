//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package extract

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f, waiting for other holders. The
// lock belongs to the open file description, so two Limiters of one process
// exclude each other like two processes do.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// unlockFile releases the flock taken by lockFile.
func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
