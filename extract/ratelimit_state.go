package extract

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gofrs/flock"
)

const (
	stateVersion = 1
	// maxStateBytes bounds what is read of a state file; a larger one is
	// treated as corrupt.
	maxStateBytes = 1 << 20
	// maxSent bounds the log whatever the writers do.
	maxSent = 4 * maxRateN
	// lifeMemory is how long a state file remembers a slot lifetime longer
	// than the current writer's.
	lifeMemory = int64(24 * time.Hour)
)

// limiterState is the sliding log of one API key, as kept in memory and in
// the state file. Times are stamps (see Limiter.stamp) in nanoseconds.
type limiterState struct {
	Version int     `json:"version"`
	Sent    []int64 `json:"sent"`        // send times, ascending
	Pause   int64   `json:"pause_until"` // no request before this
	// Life is the longest slot lifetime (Window+Margin) among the writers
	// of the last day, LifeAt when a writer last used it: a writer with a
	// shorter window must not forget send times the others still count.
	Life   int64 `json:"slot_life_ns"`
	LifeAt int64 `json:"slot_life_at"`
}

// admit lets a request go at now when fewer than n were sent in
// (now-life, now] and no pause is on: it records now and returns true.
// Otherwise it returns the time at which to check again: the end of the
// pause or the expiry of the slot that brings the window below n, the
// later of the two. Send times older than keep are forgotten.
func (st *limiterState) admit(now, life, keep int64, n int) (bool, int64) {
	st.Sent = st.Sent[st.firstAfter(now-keep):]
	in := st.Sent[st.firstAfter(now-life):]
	wake := now
	if k := len(in); k >= n {
		wake = in[k-n] + life
	}
	wake = max(wake, st.Pause)
	if wake > now {
		return false, wake
	}
	st.Sent = append(st.Sent, now)
	if len(st.Sent) > maxSent {
		st.Sent = st.Sent[len(st.Sent)-maxSent:]
	}
	return true, now
}

// move replaces the send time from by to (a later time: the request left
// after it was granted), keeping the log sorted. It reports whether it
// found from (it may have been forgotten already).
func (st *limiterState) move(from, to int64) bool {
	i, found := slices.BinarySearch(st.Sent, from)
	if !found || to <= from {
		return false
	}
	st.Sent = slices.Delete(st.Sent, i, i+1)
	j, _ := slices.BinarySearch(st.Sent, to)
	st.Sent = slices.Insert(st.Sent, j, to)
	return true
}

// freesAt returns when the oldest send time in (now-life, now] expires, or
// now+life when there is none.
func (st *limiterState) freesAt(now, life int64) int64 {
	if i := st.firstAfter(now - life); i < len(st.Sent) {
		return st.Sent[i] + life
	}
	return now + life
}

// firstAfter returns the index of the first send time after t.
func (st *limiterState) firstAfter(t int64) int {
	i, _ := slices.BinarySearch(st.Sent, t+1)
	return i
}

// clampFuture moves send times later than now back to now: after the clock
// stepped backwards they count as just sent, rather than blocking the key
// for as long as the step. It reports whether it changed anything.
func (st *limiterState) clampFuture(now int64) bool {
	changed := false
	for i := len(st.Sent) - 1; i >= 0 && st.Sent[i] > now; i-- {
		st.Sent[i] = now
		changed = true
	}
	return changed
}

// keepFor returns how long send times must be kept: the longest slot
// lifetime used by a writer in the last day, or life. It records life as
// used now and reports whether the recorded lifetime changed.
func (st *limiterState) keepFor(now, life int64) (int64, bool) {
	if st.Life > life && now-st.LifeAt < lifeMemory {
		return st.Life, false
	}
	changed := st.Life != life
	st.Life, st.LifeAt = life, now
	return life, changed
}

// valid reports whether a decoded state is one we could have written.
func (st *limiterState) valid() bool {
	if st.Version != stateVersion || st.Pause < 0 || st.Life < 0 || len(st.Sent) > maxSent {
		return false
	}
	for i, t := range st.Sent {
		if t <= 0 || (i > 0 && t < st.Sent[i-1]) {
			return false
		}
	}
	return true
}

// stateFile is the state of one key shared by the processes of a machine.
// Each read-modify-write holds an exclusive lock on <dir>/<keyID>.lock
// (github.com/gofrs/flock: flock(2) on Unix, LockFileEx on Windows), a file
// of its own so that the state can be replaced by a rename while locked.
type stateFile struct {
	path string       // <dir>/<keyID>.json
	tmp  string       // written, then renamed to path
	lock *flock.Flock // <dir>/<keyID>.lock
}

func openStateFile(dir, keyID string) (*stateFile, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("rate limiter state: %w", err)
	}
	path := filepath.Join(dir, keyID+".json")
	lock := flock.New(filepath.Join(dir, keyID+".lock"), flock.SetPermissions(0o600))
	return &stateFile{path: path, tmp: path + ".tmp", lock: lock}, nil
}

// update reads the state under the lock, lets f change it (corrupt tells
// that the file was unreadable or malformed and st is empty) and writes it
// back when f reports a change.
func (f *stateFile) update(fn func(st *limiterState, corrupt bool) bool) error {
	if err := f.lock.Lock(); err != nil {
		return fmt.Errorf("rate limiter state: lock %s: %w", f.lock.Path(), err)
	}
	defer f.lock.Unlock()
	st, corrupt := f.read()
	if !fn(&st, corrupt) {
		return nil
	}
	if err := f.write(&st); err != nil {
		return fmt.Errorf("rate limiter state: %w", err)
	}
	return nil
}

// read returns the stored state, an empty one when there is no file yet,
// or an empty one and true when the file cannot be trusted.
func (f *stateFile) read() (limiterState, bool) {
	empty := limiterState{Version: stateVersion}
	data, err := os.ReadFile(f.path)
	if os.IsNotExist(err) {
		return empty, false
	}
	if err != nil || len(data) > maxStateBytes {
		return empty, true
	}
	var st limiterState
	if json.Unmarshal(data, &st) != nil || !st.valid() {
		return empty, true
	}
	return st, false
}

// write replaces the state file by renaming a complete temporary file over
// it, so that readers and a crash mid-write see the old state or the new.
// The temporary name is fixed: only the holder of the lock writes it.
func (f *stateFile) write(st *limiterState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.OpenFile(f.tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.tmp, f.path)
}

func (f *stateFile) close() error { return f.lock.Close() }
