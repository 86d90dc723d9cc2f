package load

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/etalake/etalake/response"
)

// The body store: a body larger than a job decodes (--max-body) is never
// held whole in memory on its way to the warehouse. The client streams it
// to a file (response.BodyFile), the journal takes that file in beside its
// record (journal.go), and Land streams it, zstd-compressed, to
// <dir>/bodies/<body_sha256>.zst and records that name in
// raw_responses.body_file, body NULL. Files are named by their content:
// the same body landed twice is one file, written once, and a file under
// its final name is whole (written under a temp name, synced, renamed).
const bodiesDir = "bodies"

// SpillDir is the directory a job's client writes the bodies it keeps in
// files to (extract.Config.SpillDir): the landing journal's, on the
// warehouse's disk, where the journal takes them in with a rename.
func (w *Warehouse) SpillDir() string { return filepath.Join(w.dir, workDir, journalDir) }

// HashBodyFile reads the body r.File names, checks it against its size
// and SHA-256 when they are set (else sets them), and sets r.File.ID to
// the response's id: what ResponseID gives a response holding the same
// bytes in Body.
func HashBodyFile(r *response.Landed) error {
	if r.File == nil {
		return invalidf("raw response %s %s: no body file", r.Endpoint, r.Request)
	}
	if r.File.Compressed {
		return invalidf("raw response %s %s: body file %s is a landed copy", r.Endpoint, r.Request, r.File.Path)
	}
	f, err := os.Open(r.File.Path)
	if err != nil {
		return fmt.Errorf("load: body file: %w", err)
	}
	defer f.Close()
	measure := r.File.Size == 0 && r.File.SHA256 == ""
	if measure {
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("load: body file: %w", err)
		}
		r.File.Size = st.Size() // the id hashes the length first
	}
	h := newBodyHash(r)
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("load: body file %s: %w", r.File.Path, err)
	}
	if measure {
		r.File.SHA256 = hex.EncodeToString(h.sum.Sum(nil))
	}
	id, err := h.id(r.File)
	if err != nil {
		return err
	}
	r.File.ID = id
	return nil
}

// bodyHash hashes a body as it streams by: its SHA-256, its size, and the
// response id of r over it (ResponseID, which needs the body's length
// before its bytes: the file's expected size).
type bodyHash struct {
	r       *response.Landed
	sum, rh hash.Hash
	n       int64
}

func newBodyHash(r *response.Landed) *bodyHash {
	h := &bodyHash{r: r, sum: sha256.New(), rh: sha256.New()}
	responseHashHead(h.rh, r)
	idField(h.rh, nil, r.File.Size) // the length; the bytes follow
	return h
}

func (h *bodyHash) Write(p []byte) (int, error) {
	h.sum.Write(p)
	h.rh.Write(p)
	h.n += int64(len(p))
	return len(p), nil
}

// id checks what streamed by against f and returns the response's id.
func (h *bodyHash) id(f *response.BodyFile) (string, error) {
	if h.n != f.Size || hex.EncodeToString(h.sum.Sum(nil)) != f.SHA256 {
		return "", fmt.Errorf("load: body file %s: %d bytes that do not match the %d bytes and SHA-256 recorded for it", f.Path, h.n, f.Size)
	}
	responseHashTail(h.rh, h.r)
	return hex.EncodeToString(h.rh.Sum(nil))[:32], nil
}

// storeBody writes the body r.File names to the body store, compressed,
// unless a file of its content is there already, checking on the way that
// it is the body recorded (size, SHA-256, response id); it returns the
// store's name for it, relative to the warehouse directory.
func (w *Warehouse) storeBody(r *response.Landed) (string, error) {
	f := r.File
	if f.Compressed {
		return "", invalidf("raw response %s %s: body file %s is a landed copy, not a body to land", r.Endpoint, r.Request, f.Path)
	}
	if len(f.SHA256) != sha256.Size*2 || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
		return "", invalidf("raw response %s %s: body file SHA-256 %q: want 64 hex digits", r.Endpoint, r.Request, f.SHA256)
	}
	name := filepath.Join(bodiesDir, f.SHA256+".zst")
	final := filepath.Join(w.dir, name)
	src, err := os.Open(f.Path)
	if err != nil {
		return "", fmt.Errorf("load: body file: %w", err)
	}
	defer src.Close()
	h := newBodyHash(r)
	_, statErr := os.Stat(final)
	if statErr == nil { // stored before: check the source all the same
		if _, err := io.Copy(h, src); err != nil {
			return "", fmt.Errorf("load: body file %s: %w", f.Path, err)
		}
		return name, w.checkStored(h, f)
	}
	dir := filepath.Join(w.dir, bodiesDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("load: body store: %w", err)
	}
	tmp, err := os.CreateTemp(dir, tempPrefix+"*.zst")
	if err != nil {
		return "", fmt.Errorf("load: body store: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	// One goroutine and a window of 1 MiB: 2 MiB allocated whatever the
	// body, where the default window (8 MiB) allocates 17; JSON repeats
	// itself within a megabyte.
	enc, err := zstd.NewWriter(tmp, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(io.MultiWriter(enc, h), src); err != nil {
		_ = enc.Close()
		return "", fmt.Errorf("load: storing body file %s: %w", f.Path, err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("load: storing body file %s: %w", f.Path, err)
	}
	if err := w.checkStored(h, f); err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", fmt.Errorf("load: body store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("load: body store: %w", err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return "", fmt.Errorf("load: body store: %w", err)
	}
	done = true
	return name, syncDir(dir)
}

// checkStored checks the body streamed through h against f, its id
// included.
func (w *Warehouse) checkStored(h *bodyHash, f *response.BodyFile) error {
	id, err := h.id(f)
	if err != nil {
		return err
	}
	if id != f.ID {
		return fmt.Errorf("load: body file %s: the response's id is %s, not the %s recorded with it", f.Path, id, f.ID)
	}
	return nil
}

// ReadBody returns the body of r whole: Body, or the content of the file
// it is kept in, checked against its size and SHA-256. Call it for a body
// that may be held (a replay with a --max-body that takes it).
func (w *Warehouse) ReadBody(r *response.Landed) ([]byte, error) {
	if r.File == nil {
		return r.Body, nil
	}
	f, err := os.Open(r.File.Path)
	if err != nil {
		return nil, fmt.Errorf("load: body of %s: %w", r.File.ID, err)
	}
	defer f.Close()
	var src io.Reader = f
	if r.File.Compressed {
		dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		defer dec.Close()
		src = dec
	}
	body := make([]byte, r.File.Size)
	_, err = io.ReadFull(src, body)
	if err == nil {
		// Nothing after the recorded size.
		var one [1]byte
		if n, _ := src.Read(one[:]); n > 0 {
			err = errors.New("longer than recorded")
		}
	}
	sum := sha256.Sum256(body)
	if err != nil || hex.EncodeToString(sum[:]) != r.File.SHA256 {
		return nil, fmt.Errorf("load: body of %s in %s does not match its stored size and SHA-256 (%v)", r.File.ID, r.File.Path, err)
	}
	return body, nil
}

// sweepBodies removes the temp files a crash left in the body store.
func sweepBodies(dir string) error {
	entries, err := os.ReadDir(filepath.Join(dir, bodiesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			if err := removeIfExists(filepath.Join(dir, bodiesDir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
