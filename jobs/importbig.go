package jobs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/wire"
)

// Bodies larger than --max-body in imported files are landed from a file,
// never held whole, as a job's are: a .json file as it is, a line of an
// NDJSON file streamed to a file of the landing directory (trimmed as a
// line held in memory is). Such a body is not decoded, so not identified
// either: it lands under --endpoint and --request when they are given,
// else as unidentified; either way it is dead-lettered as too large.

// bigBody queues the body kept in file path (an imported file, or a
// line streamed to the landing directory) for landing.
func (im *importer) bigBody(ctx context.Context, where, path string, observed time.Time) error {
	im.stats.Bodies++
	r := im.imported(observed)
	r.File = &response.BodyFile{Path: path}
	if id := im.fixed; id != nil {
		r.Product, r.Endpoint, r.Request = id.Product, id.Endpoint, id.Request
		if res, err := resourceOfRequest(id.Endpoint, id.Request); err == nil {
			r.Resource = res.String()
		} else {
			r.Resource = "import:" + where
		}
	} else {
		im.stats.Unidentified++
		im.opt.Log.Warn("import: body larger than --max-body: landed undecoded, so unidentified; import it again with a larger --max-body, or name it with --endpoint and --request",
			"where", where, "max_body", im.sink.maxBody)
		r.Product, r.Endpoint = wire.ProductUnknown, wire.EndpointUnidentified
		r.Resource, r.Request = "import:"+where, "import:"+where
	}
	if err := load.HashBodyFile(r); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	return im.queue(ctx, r)
}

// lines imports the bodies of an NDJSON file, one per line: each held in
// memory when it is no larger than --max-body, else streamed to a file.
func (im *importer) lines(ctx context.Context, path string, fh *os.File, observed time.Time) error {
	r := bufio.NewReaderSize(fh, 1<<20)
	for line := 1; ; line++ {
		body, spilled, err := im.readLine(r)
		body = bytes.TrimSpace(extract.TrimBOM(body)) // a file saved with a byte order mark (RFC 8259 §8.1), or one per line of files put together
		where := fmt.Sprintf("%s:%d", path, line)
		switch {
		case spilled != "":
			im.spilled = append(im.spilled, spilled)
			if berr := im.bigBody(ctx, where, spilled, observed); berr != nil {
				return berr
			}
		case len(body) > 0:
			if berr := im.body(ctx, where, body, observed); berr != nil {
				return berr
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if err != nil {
			return nil
		}
	}
}

// readLine reads the next line of r, trimmed of the white space around
// it: in memory when it is no larger than --max-body; else streamed, as
// it is read, to a new file of the landing directory, which spilled
// names ("" when the line was empty). err is io.EOF at the end of r.
func (im *importer) readLine(r *bufio.Reader) (body []byte, spilled string, err error) {
	var line []byte
	for {
		chunk, rerr := r.ReadSlice('\n')
		line = append(line, chunk...)
		if !errors.Is(rerr, bufio.ErrBufferFull) {
			return bytes.TrimSpace(line), "", rerr
		}
		if int64(len(line)) > im.sink.maxBody {
			break
		}
	}
	f, err := os.CreateTemp(im.wh.SpillDir(), "import-*.part")
	if err != nil {
		return nil, "", err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	tw := &trimWriter{w: bw}
	_, _ = tw.Write(line)
	for {
		chunk, rerr := r.ReadSlice('\n')
		_, _ = tw.Write(chunk)
		if !errors.Is(rerr, bufio.ErrBufferFull) {
			err = rerr
			break
		}
	}
	werr := errors.Join(tw.Close(), bw.Flush(), f.Close())
	if werr == nil && tw.n == 0 {
		werr = os.Remove(f.Name()) // only white space: no body
		return nil, "", errors.Join(werr, err)
	}
	if werr != nil {
		_ = os.Remove(f.Name())
		return nil, "", werr
	}
	return nil, f.Name(), err
}

// removeSpilled removes the files of the lines landed from them.
func (im *importer) removeSpilled() {
	for _, p := range im.spilled {
		_ = os.Remove(p)
	}
	im.spilled = im.spilled[:0]
}

// trimWriter writes what bytes.TrimSpace makes of all that is written to
// it (FuzzTrimWriter proves it), a chunk at a time: the white space
// before the first other character is dropped, and a run of white space
// (and the bytes of a character not complete yet) held back until a
// character other than white space follows it, or dropped at Close.
type trimWriter struct {
	w       io.Writer
	started bool   // a character other than white space was written
	held    []byte // white space, or an incomplete character, at the end
	n       int64  // bytes written to w
	err     error
}

func (t *trimWriter) Write(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	t.held = append(t.held, p...)
	t.err = t.flush(false)
	return len(p), t.err
}

// Close drops the white space at the end; bytes of an incomplete
// character there are not white space, and are written.
func (t *trimWriter) Close() error {
	if t.err != nil {
		return t.err
	}
	t.err = t.flush(true)
	return t.err
}

// flush writes the held bytes up to the end of their last character that
// is not white space, and keeps the rest.
func (t *trimWriter) flush(final bool) error {
	b := t.held
	start, end := 0, 0 // what to write: b[start:end]
	if !t.started {
		start = -1
	}
	i := 0
	for i < len(b) {
		if !final && !utf8.FullRune(b[i:]) {
			break
		}
		r, size := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			if start < 0 {
				start = i
			}
			end = i + size
		}
		i += size
	}
	if start < 0 { // nothing but white space yet: drop it
		t.held = append(t.held[:0], b[i:]...)
		return nil
	}
	t.started = true
	if end > start {
		if _, err := t.w.Write(b[start:end]); err != nil {
			return err
		}
		t.n += int64(end - start)
	}
	t.held = append(t.held[:0], b[max(end, start):]...)
	return nil
}
