//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly || illumos

package load

import (
	"os"
	"syscall"
)

// tryFlock takes an exclusive or shared flock on f without waiting and
// reports whether it got it. The lock belongs to the open file description,
// so two Warehouses of one process exclude each other as two processes do.
func tryFlock(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		switch err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err {
		case nil:
			return true, nil
		case syscall.EWOULDBLOCK:
			return false, nil
		case syscall.EINTR:
			continue
		default:
			return false, err
		}
	}
}

// unflock releases a lock taken by tryFlock.
func unflock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
