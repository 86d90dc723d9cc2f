package transform

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// scanner reads JSON tokens from a body for the shipment fast path
// (shipmentdecoder.go). It accepts exactly what encoding/json accepts, or
// gives up: every method returns ok false both on invalid JSON and on input
// it does not handle itself, and the caller then decodes the body with the
// wire decoder, whose answer (a value or an error) stands.
type scanner struct {
	buf []byte
	pos int
}

// ws skips JSON white space.
func (s *scanner) ws() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// next skips white space and returns the next byte, 0 at the end.
func (s *scanner) next() byte {
	if s.pos < len(s.buf) && s.buf[s.pos] > ' ' {
		return s.buf[s.pos] // compact JSON: no white space
	}
	s.ws()
	if s.pos < len(s.buf) {
		return s.buf[s.pos]
	}
	return 0
}

// consume skips white space and the byte c, which must come next.
func (s *scanner) consume(c byte) bool {
	if s.next() != c {
		return false
	}
	s.pos++
	return true
}

// literal consumes the literal word (true, false, null) at pos.
func (s *scanner) literal(word string) bool {
	if len(s.buf)-s.pos < len(word) || string(s.buf[s.pos:s.pos+len(word)]) != word {
		return false
	}
	s.pos += len(word)
	return true
}

// null consumes a null if one comes next.
func (s *scanner) null() bool {
	if s.next() == 'n' {
		return s.literal("null")
	}
	return false
}

// view is s's bytes as a string, without a copy: valid while the body is.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// stringToken scans the string at pos (its opening quote) and returns its
// raw contents (between the quotes) and whether it holds escapes or
// non-ASCII bytes.
func (s *scanner) stringToken() (raw []byte, plain bool, ok bool) {
	if s.pos >= len(s.buf) || s.buf[s.pos] != '"' {
		return nil, false, false
	}
	start := s.pos + 1
	i := start
	plain = true
	b := s.buf
	// Eight bytes at a time while none is a quote, a backslash, a control
	// or a non-ASCII byte.
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		quote, backslash := w^(ones*'"'), w^(ones*'\\')
		special := (quote-ones)&^quote | (backslash-ones)&^backslash | (w - ones*0x20) | w
		if special&highs != 0 {
			break
		}
		i += 8
	}
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return b[start:i], plain, true
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return nil, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					return nil, false, false
				}
				i += 6
			default:
				return nil, false, false
			}
			continue
		case c < 0x20:
			return nil, false, false
		case c >= 0x80:
			plain = false
		}
		i++
	}
	return nil, false, false
}

func isHex4(b []byte) bool {
	for _, c := range b[:4] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// str scans a string value and returns it as encoding/json decodes it:
// a view of the body when it needs no unescaping, else a new string.
func (s *scanner) str() (string, bool) {
	s.next()
	start := s.pos
	raw, plain, ok := s.stringToken()
	if !ok {
		return "", false
	}
	if plain || !hasEscape(raw) && utf8.Valid(raw) {
		return view(raw), true
	}
	var v string
	if json.Unmarshal(s.buf[start:s.pos], &v) != nil {
		return "", false
	}
	return v, true
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// key scans an object key and the colon after it. A key with escapes or
// non-ASCII bytes is not handled (encoding/json matches keys after
// unescaping and Unicode case folding).
func (s *scanner) key() (string, bool) {
	if s.next() != '"' {
		return "", false
	}
	raw, plain, ok := s.stringToken()
	if !ok || !plain || !s.consume(':') {
		return "", false
	}
	return view(raw), true
}

// number scans a JSON number at pos and returns its text and whether it is
// an integer (no fraction, no exponent).
func (s *scanner) number() (raw []byte, integer bool, ok bool) {
	b, i := s.buf, s.pos
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return nil, false, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return nil, false, false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return b[start:i], integer, true
}

// maxSkipDepth bounds the nesting skip follows; deeper input is left to
// encoding/json.
const maxSkipDepth = 256

// skip scans any JSON value at pos without keeping it.
func (s *scanner) skip() bool {
	var stack [maxSkipDepth]byte // '{' or '[' of each open container
	depth := 0
	for {
		// A value.
		switch s.next() {
		case '"':
			if _, _, ok := s.stringToken(); !ok {
				return false
			}
		case '{', '[':
			if depth == maxSkipDepth {
				return false
			}
			open := s.buf[s.pos]
			s.pos++
			stack[depth] = open
			depth++
			if open == '{' {
				if s.next() == '}' {
					s.pos++
					depth--
					break
				}
				if _, ok := s.anyKey(); !ok {
					return false
				}
			} else if s.next() == ']' {
				s.pos++
				depth--
				break
			}
			continue
		case 't':
			if !s.literal("true") {
				return false
			}
		case 'f':
			if !s.literal("false") {
				return false
			}
		case 'n':
			if !s.literal("null") {
				return false
			}
		default:
			if _, _, ok := s.number(); !ok {
				return false
			}
		}
		// After a value: close containers or go on to the next member.
		for {
			if depth == 0 {
				return true
			}
			c := s.next()
			switch {
			case c == ',' && stack[depth-1] == '{':
				s.pos++
				if _, ok := s.anyKey(); !ok {
					return false
				}
			case c == ',':
				s.pos++
			case c == '}' && stack[depth-1] == '{', c == ']' && stack[depth-1] == '[':
				s.pos++
				depth--
				continue
			default:
				return false
			}
			break
		}
	}
}

// anyKey scans a key (any string) and its colon.
func (s *scanner) anyKey() ([]byte, bool) {
	s.next()
	raw, _, ok := s.stringToken()
	if !ok || !s.consume(':') {
		return nil, false
	}
	return raw, true
}

// fieldSet is the members of an object type the fast path decodes, named
// by constants of their own type M (0, 1, … in the order the service writes
// them), so that a member is dispatched by its name and a constant of
// another object's members does not compile in its place.
type fieldSet[M ~int] struct {
	names  []string // names[m] is member m's JSON name
	quoted []string // `"name":`, to match a key and its colon at once
	folded []string // lower case, for foldsTo
}

// newFieldSet builds the field set of the members 0 … count-1, each with
// its JSON name in names. A member without a name, a name of no member, an
// empty or repeated name panics when the package is initialised: the
// mapping is checked once, not trusted.
func newFieldSet[M ~int](count M, names map[M]string) *fieldSet[M] {
	if len(names) != int(count) || count > 64 { // 64: object's seen bits
		panic(fmt.Sprintf("transform: %d member names for %d members", len(names), count))
	}
	fs := &fieldSet[M]{}
	for m := M(0); m < count; m++ {
		n, ok := names[m]
		if !ok || n == "" || slices.Contains(fs.names, n) {
			panic(fmt.Sprintf("transform: member %d has no name or a repeated one (%q)", m, n))
		}
		fs.names = append(fs.names, n)
		fs.quoted = append(fs.quoted, `"`+n+`":`)
		fs.folded = append(fs.folded, asciiLower(n))
	}
	return fs
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// object calls member(m) for each member of the object at s.pos that is
// the field fs.names[m], with s.pos at the member's value; member must
// consume it. Other members are skipped, unless encoding/json would take
// them for a field (case folding): then, as on a repeated field, object
// reports !ok. A null object calls nothing and reports null.
func object[M ~int](s *scanner, fs *fieldSet[M], member func(m M) bool) (null, ok bool) {
	switch s.next() {
	case 'n':
		return true, s.literal("null")
	case '{':
		s.pos++
	default:
		return false, false
	}
	if s.next() == '}' {
		s.pos++
		return false, true
	}
	var seen uint64
	expect := M(0)
	for {
		i := M(-1)
		if s.next() != '"' {
			return false, false
		}
		// The field the service writes next, matched with its colon.
		if int(expect) < len(fs.quoted) {
			q := fs.quoted[expect]
			if len(s.buf)-s.pos >= len(q) && string(s.buf[s.pos:s.pos+len(q)]) == q {
				i = expect
				s.pos += len(q)
			}
		}
		if i < 0 {
			k, ok := s.key()
			if !ok {
				return false, false
			}
			for j, n := range fs.names {
				if n == k {
					i = M(j)
					break
				}
			}
			if i < 0 && foldsTo(k, fs.folded...) {
				return false, false
			}
		}
		s.next()
		if i < 0 {
			if !s.skip() {
				return false, false
			}
		} else {
			if seen&(1<<i) != 0 || !member(i) {
				return false, false // a repeated field: encoding/json merges them
			}
			seen |= 1 << i
			expect = i + 1
		}
		switch s.next() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return false, true
		default:
			return false, false
		}
	}
}

// array calls elem for each element of the array at pos, with pos at the
// element; elem must consume it. A null array calls nothing and reports
// null.
func (s *scanner) array(elem func() bool) (null, ok bool) {
	switch s.next() {
	case 'n':
		return true, s.literal("null")
	case '[':
		s.pos++
	default:
		return false, false
	}
	if s.next() == ']' {
		s.pos++
		return false, true
	}
	for {
		if !elem() {
			return false, false
		}
		switch s.next() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return false, true
		default:
			return false, false
		}
	}
}

// foldsTo reports whether key matches one of names (lower case ASCII)
// regardless of ASCII case: encoding/json would take it for that member.
func foldsTo(key string, names ...string) bool {
	for _, n := range names {
		if len(n) != len(key) {
			continue
		}
		match := true
		for i := 0; i < len(n); i++ {
			c := key[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != n[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
