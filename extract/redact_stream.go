package extract

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// redactWriter is the redactor for a body too large to hold: it writes to
// w what redact makes of everything written to it, chunk by chunk, the
// same bytes as redact of the whole text (FuzzRedactStream proves it).
// It runs redact's two passes as two stages, each holding back only
// what a form of the key that is not complete yet could still become:
// the plain key less one byte, then the longest spelling of a form
// (spellMax bytes). Close flushes what is held back.
type redactWriter struct {
	x *redactor
	w io.Writer
	// plain holds the first pass's text not yet searched for the plain
	// key; scan the second pass's text not yet scanned for the forms.
	plain, scan []byte
	err         error
}

// spellMax is the most bytes a spelling of one character of a form may
// take (match, spelled): a character outside the BMP as a surrogate pair
// \uXXXX\uXXXX, or four UTF-8 bytes as %XX each.
const spellMax = 12

func newRedactWriter(x *redactor, w io.Writer) *redactWriter {
	return &redactWriter{x: x, w: w}
}

// reach is how many bytes from a position match may read there: the
// longest spelling of the longest form.
func (x *redactor) reach() int {
	n := 0
	for _, t := range x.targets {
		n = max(n, spellMax*utf8.RuneCountInString(t))
	}
	return n
}

// Write redacts p with what was held back, writes what no later byte can
// change, and holds back the rest.
func (rw *redactWriter) Write(p []byte) (int, error) {
	if rw.err != nil {
		return 0, rw.err
	}
	if rw.x == nil {
		if _, err := rw.w.Write(p); err != nil {
			rw.err = err
			return 0, err
		}
		return len(p), nil
	}
	rw.plain = append(rw.plain, p...)
	rw.replacePlain(false)
	if err := rw.scanForms(false); err != nil {
		rw.err = err
		return 0, err
	}
	return len(p), nil
}

// Close writes what was held back: the text has ended.
func (rw *redactWriter) Close() error {
	if rw.err != nil || rw.x == nil {
		return rw.err
	}
	rw.replacePlain(true)
	rw.err = rw.scanForms(true)
	return rw.err
}

// replacePlain is redact's first pass (bytes.ReplaceAll of the plain key)
// over rw.plain, handing its result to the second: every occurrence
// found is replaced; unless at the end, the last len(key)−1 bytes after
// the last one wait, since the key may start there.
func (rw *redactWriter) replacePlain(final bool) {
	b, key := rw.plain, rw.x.plain
	for {
		i := bytes.Index(b, key)
		if i < 0 {
			break
		}
		rw.scan = append(append(rw.scan, b[:i]...), redacted...)
		b = b[i+len(key):]
	}
	keep := 0
	if !final {
		keep = min(len(b), len(key)-1)
	}
	rw.scan = append(rw.scan, b[:len(b)-keep]...)
	rw.plain = append(rw.plain[:0], b[len(b)-keep:]...)
}

// scanForms is redact's second pass over rw.scan: it decides every
// position from which match can see all it may read (reach bytes), or
// every position at the end, writes what it decided and keeps the rest.
func (rw *redactWriter) scanForms(final bool) error {
	b := rw.scan
	limit := len(b)
	if !final {
		limit -= rw.x.reach()
	}
	last, i := 0, 0
	for ; i < limit; i++ {
		if !rw.x.starts[b[i]] {
			continue
		}
		for _, t := range rw.x.targets {
			if n := match(b[i:], t); n > 0 {
				if err := rw.write(b[last:i], []byte(redacted)); err != nil {
					return err
				}
				i += n - 1
				last = i + 1
				break
			}
		}
	}
	// A match may end past limit: what it covered is decided too.
	done := min(max(i, last), len(b))
	err := rw.write(b[last:done])
	rw.scan = append(rw.scan[:0], b[done:]...)
	return err
}

// write writes the non-empty parts to the underlying writer.
func (rw *redactWriter) write(parts ...[]byte) error {
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if _, err := rw.w.Write(p); err != nil {
			return err
		}
	}
	return nil
}
