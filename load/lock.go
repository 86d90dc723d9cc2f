package load

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// lockName is the lock file in the warehouse directory. A writer holds an
// exclusive flock on it and writes itself into it as one line of JSON
// ({"pid":…,"host":…,"since":…}); read-only users hold a shared flock and
// write nothing. The kernel drops a flock with the process that held it, so
// a crashed job never leaves the warehouse locked; its stale line is
// overwritten by the next writer and only read while someone holds the lock.
const lockName = ".etalake.lock"

// lock is a held flock on the lock file.
type lock struct {
	f      *os.File
	writer bool
}

// lockWriter takes the exclusive lock of the warehouse in dir without
// waiting, or returns a *BusyError naming the holder.
func lockWriter(dir string, now time.Time) (*lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	ok, err := tryFlock(f, true)
	if err != nil || !ok {
		if err == nil {
			err = busyError(dir, f)
		}
		f.Close()
		return nil, err
	}
	host, _ := os.Hostname()
	line, err := json.Marshal(Holder{PID: os.Getpid(), Host: host, Since: now.UTC()})
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.WriteAt(append(line, '\n'), 0)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		unflock(f)
		f.Close()
		return nil, err
	}
	return &lock{f: f, writer: true}, nil
}

// lockReader takes a shared lock of the warehouse in dir without waiting,
// or returns a *BusyError naming the writer holding it. A warehouse without
// a lock file (never opened by a writer of this version) is not locked.
func lockReader(dir string) (*lock, error) {
	f, err := os.Open(filepath.Join(dir, lockName))
	if errors.Is(err, fs.ErrNotExist) {
		return &lock{}, nil
	}
	if err != nil {
		return nil, err
	}
	ok, err := tryFlock(f, false)
	if err != nil || !ok {
		if err == nil {
			err = busyError(dir, f)
		}
		f.Close()
		return nil, err
	}
	return &lock{f: f}, nil
}

// busyError describes who holds the lock that f could not take: readers
// when a shared lock can still be had, else the writer of the lock file.
func busyError(dir string, f *os.File) *BusyError {
	e := &BusyError{Dir: dir}
	if ok, _ := tryFlock(f, false); ok {
		unflock(f)
		e.Readers = true
		return e
	}
	line, _ := io.ReadAll(io.NewSectionReader(f, 0, 4096))
	_ = json.Unmarshal(line, &e.Holder) // a holder that has not written yet stays zero
	return e
}

// release drops the lock; a writer first empties the lock file.
func (l *lock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	var err error
	if l.writer {
		err = l.f.Truncate(0)
	}
	err = errors.Join(err, unflock(l.f), l.f.Close())
	l.f = nil
	return err
}
