package extract

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/transform"
)

// Decoding a body into the JSON text it carries, before it is read,
// judged and landed: its content codings undone (RFC 9110 §8.4), its
// charset transcoded to UTF-8, a leading byte order mark dropped. What
// is landed is that text: UTF-8 JSON, whatever the provider's coding.

// bom is the UTF-8 byte order mark. RFC 8259 §8.1: "implementations that
// parse JSON texts MAY ignore the presence of a byte order mark rather
// than treating it as an error." It is dropped, not landed.
var bom = []byte{0xEF, 0xBB, 0xBF}

// TrimBOM drops a leading UTF-8 byte order mark from a JSON text (RFC
// 8259 §8.1 lets a parser ignore it).
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, bom) }

// decodeError is a body whose content coding did not decode: it
// arrived, and is not the answer (Received.Broken).
type decodeError struct {
	coding string
	err    error
}

func (e *decodeError) Error() string {
	return fmt.Sprintf("its %s content coding does not decode: %v", e.coding, e.err)
}

func (e *decodeError) Unwrap() error { return e.err }

// decodeBody replaces resp.Body with the JSON text it carries (see
// above). refused, when not "", says why the client cannot decode it (a
// content coding or a charset it does not know); resp.Body is then left
// as it came. The Content-Length is cleared when the decoded body may
// have another length.
func decodeBody(resp *http.Response) (refused string) {
	r := io.Reader(resp.Body)
	changed := false
	codings := headerList(resp.Header.Values("Content-Encoding"))
	// Codings are listed in the order they were applied: undone last first.
	for _, coding := range slices.Backward(codings) {
		switch coding {
		case "identity":
			continue
		case "gzip", "x-gzip":
			r = lazyDecoder(coding, r, func(src io.Reader) (io.Reader, error) { return gzip.NewReader(src) })
		case "deflate":
			r = lazyDecoder(coding, r, inflate)
		default:
			return fmt.Sprintf("the body's Content-Encoding %q is not one the client decodes (gzip, deflate)", coding)
		}
		changed = true
	}
	charset := ""
	if _, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
		charset = strings.ToLower(strings.TrimSpace(params["charset"]))
	}
	switch charset {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
		// UTF-8, or its ASCII subset: as it is.
	default:
		enc, err := ianaindex.IANA.Encoding(charset)
		if err != nil || enc == nil {
			return fmt.Sprintf("the body's charset %q is not one the client can read (want UTF-8 JSON, RFC 8259 §8.1)", charset)
		}
		r = transform.NewReader(r, enc.NewDecoder())
		changed = true
	}
	if changed {
		resp.ContentLength = -1
	}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{&bomSkipper{r: bufio.NewReaderSize(r, 512)}, resp.Body}
	return ""
}

// headerList splits the comma-separated values of a header, lower-cased.
func headerList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			if item = strings.ToLower(strings.TrimSpace(item)); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// inflate decodes "deflate", which RFC 9110 §8.4.1.2 defines as "a "zlib"
// data format [RFC1950] containing a "deflate" compressed data stream
// [RFC1951]"; some servers send the raw stream without the zlib wrapping,
// which is read too (its first two bytes are no zlib header).
func inflate(src io.Reader) (io.Reader, error) {
	br := bufio.NewReader(src)
	head, err := br.Peek(2)
	if err != nil {
		return nil, err
	}
	if head[0]&0x0F == 8 && (uint(head[0])<<8|uint(head[1]))%31 == 0 {
		return zlib.NewReader(br)
	}
	return flate.NewReader(br), nil
}

// lazyDecoder opens a decoder over src at the first read, so that
// nothing is read from the connection before the body is; an error,
// then or later, is a *decodeError naming the coding.
func lazyDecoder(coding string, src io.Reader, open func(io.Reader) (io.Reader, error)) io.Reader {
	return &lazy{coding: coding, src: src, open: open}
}

type lazy struct {
	coding string
	src    io.Reader
	open   func(io.Reader) (io.Reader, error)
	r      io.Reader
}

func (l *lazy) Read(p []byte) (int, error) {
	if l.r == nil {
		r, err := l.open(l.src)
		if err != nil {
			return 0, l.wrap(err)
		}
		l.r = r
	}
	n, err := l.r.Read(p)
	return n, l.wrap(err)
}

func (l *lazy) wrap(err error) error {
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The end, or cut short: as broken in transfer as a body short
		// of its length.
		return err
	}
	return &decodeError{coding: l.coding, err: err}
}

// bomSkipper drops a leading UTF-8 byte order mark.
type bomSkipper struct {
	r       *bufio.Reader
	checked bool
}

func (s *bomSkipper) Read(p []byte) (int, error) {
	if !s.checked {
		s.checked = true
		if head, _ := s.r.Peek(len(bom)); bytes.Equal(head, bom) {
			_, _ = s.r.Discard(len(bom))
		}
	}
	return s.r.Read(p)
}
