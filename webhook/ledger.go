package webhook

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/etalake/etalake/internal/setting"
)

// The ledger: the webhook-ids a receiver took, kept on disk for as long
// as the vendor may retry them, so that a retry after a restart of the
// receiver, or past the tolerance, is the message landed before and not
// a new one. The standard makes the id the key: "webhook-id: the unique
// message identifier for the webhook message. This identifier is unique
// across all messages, but will be the same when the same webhook is
// being resent (e.g. due to a previous failure)." Svix retries for about
// 28 hours (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), so the ids are
// kept for days (DefaultRetention), not for the tolerance, which only
// bounds how old a signature may be.
//
// Each id is recorded with the webhook-timestamp of its first attempt —
// what a body without a timestamp of its own is observed at, so that
// every retry of it is the same landed response — synced before the body
// is landed; that it landed is appended after, synced with the next
// record. A retry of an id taken but not known landed (the receiver died
// between the two) is landed again, with the first attempt's time: the
// same response, which the warehouse lands once.
//
// The records are in files of an hour each, ids-<yyyymmddThh>.log, by
// when they were written: old ids are pruned by removing the files older
// than the retention, by their names, and an opening reads only the
// files within it.
const (
	// DefaultRetention is how long an id is kept: more than the 28 h
	// Svix retries for, with room for a receiver down a weekend.
	DefaultRetention = 72 * time.Hour
	minRetention     = time.Hour
	maxRetention     = 90 * 24 * time.Hour

	ledgerPrefix = "ids-"
	ledgerExt    = ".log"
	ledgerHour   = "20060102T15"
)

// Ledger is the record of the webhook-ids a receiver took, in a directory
// of its own. It is safe for concurrent use; one receiver process at a
// time writes a directory.
type Ledger struct {
	dir       string
	retention time.Duration
	now       func() time.Time

	mu     sync.Mutex
	ids    map[string]*taken
	f      *os.File
	hour   time.Time // of f
	pruned time.Time // the hour last pruned
}

// taken is what the ledger knows of an id.
type taken struct {
	first  time.Time // the webhook-timestamp of its first attempt
	landed bool
	hour   time.Time // of the file its first record is in
}

// OpenLedger opens the ledger in dir, creating it if needed, keeping ids
// for retention (1h to 90 days) by the clock now (nil: time.Now). It
// reads the files within the retention and removes the older ones.
func OpenLedger(dir string, retention time.Duration, now func() time.Time) (*Ledger, error) {
	if err := CheckRetention(retention); err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("webhook: the ledger of ids: %w", err)
	}
	l := &Ledger{dir: dir, retention: retention, now: now, ids: map[string]*taken{}}
	files, err := l.files()
	if err != nil {
		return nil, err
	}
	cutoff := l.cutoff(now())
	for _, f := range files {
		if !f.hour.Before(cutoff) {
			if err := l.read(f); err != nil {
				return nil, err
			}
		}
	}
	return l, l.prune(now())
}

// CheckRetention says, as a *setting.Error naming the field Retention,
// when d is no retention of a Ledger: 1h to 90 days.
func CheckRetention(d time.Duration) error {
	return setting.Duration("Retention", d, minRetention, maxRetention, "1h to 2160h (90 days), such as 72h")
}

// Retention is how long the ledger keeps an id.
func (l *Ledger) Retention() time.Duration { return l.retention }

// ledgerFile is one hour's file.
type ledgerFile struct {
	path string
	hour time.Time
}

// files lists the ledger's files, oldest first.
func (l *Ledger) files() ([]ledgerFile, error) {
	paths, err := filepath.Glob(filepath.Join(l.dir, ledgerPrefix+"*"+ledgerExt))
	if err != nil {
		return nil, err
	}
	var out []ledgerFile
	for _, p := range paths {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), ledgerPrefix), ledgerExt)
		h, err := time.Parse(ledgerHour, name)
		if err != nil {
			continue // not one of ours
		}
		out = append(out, ledgerFile{path: p, hour: h})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].hour.Before(out[j].hour) })
	return out, nil
}

// cutoff is the hour before which a file holds only ids past the
// retention: its last record was written before its hour's end.
func (l *Ledger) cutoff(now time.Time) time.Time {
	return now.Add(-l.retention).UTC().Truncate(time.Hour).Add(-time.Hour)
}

// read takes in the records of one file: "T <id> <unix seconds>" when an
// id was taken, "L <id>" once it landed. A line cut short by a crash is
// one whose write never finished: nothing was landed after it.
func (l *Ledger) read(f ledgerFile) error {
	fh, err := os.Open(f.path)
	if err != nil {
		return fmt.Errorf("webhook: the ledger of ids: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 4096), 4*maxIDBytes)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 3 && fields[0] == "T":
			secs, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				continue
			}
			if l.ids[fields[1]] == nil {
				l.ids[fields[1]] = &taken{first: time.Unix(secs, 0).UTC(), hour: f.hour}
			}
		case len(fields) == 2 && fields[0] == "L":
			if t := l.ids[fields[1]]; t != nil {
				t.landed = true
			}
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("webhook: reading the ledger of ids %s: %w", f.path, err)
	}
	return nil
}

// take records m's id unless the ledger has it, and returns the
// webhook-timestamp of its first attempt and whether it is known landed.
// A new id's record is on disk when take returns.
func (l *Ledger) take(m Message) (first time.Time, landed bool, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if err := l.prune(now); err != nil {
		return time.Time{}, false, err
	}
	if t := l.ids[m.ID]; t != nil {
		return t.first, t.landed, nil
	}
	if err := l.write(now, fmt.Sprintf("T %s %d\n", m.ID, m.Timestamp.Unix()), true); err != nil {
		return time.Time{}, false, err
	}
	l.ids[m.ID] = &taken{first: m.Timestamp, hour: l.hour}
	return m.Timestamp, false, nil
}

// landed records that id's body is on disk. It is not synced on its own:
// lost by a crash, the id's retry is landed again as the same response.
func (l *Ledger) landed(id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.ids[id]
	if t == nil || t.landed {
		return nil
	}
	t.landed = true
	return l.write(l.now(), "L "+id+"\n", false)
}

// write appends a record to the file of now's hour, opening it (and
// closing the last one) when the hour changed.
func (l *Ledger) write(now time.Time, rec string, sync bool) error {
	hour := now.UTC().Truncate(time.Hour)
	if l.f == nil || !hour.Equal(l.hour) {
		if err := l.closeFile(); err != nil {
			return err
		}
		path := filepath.Join(l.dir, ledgerPrefix+hour.Format(ledgerHour)+ledgerExt)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("webhook: the ledger of ids: %w", err)
		}
		l.f, l.hour = f, hour
		if err := syncDir(l.dir); err != nil {
			return fmt.Errorf("webhook: the ledger of ids: %w", err)
		}
	}
	if _, err := l.f.WriteString(rec); err != nil {
		return fmt.Errorf("webhook: writing the ledger of ids: %w", err)
	}
	if sync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("webhook: syncing the ledger of ids: %w", err)
		}
	}
	return nil
}

// prune forgets the ids past the retention and removes their files, at
// most once an hour: by the files' names, reading none of them.
func (l *Ledger) prune(now time.Time) error {
	cutoff := l.cutoff(now)
	if !cutoff.After(l.pruned) {
		return nil
	}
	files, err := l.files()
	if err != nil {
		return err
	}
	for _, f := range files {
		if !f.hour.Before(cutoff) {
			break
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("webhook: pruning the ledger of ids: %w", err)
		}
	}
	for id, t := range l.ids {
		if t.hour.Before(cutoff) {
			delete(l.ids, id)
		}
	}
	l.pruned = cutoff
	return nil
}

// syncDir makes a file created in dir survive a crash of the machine.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

func (l *Ledger) closeFile() error {
	if l.f == nil {
		return nil
	}
	err := errors.Join(l.f.Sync(), l.f.Close())
	l.f = nil
	return err
}

// Close syncs what was recorded and closes the ledger's file.
func (l *Ledger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closeFile()
}
