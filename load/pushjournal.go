package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/etalake/etalake/response"
)

// Receiver journals: `etalake webhook serve` lands the bodies the vendor
// pushes without the writer lock — a nightly job runs while it serves —
// in journals of its own in the landing directory, of the same frames as
// a job's, named push-<start>-<pid>-<n>.journal. The receiver holds an
// flock(2) on the journal it appends to (taken before the file gets its
// name, so no writer ever sees it unlocked while it is written), and
// rotates: it closes a journal, and so drops its lock, once it is
// RotateEvery old or at shutdown, and opens the next at the next body.
// A writer's Open drains every journal it can lock (drainJournals) — the
// rotated ones, and those of a receiver that died, whose last record
// may be cut short (never acknowledged) — and leaves the one a live
// receiver holds for a later writer.
const (
	pushPrefix = "push-"
	// pushNewExt ends the name of a receiver journal being created:
	// locked, not yet renamed to its journal name.
	pushNewExt = ".new"
)

// PushJournal is the landing journal of a webhook receiver: one journal
// file at a time, rotated. It is safe for concurrent use; appends share
// their syncs as a job's journal's do.
type PushJournal struct {
	dir  string // the landing directory
	base string // push-<start>-<pid>

	mu    sync.RWMutex // cur and lock; appends hold it shared, rotation exclusive
	cur   *Journal
	lock  *flock.Flock
	seq   int
	since time.Time // when cur was opened
	now   func() time.Time
}

// OpenPushJournal opens the receiver journal of the warehouse in dir,
// creating its landing directory if needed; dir itself must exist. It
// opens no database and takes no lock of the warehouse. now (nil:
// time.Now) names the journals and dates their rotation.
func OpenPushJournal(dir string, now func() time.Time) (*PushJournal, error) {
	if now == nil {
		now = time.Now
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("load: warehouse %s: %w", abs, errors.Join(err, errNotDir(st)))
	}
	landing := filepath.Join(abs, workDir, journalDir)
	if err := os.MkdirAll(landing, 0o755); err != nil {
		return nil, fmt.Errorf("load: creating the landing directory: %w", err)
	}
	if err := sweepPushNew(landing); err != nil {
		return nil, err
	}
	base := fmt.Sprintf("%s%s-%d", pushPrefix, now().UTC().Format("20060102T150405.000000000Z"), os.Getpid())
	return &PushJournal{dir: landing, base: base, now: now}, nil
}

// IDsDir is the directory of the receiver's record of the webhook-ids
// it took (webhook.Ledger), beside the landing directory: it outlives
// the journals, which writers remove once landed.
func (p *PushJournal) IDsDir() string { return filepath.Join(filepath.Dir(p.dir), pushIDsDir) }

// pushIDsDir is IDsDir's name under the warehouse's working directory.
const pushIDsDir = "webhook-ids"

// sameFile says whether path names the file f is open on.
func sameFile(f *os.File, path string) error {
	a, err := f.Stat()
	if err != nil {
		return err
	}
	b, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !os.SameFile(a, b) {
		return fmt.Errorf("%s was replaced while it was created", path)
	}
	return nil
}

func errNotDir(st os.FileInfo) error {
	if st != nil && !st.IsDir() {
		return errors.New("not a directory")
	}
	return nil
}

// Append lands r in the current journal, opening one if none is open,
// and returns once it is synced: when it returns nil, r survives a crash
// of the process or of the machine. A failed append closes the journal
// it went to, so that a record cut short by it is that journal's last.
func (p *PushJournal) Append(r *response.Landed) error {
	if r.File != nil {
		return invalidf("raw response %s %s: a receiver's body is held in memory, not in a file", r.Endpoint, r.Request)
	}
	for {
		p.mu.RLock()
		if j := p.cur; j != nil {
			err := j.Append(r)
			p.mu.RUnlock()
			if err != nil {
				return errors.Join(err, p.rotateIf(j))
			}
			return nil
		}
		p.mu.RUnlock()
		if err := p.open(); err != nil {
			return err
		}
	}
}

// open opens the next journal unless one is open: created under a
// temporary name, locked, then renamed, so that no writer can lock it
// between its creation and its lock.
func (p *PushJournal) open() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != nil {
		return nil
	}
	p.seq++
	path := filepath.Join(p.dir, fmt.Sprintf("%s-%d%s", p.base, p.seq, journalExt))
	tmp := path + pushNewExt
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("load: opening a receiver journal: %w", err)
	}
	lk := flock.New(tmp)
	ok, err := lk.TryLock()
	if err == nil && !ok {
		err = errors.New("locked by another process")
	}
	if err == nil {
		// A receiver starting up sweeps the journals its dead
		// predecessors left being created: it may have taken this name
		// between its creation and its lock. Locked now, it is ours
		// only if the name still names the file we write.
		err = sameFile(f, tmp)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(p.dir)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("load: opening a receiver journal: %w", err), f.Close(), lk.Unlock(), removeIfExists(tmp))
	}
	p.cur, p.lock, p.since = &Journal{f: f, path: path}, lk, p.now()
	return nil
}

// Rotate closes the current journal when it is at least age old (0: any
// age), handing it to the next writer; the next Append opens another. It
// says whether it closed one.
func (p *PushJournal) Rotate(age time.Duration) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == nil || p.now().Sub(p.since) < age {
		return false, nil
	}
	return true, p.closeLocked()
}

// rotateIf closes j if it is still the current journal.
func (p *PushJournal) rotateIf(j *Journal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur != j {
		return nil
	}
	return p.closeLocked()
}

func (p *PushJournal) closeLocked() error {
	err := p.cur.Close()
	err = errors.Join(err, p.lock.Unlock())
	p.cur, p.lock = nil, nil
	return err
}

// Close closes the current journal, handing what it holds to the next
// writer. Appends after it open a new journal.
func (p *PushJournal) Close() error {
	_, err := p.Rotate(0)
	return err
}

// isPushJournal says whether a journal's file name is a receiver's.
func isPushJournal(path string) bool { return strings.HasPrefix(filepath.Base(path), pushPrefix) }

// sweepPushNew removes the journals a receiver died creating (no record
// in them was ever acknowledged): those no live receiver holds.
func sweepPushNew(landing string) error {
	paths, err := filepath.Glob(filepath.Join(landing, pushPrefix+"*"+journalExt+pushNewExt))
	if err != nil {
		return err
	}
	for _, p := range paths {
		lk := flock.New(p)
		ok, err := lk.TryLock()
		if err != nil || !ok {
			continue // being created by a live receiver
		}
		err = removeIfExists(p)
		if uerr := lk.Unlock(); err == nil {
			err = uerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
