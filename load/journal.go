package load

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gofrs/flock"

	"github.com/etalake/etalake/response"
)

// The landing journal: while a job fetches, every response it receives is
// appended to a file of its own under <dir>/.work/landing and synced to
// disk before anything else happens to it — before it is decoded, and
// whatever the writer is doing (loading a batch can take seconds). The
// writer then lands it in raw_responses as before; when the job ends with
// every response landed, the journal is removed. A job that dies leaves
// its journal, and the next Open lands what it holds, so that a kill at any
// moment loses no response that had arrived and no later job buys it
// again.
const (
	journalDir = "landing"
	journalExt = ".journal"
	// damagedExt names a journal set aside because a record inside it
	// (not at its end) does not check: it is kept for a person to look at.
	damagedExt = ".damaged"
)

// journalFrame is the size of a record's frame: the payload's length and
// its CRC-32C, both little-endian uint32. The payload is the response as
// JSON (its body base64).
const journalFrame = 8

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// drainBytes bounds the bodies landed in one transaction when a journal is
// drained.
const drainBytes = 64 << 20

// Journal is the landing journal of one job. It is safe for concurrent
// use: appends are serialised, and each one is synced before it returns.
// Concurrent appends share their syncs (group commit): an append that
// waited for another's sync finds itself covered by it, or syncs what was
// written meanwhile for everyone waiting, so that a job of many workers
// pays a sync per moment, not per response.
type Journal struct {
	mu      sync.Mutex // the file and written
	f       *os.File
	path    string
	written int64 // records written

	syncMu sync.Mutex // one sync at a time; synced
	synced int64      // records known on disk

	files atomic.Int64 // body files taken in (take)
}

// bodyExt ends the name of a body file a journal took in:
// <run>.journal.<n>.body. spillExt ends that of a body file not taken in
// by a journal yet (the client's spill-*.part, an import's): Open sweeps
// those a crash left, as it does body files whose journal is gone.
const (
	bodyExt  = ".body"
	spillExt = ".part"
)

// OpenJournal creates the journal of the job named name (its run id).
func (w *Warehouse) OpenJournal(name string) (*Journal, error) {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil, invalidf("journal name %q: want a run id", name)
	}
	dir := filepath.Join(w.dir, workDir, journalDir)
	path := filepath.Join(dir, name+journalExt)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("load: opening the landing journal: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return nil, errors.Join(fmt.Errorf("load: opening the landing journal: %w", err), f.Close())
	}
	return &Journal{f: f, path: path}, nil
}

// Append writes r to the journal and syncs it to disk. When it returns
// nil, r survives a crash of the process or of the machine.
//
// A body kept in a file (r.File: one larger than a job decodes, which the
// client streamed to the landing directory, synced) is taken into the
// journal's keeping first: hashed for its id (HashBodyFile) unless it was,
// and renamed to a name of the journal's (<journal>.<n>.body), which
// r.File.Path then names; the record names it. It goes with the journal:
// drained with it, and removed with it.
func (j *Journal) Append(r *response.Landed) error {
	if r.File != nil {
		if err := j.take(r); err != nil {
			return err
		}
	}
	if err := check(r); err != nil {
		return err
	}
	logged := *r
	if r.File != nil {
		f := *r.File
		f.Path = filepath.Base(f.Path) // the warehouse may move
		logged.File = &f
	}
	payload, err := json.Marshal(logged)
	if err != nil {
		return fmt.Errorf("load: journal: %w", err)
	}
	if len(payload) > 1<<32-1 {
		return invalidf("raw response %s %s: %d bytes, too large for the journal", r.Endpoint, r.Request, len(payload))
	}
	rec := make([]byte, journalFrame+len(payload))
	binary.LittleEndian.PutUint32(rec[0:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(rec[4:], crc32.Checksum(payload, crcTable))
	copy(rec[journalFrame:], payload)
	j.mu.Lock()
	if j.f == nil {
		j.mu.Unlock()
		return errors.New("load: journal is closed")
	}
	if _, err := j.f.Write(rec); err != nil {
		j.mu.Unlock()
		return fmt.Errorf("load: journal %s: %w", j.path, err)
	}
	j.written++
	mine, f := j.written, j.f
	j.mu.Unlock()
	return j.syncThrough(mine, f)
}

// take hashes the body file of r unless it was, and moves it to a name of
// the journal's, in its directory.
func (j *Journal) take(r *response.Landed) error {
	if r.File.Compressed {
		return invalidf("raw response %s %s: body file %s is a landed copy", r.Endpoint, r.Request, r.File.Path)
	}
	if r.File.ID == "" {
		if err := HashBodyFile(r); err != nil {
			return err
		}
	}
	path := fmt.Sprintf("%s.%d%s", j.path, j.files.Add(1), bodyExt)
	if err := os.Rename(r.File.Path, path); err != nil {
		return fmt.Errorf("load: journal %s: taking in a body file: %w", j.path, err)
	}
	r.File.Path = path
	return syncDir(filepath.Dir(path))
}

// syncThrough returns once record n (counted from 1) is on disk, syncing
// f unless a sync since n was written covered it.
func (j *Journal) syncThrough(n int64, f *os.File) error {
	j.syncMu.Lock()
	defer j.syncMu.Unlock()
	if j.synced >= n {
		return nil
	}
	j.mu.Lock()
	through := j.written
	j.mu.Unlock()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("load: journal %s: %w", j.path, err)
	}
	j.synced = through
	return nil
}

// Close closes the journal and keeps it: the next Open lands what it
// holds. Call it when not every response appended is known to be landed.
func (j *Journal) Close() error {
	j.syncMu.Lock() // no sync in flight on the file
	defer j.syncMu.Unlock()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Remove closes the journal and deletes it, and the body files it took
// in: call it once every response appended is landed in raw_responses.
func (j *Journal) Remove() error {
	if err := j.Close(); err != nil {
		return err
	}
	return removeJournal(j.path)
}

// removeJournal deletes the journal at path and its body files.
func removeJournal(path string) error {
	err := removeIfExists(path)
	dir, prefix := filepath.Dir(path), filepath.Base(path)+"."
	entries, rerr := os.ReadDir(dir)
	err = errors.Join(err, rerr)
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, prefix) && strings.HasSuffix(name, bodyExt) {
			err = errors.Join(err, removeIfExists(filepath.Join(dir, name)))
		}
	}
	return errors.Join(err, syncDir(dir))
}

// Recovery is what Open landed from the journals of jobs that died, and
// from the journals of webhook receivers (pushjournal.go).
type Recovery struct {
	Journals  int // journals of jobs that died, drained
	Responses int // responses in them
	Landed    int // of them, not landed before
	// Damaged lists journals set aside (renamed *.damaged) because a
	// record inside them does not check; what preceded it was landed.
	Damaged []string
	// Pushes counts the receivers' journals drained, PushedBodies the
	// bodies in them and PushedLanded those not landed before (a
	// journal drained again after a writer died draining it lands
	// nothing twice).
	Pushes, PushedBodies, PushedLanded int
	// Live counts the receivers' journals left to a later writer: a
	// live receiver is writing them.
	Live int
}

// Recovered is what Open landed from the journals of jobs that died and
// of webhook receivers.
func (w *Warehouse) Recovered() Recovery { return w.recovered }

// drainJournals lands what the journals left by dead jobs hold, then
// removes them. A record cut short at the end of a journal is one whose
// append never returned (the job died writing it): it was never
// acknowledged, and the job that asked for it died with it.
func (w *Warehouse) drainJournals(ctx context.Context) error {
	dir := filepath.Join(w.dir, workDir, journalDir)
	paths, err := filepath.Glob(filepath.Join(dir, "*"+journalExt))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	for _, p := range paths {
		// A journal someone holds a lock on is a live receiver's: a
		// later writer takes it once it is rotated.
		lk := flock.New(p)
		if ok, err := lk.TryLock(); err != nil {
			return fmt.Errorf("load: locking the journal %s: %w", p, err)
		} else if !ok {
			w.recovered.Live++
			continue
		}
		err := w.drainLocked(ctx, p)
		if uerr := lk.Unlock(); err == nil {
			err = uerr
		}
		if err != nil {
			return err
		}
	}
	if err := sweepLanding(dir); err != nil {
		return err
	}
	return syncDir(dir)
}

// drainLocked lands the journal at path, which the caller has locked,
// then removes it, or sets it aside when it is damaged.
func (w *Warehouse) drainLocked(ctx context.Context, p string) error {
	n, landed, damaged, err := w.drainJournal(ctx, p)
	if err != nil {
		return fmt.Errorf("load: landing the journal %s: %w", p, err)
	}
	if isPushJournal(p) {
		w.recovered.Pushes++
		w.recovered.PushedBodies += n
		w.recovered.PushedLanded += landed
	} else {
		w.recovered.Journals++
		w.recovered.Responses += n
		w.recovered.Landed += landed
	}
	if damaged {
		w.recovered.Damaged = append(w.recovered.Damaged, p+damagedExt)
		return os.Rename(p, p+damagedExt)
	}
	return removeJournal(p)
}

// sweepLanding removes from the landing directory, once every journal
// is drained, the body files a crash left behind: those never taken in by
// a journal (*.part) and those of a journal that is gone (its append
// never finished). A damaged journal's are kept with it.
func sweepLanding(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, spillExt):
		case strings.HasSuffix(name, bodyExt):
			// <run>.journal.<n>.body
			stem := strings.TrimSuffix(name, bodyExt)
			if i := strings.LastIndexByte(stem, '.'); i > 0 {
				stem = stem[:i]
			}
			if exists(filepath.Join(dir, stem)) || exists(filepath.Join(dir, stem+damagedExt)) {
				continue
			}
		default:
			continue
		}
		if err := removeIfExists(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// drainJournal lands the records of one journal, in transactions of about
// drainBytes, and says how many it read, how many were new and whether a
// record before its end was damaged.
func (w *Warehouse) drainJournal(ctx context.Context, path string) (n, landed int, damaged bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, false, err
	}
	left := fi.Size()
	br := bufio.NewReader(f)
	var batch []*response.Landed
	size := 0
	flush := func() error {
		k, err := w.Land(ctx, batch...)
		landed += k
		batch, size = batch[:0], 0
		return err
	}
	for {
		r, err := readJournalRecord(br, &left, filepath.Dir(path))
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break // the end, or a record cut short by the job's death
		}
		if err != nil {
			damaged = true
			break
		}
		n++
		batch = append(batch, r)
		if size += len(r.Body); size >= drainBytes {
			if err := flush(); err != nil {
				return n, landed, damaged, err
			}
		}
	}
	return n, landed, damaged, flush()
}

// errJournalRecord is a record that does not check.
var errJournalRecord = errors.New("journal record does not check")

// readJournalRecord reads one record of the *left bytes left in the
// journal in dir: io.EOF at the end, io.ErrUnexpectedEOF for a record cut
// short, errJournalRecord for one that is whole but wrong, or whose body
// file is not there whole.
func readJournalRecord(r io.Reader, left *int64, dir string) (*response.Landed, error) {
	var frame [journalFrame]byte
	if _, err := io.ReadFull(r, frame[:]); err != nil {
		return nil, err
	}
	*left -= journalFrame
	size := int64(binary.LittleEndian.Uint32(frame[0:]))
	if size > *left {
		return nil, io.ErrUnexpectedEOF
	}
	*left -= size
	payload := make([]byte, size)
	if _, err := io.ReadFull(r, payload); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(frame[4:]) {
		return nil, errJournalRecord
	}
	raw := new(response.Landed)
	if err := json.Unmarshal(payload, raw); err != nil || check(raw) != nil {
		return nil, errJournalRecord
	}
	if f := raw.File; f != nil {
		// Synced and taken in before the record was written: a file
		// missing or of another size is damage, not a death mid-append.
		if f.Path != filepath.Base(f.Path) || f.Path == "." || f.Path == ".." || f.Compressed {
			return nil, errJournalRecord
		}
		f.Path = filepath.Join(dir, f.Path)
		if st, err := os.Stat(f.Path); err != nil || st.Size() != f.Size {
			return nil, errJournalRecord
		}
	}
	return raw, nil
}
