package transform

import "strings"

// interner keeps one owned copy of each distinct string a batch buffers.
// Values repeat a great deal (codes, places, names), and a body's strings
// may be views of its bytes, which the batch must not keep.
type interner map[string]string

// of returns the owned copy of s.
func (in interner) of(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := in[s]; ok {
		return v
	}
	v := strings.Clone(s)
	in[v] = v
	return v
}
