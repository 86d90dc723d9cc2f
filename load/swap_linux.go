package load

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// canSwap: Linux exchanges two directories atomically.
const canSwap = true

// exchange swaps the directory entries a and b in one atomic step
// (renameat2 RENAME_EXCHANGE, Linux 3.15; ext4, xfs, btrfs, tmpfs and
// others). A filesystem that cannot is errNoSwap.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
		return errors.Join(errNoSwap, &os.LinkError{Op: "renameat2", Old: a, New: b, Err: err})
	}
	if err != nil {
		return &os.LinkError{Op: "renameat2", Old: a, New: b, Err: err}
	}
	return nil
}

// linkError is errNoSwap when err says the filesystem has no hard links.
func linkError(err error) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ENOSYS) {
		return errors.Join(errNoSwap, err)
	}
	return err
}

// syncFS makes everything written on the filesystem of path durable
// (syncfs): the staged trees' directories and links in one call, instead
// of a sync of each of their directories.
func syncFS(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return errors.Join(unix.Syncfs(int(f.Fd())), f.Close())
}
