package extract

import "fmt"

// wholeness tells, of a JSON text read in chunks, whether it arrived
// whole: every string, array and object it opens closed, brackets that
// pair, nothing after the value, and outside strings no byte JSON has
// none of there (a web page's '<'). It is how a body too large to hold
// (and to decode: it is landed and dead-lettered undecoded) is told apart
// from one cut short, which is asked again (response.Received.Broken) as
// a body held whole is by json.Valid. It is not a validator of JSON's grammar: a
// number, a literal or an escape inside a string are not checked — the
// body is decoded, and so checked, only by a replay with a larger
// --max-body. Its memory is constant: nesting deeper than json's own
// limit (10 000) is a fault of its own.
type wholeness struct {
	n        int64 // bytes seen
	started  bool  // a value has started
	done     bool  // the top-level array, object or string closed
	inString bool
	escaped  bool   // the byte before was a backslash inside a string
	open     []byte // the brackets open, innermost last
	fault    string // the first fault found, with its offset
}

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

// outside are the bytes JSON has outside its strings, white space aside:
// punctuation, numbers and the letters of true, false and null. Any
// other (the '<' of a web page) is no JSON.
var outside = func() (set [256]bool) {
	for _, c := range []byte(`{}[],:"-+.0123456789eEtrufalsn`) {
		set[c] = true
	}
	return set
}()

func (s *wholeness) Write(p []byte) (int, error) {
	for i, c := range p {
		if s.fault != "" {
			break
		}
		at := s.n + int64(i)
		if s.inString {
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
				s.done = len(s.open) == 0
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		if s.done {
			s.fault = fmt.Sprintf("more after the JSON value at byte %d", at)
			break
		}
		if !outside[c] {
			s.fault = fmt.Sprintf("a %q outside a string at byte %d", c, at)
			break
		}
		s.started = true
		switch c {
		case '"':
			s.inString = true
		case '{', '[':
			if len(s.open) == maxDepth {
				s.fault = fmt.Sprintf("nested deeper than %d at byte %d", maxDepth, at)
				break
			}
			s.open = append(s.open, c)
		case '}', ']':
			want := byte('{')
			if c == ']' {
				want = '['
			}
			if len(s.open) == 0 || s.open[len(s.open)-1] != want {
				s.fault = fmt.Sprintf("a %q that closes nothing open at byte %d", c, at)
				break
			}
			s.open = s.open[:len(s.open)-1]
			s.done = len(s.open) == 0
		}
	}
	s.n += int64(len(p))
	return len(p), nil
}

// broken says why the text seen is not a whole JSON value, "" when it
// looks whole.
func (s *wholeness) broken() string {
	switch {
	case s.fault != "":
		return fmt.Sprintf("the body of %d bytes is not JSON: %s", s.n, s.fault)
	case !s.started:
		return "an empty body where JSON is wanted"
	case s.inString:
		return fmt.Sprintf("the body of %d bytes is not JSON: it ends inside a string", s.n)
	case len(s.open) > 0:
		return fmt.Sprintf("the body of %d bytes is not JSON: it ends with %d arrays or objects open", s.n, len(s.open))
	}
	return ""
}
