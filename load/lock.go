package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Files of the writer lock in the warehouse directory. A writer holds an
// exclusive lock on lockName (github.com/gofrs/flock: flock(2) on Unix,
// LockFileEx on Windows) and then writes who it is into holderName as one
// line of JSON ({"pid":…,"host":…,"since":…}). The operating system drops
// the lock with the process that held it, so a crashed job never leaves
// the warehouse locked; its stale holder line is overwritten by the next
// writer and only read while someone holds the lock. The holder lives in
// a file of its own because on Windows a locked file cannot be read by
// another process.
const (
	lockName   = ".etalake.lock"
	holderName = ".etalake.writer"
)

// lockPoll is how often a waiting writer tries the lock again.
const lockPoll = 250 * time.Millisecond

// lock is the held writer lock of a warehouse.
type lock struct {
	fl     *flock.Flock
	holder string // path of the holder file
}

// lockWriter takes the exclusive lock of the warehouse in dir. When
// another writer holds it, it calls waiting once with who that is and
// tries again until wait has passed, then returns a *BusyError naming the
// holder (at once when wait is zero).
func lockWriter(ctx context.Context, dir string, now time.Time, wait time.Duration, waiting func(*BusyError)) (*lock, error) {
	fl := flock.New(filepath.Join(dir, lockName), flock.SetPermissions(0o644))
	ok, err := fl.TryLock()
	if err == nil && !ok && wait > 0 {
		if waiting != nil {
			waiting(busyError(dir, 0))
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		ok, err = fl.TryLockContext(wctx, lockPoll)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load: locking %s: %w", dir, err)
	}
	if !ok {
		return nil, busyError(dir, wait)
	}
	lk := &lock{fl: fl, holder: filepath.Join(dir, holderName)}
	host, _ := os.Hostname()
	line, err := json.Marshal(Holder{PID: os.Getpid(), Host: host, Since: now.UTC()})
	if err == nil {
		err = writeSynced(lk.holder, append(line, '\n'))
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("load: recording the writer of %s: %w", dir, err), fl.Unlock())
	}
	return lk, nil
}

// busyError describes the writer holding the lock of dir, as its holder
// file says, after waiting for waited.
func busyError(dir string, waited time.Duration) *BusyError {
	e := &BusyError{Dir: dir, Waited: waited}
	line, _ := os.ReadFile(filepath.Join(dir, holderName))
	_ = json.Unmarshal(line, &e.Holder) // a holder that has not written yet stays zero
	return e
}

// release removes the holder file and drops the lock.
func (l *lock) release() error {
	if l == nil || l.fl == nil {
		return nil
	}
	err := os.Remove(l.holder)
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	err = errors.Join(err, l.fl.Unlock())
	l.fl = nil
	return err
}
