package extract

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"

	"github.com/etalake/etalake/response"
)

// Reading a body. A body larger than Config.MaxDecode is written as it
// arrives — redacted of the key, and synced — to a file in
// Config.SpillDir instead of held in memory (response.Received.File, Body
// nil); the consumer of the call's Responses moves it away to keep it
// (the landing journal does), and the client removes what is left.
//
// A body is read whole into memory when it is small enough to decode: its
// Content-Length says so, or, its length unknown (chunked, or
// decompressed by the transport), it ends within min(spillAfter,
// MaxDecode) bytes. Otherwise, when the client has a Config.SpillDir, it
// is streamed to a file there a chunk at a time: redacted (redactWriter), hashed and checked for being whole
// JSON (wholeness) on its way, so that a body of hundreds of megabytes
// costs this process a few megabytes, not several times its size. A
// body of unknown length that turns out no larger than MaxDecode is read
// back from its file, redacted already, and goes on as one read whole.
const (
	spillAfter = 8 << 20
	// maxSpill bounds the body streamed to a file: a larger one is
	// refused, not landed (an answer of gigabytes is a stream without
	// end, and would fill the disk).
	maxSpill = 2 << 30
	// spillChunk is the size of a read while streaming.
	spillChunk = 256 << 10
)

// body is a response's body as read.
type body struct {
	data []byte             // nil when the body is in file
	file *response.BodyFile // set when the body was kept in a file
	// redacted is true when data is redacted already (read back from a
	// file); else send redacts it.
	redacted bool
	n        int64  // bytes received
	limit    int64  // the most bytes that may be received
	broken   string // a body in a file that is not whole JSON (wholeness)
}

// remove deletes b's file, if any.
func (b *body) remove() {
	if b != nil && b.file != nil {
		_ = os.Remove(b.file.Path)
	}
}

// readBody reads resp's body (see above). With a read error the body
// comes back with what arrived, beside the error.
func (c *Client) readBody(resp *http.Response) (*body, error) {
	whole := max(maxRead, c.cfg.MaxDecode)
	if c.cfg.SpillDir == "" || c.cfg.MaxDecode <= 0 || (resp.ContentLength >= 0 && resp.ContentLength <= c.cfg.MaxDecode) {
		data, err := io.ReadAll(io.LimitReader(resp.Body, whole+1))
		return &body{data: data, n: int64(len(data)), limit: whole}, err
	}
	var head [][]byte
	if resp.ContentLength < 0 {
		hold := min(spillAfter, c.cfg.MaxDecode)
		var n int64
		var err error
		head, n, err = readChunks(resp.Body, hold+1)
		if n <= hold {
			return &body{data: bytes.Join(head, nil), n: n, limit: whole}, err
		}
	}
	b, err := c.spill(head, resp.Body)
	if b == nil || b.n > b.limit || b.file.Size > c.cfg.MaxDecode {
		return b, err
	}
	// Small enough after all: held whole, as if read so.
	data, rerr := os.ReadFile(b.file.Path)
	b.remove()
	if rerr != nil {
		return nil, errors.Join(err, rerr)
	}
	b.data, b.file, b.redacted, b.broken = data, nil, true, ""
	return b, err
}

// readChunks reads r until its end or limit bytes, in chunks of 32 KiB
// growing to 1 MiB: unlike a slice that grows as it is read (io.ReadAll),
// it leaves no garbage of several times the size read behind.
func readChunks(r io.Reader, limit int64) (chunks [][]byte, n int64, err error) {
	size := 32 << 10
	for n < limit {
		buf := make([]byte, min(int64(size), limit-n))
		k := 0
		for k < len(buf) && err == nil {
			var m int
			m, err = r.Read(buf[k:])
			k += m
		}
		if k > 0 {
			chunks = append(chunks, buf[:k])
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			return chunks, n, nil
		}
		if err != nil {
			return chunks, n, err
		}
		size = min(2*size, 1<<20)
	}
	return chunks, n, nil
}

// spill streams head, then r, to a new file in the spill directory:
// redacted, hashed, synced. It returns the body with its file, and the
// error that cut the transfer short, if one did; nil and the error when
// the file could not be written (its remains are removed).
func (c *Client) spill(head [][]byte, r io.Reader) (*body, error) {
	f, err := os.CreateTemp(c.cfg.SpillDir, "spill-*.part")
	if err != nil {
		return nil, fmt.Errorf("keeping a body larger than %d bytes: %w", c.cfg.MaxDecode, err)
	}
	s := &spiller{f: f, w: bufio.NewWriterSize(f, spillChunk), sum: sha256.New()}
	s.red = newRedactWriter(c.cfg.Key.red, io.MultiWriter(s.w, s.sum, &s.size))
	b := &body{limit: maxSpill, file: &response.BodyFile{Path: f.Name()}}
	var werr error
	for _, p := range head {
		if werr == nil {
			werr = s.write(p)
		}
	}
	var rerr error
	if werr == nil {
		rerr, werr = s.copy(io.LimitReader(r, maxSpill+1-s.n))
	}
	if werr == nil {
		werr = s.close()
	}
	if werr != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return nil, errors.Join(fmt.Errorf("keeping a body larger than %d bytes in %s: %w", c.cfg.MaxDecode, c.cfg.SpillDir, werr), rerr)
	}
	b.n, b.broken = s.n, s.whole.broken()
	b.file.Size, b.file.SHA256 = int64(s.size), hex.EncodeToString(s.sum.Sum(nil))
	return b, rerr
}

// spiller is the way of a body to its file: the received bytes are
// checked for wholeness, redacted, then written, hashed and counted.
type spiller struct {
	f     *os.File
	w     *bufio.Writer
	sum   hash.Hash
	size  counter
	red   *redactWriter
	whole wholeness
	n     int64 // bytes received
}

func (s *spiller) write(p []byte) error {
	s.n += int64(len(p))
	_, _ = s.whole.Write(p)
	_, err := s.red.Write(p)
	return err
}

// copy streams r through s: it returns the read error that ended r
// early, if any, and the write error that stopped the copy, if any.
func (s *spiller) copy(r io.Reader) (rerr, werr error) {
	buf := make([]byte, spillChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if werr := s.write(buf[:n]); werr != nil {
				return nil, werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return err, nil
		}
	}
}

// close writes what the redactor held back and syncs the file: once it
// returns nil, the body survives a crash.
func (s *spiller) close() error {
	if err := s.red.Close(); err != nil {
		return err
	}
	if err := s.w.Flush(); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	return s.f.Close()
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}
