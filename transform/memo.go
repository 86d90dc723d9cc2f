package transform

import "bytes"

// memo remembers the objects of one kind (locations, facilities, vessels)
// the shipment fast path decoded, by their exact JSON text: the same text
// decodes to the same value, so a body that repeats an object (every
// event at a port names the port in full) is decoded once per batch. A
// memo's values and their strings are owned and never changed.
type memo[T any] struct {
	last    *memoEntry[T]
	byStart map[string][]*memoEntry[T] // by the first bytes of the text
	n       int
}

type memoEntry[T any] struct {
	text []byte
	v    *T
}

// memoPrefix is how many bytes of an object's text index it.
const memoPrefix = 24

// memoLimit bounds the entries of a memo; it starts over when full.
const memoLimit = 4096

// find returns the value whose text starts b, and the text's length.
func (m *memo[T]) find(b []byte) (*T, int) {
	if e := m.last; e != nil && bytes.HasPrefix(b, e.text) {
		return e.v, len(e.text)
	}
	if len(b) < memoPrefix {
		return nil, 0
	}
	for _, e := range m.byStart[view(b[:memoPrefix])] {
		if bytes.HasPrefix(b, e.text) {
			m.last = e
			return e.v, len(e.text)
		}
	}
	return nil, 0
}

// add remembers v as the value of text (copied).
func (m *memo[T]) add(text []byte, v *T) {
	if len(text) < memoPrefix {
		return
	}
	if m.byStart == nil || m.n == memoLimit {
		m.byStart = map[string][]*memoEntry[T]{}
		m.n = 0
	}
	e := &memoEntry[T]{text: bytes.Clone(text), v: v}
	k := string(e.text[:memoPrefix])
	m.byStart[k] = append(m.byStart[k], e)
	m.n++
	m.last = e
}
