package extract

import (
	"bytes"
	"encoding/base64"
	"slices"
	"unicode/utf16"
	"unicode/utf8"
)

// redactor finds the API key in text in every form a server may echo it:
// as sent; JSON-escaped, any of its characters written \uXXXX (either
// case of hex, surrogate pairs beyond the BMP), and "/", '"' or a
// backslash behind a backslash (PHP's json_encode writes "\/");
// percent-encoded, any of its bytes written %XX; and base64 (standard and
// URL alphabets, padded or not) at any of the three byte offsets inside a
// longer encoded text (an echoed "Authorization: Basic base64(user:key)"),
// each base64 character again in any of those spellings.
//
// Each form is a target string whose every character may be spelled
// several ways; match walks a target over the text one spelling at a
// time. A text is scanned once, trying the targets only where one could
// start (first bytes, '\', '%'): a regexp of the same alternatives ran
// at about 1.5 MB/s on bodies full of "\/" (BenchmarkRedact, BENCHMARKS.md).
type redactor struct {
	plain   []byte
	targets []string
	starts  [256]bool // bytes a form may start with
}

func newRedactor(secret string) *redactor {
	if secret == "" {
		return nil
	}
	x := &redactor{plain: []byte(secret), targets: []string{secret}}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		for off := 0; off < 3; off++ {
			frag := base64Fragment(enc, secret, off)
			// A fragment too short would match text that merely looks
			// like it; a key that short is not worth the false alarms.
			if len(frag) >= 8 && !slices.Contains(x.targets, frag) {
				x.targets = append(x.targets, frag)
			}
		}
	}
	x.starts['\\'], x.starts['%'] = true, true
	for _, t := range x.targets {
		x.starts[t[0]] = true
	}
	return x
}

// base64Fragment is the part of the base64 encoding of the key that does
// not depend on what surrounds it when the key starts off bytes after a
// 3-byte boundary: the characters whose 6 bits all come from the key.
func base64Fragment(enc *base64.Encoding, secret string, off int) string {
	s := enc.EncodeToString(append(make([]byte, off), secret...))
	from := (8*off + 5) / 6
	to := (8*off + 8*len(secret)) / 6
	if to <= from {
		return ""
	}
	return s[from:to]
}

// redact replaces every form of the key in b with [REDACTED]. It returns
// b itself when there is none.
func (x *redactor) redact(b []byte) []byte {
	if x == nil {
		return b
	}
	if bytes.Contains(b, x.plain) {
		b = bytes.ReplaceAll(b, x.plain, []byte(redacted))
	}
	var out []byte // nil until a form is found
	last := 0
	for i := 0; i < len(b); i++ {
		if !x.starts[b[i]] {
			continue
		}
		for _, t := range x.targets {
			if n := match(b[i:], t); n > 0 {
				out = append(append(out, b[last:i]...), redacted...)
				i += n - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// match returns the length of the spelling of target t that b starts
// with, 0 when none.
func match(b []byte, t string) int {
	j := 0
	for _, r := range t {
		n := spelled(b[j:], r)
		if n == 0 {
			return 0
		}
		j += n
	}
	return j
}

// spelled returns the length of the spelling of r that b starts with: r
// itself, \uXXXX (a surrogate pair beyond the BMP), a backslash before
// "/", '"' or a backslash, or its UTF-8 bytes as %XX; 0 when none.
func spelled(b []byte, r rune) int {
	var enc [utf8.UTFMax]byte
	n := utf8.EncodeRune(enc[:], r)
	if bytes.HasPrefix(b, enc[:n]) {
		return n
	}
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '\\':
		if len(b) >= 2 && (r == '/' || r == '"' || r == '\\') && b[1] == byte(r) {
			return 2
		}
		units := []uint16{uint16(r)}
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			units = []uint16{uint16(hi), uint16(lo)}
		}
		j := 0
		for _, u := range units {
			if len(b) < j+6 || b[j] != '\\' || (b[j+1] != 'u' && b[j+1] != 'U') {
				return 0
			}
			v, ok := hexValue(b[j+2 : j+6])
			if !ok || v != uint32(u) {
				return 0
			}
			j += 6
		}
		return j
	case '%':
		j := 0
		for _, c := range enc[:n] {
			if len(b) < j+3 || b[j] != '%' {
				return 0
			}
			v, ok := hexValue(b[j+1 : j+3])
			if !ok || v != uint32(c) {
				return 0
			}
			j += 3
		}
		return j
	}
	return 0
}

// hexValue reads hex digits of either case.
func hexValue(h []byte) (uint32, bool) {
	var v uint32
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// redactedError is an error whose text held a form of the key: Error
// gives the text redacted, and errors.Is and As still see the error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// scrub returns err with every form of the key redacted from its text.
func (k Key) scrub(err error) error {
	if err == nil || k.red == nil {
		return err
	}
	msg := err.Error()
	if clean := k.RedactString(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}
