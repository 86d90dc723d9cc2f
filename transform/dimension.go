package transform

import "slices"

// dimension is how a Dimension table's store keeps what the loader merges
// attribute by attribute (load's dimensionSourceSQL, schema.Dimension): an
// attribute holds the value of the latest observation that gives it, and
// its Kept column names that observation. Two observations of a key merge
// into one row (mergeLatest: the newer's values) only when the newer gives
// every attribute the older gives — the common case. Otherwise both rows
// are buffered, so that a batch holding a rich observation and a later
// poorer one loads as the two would in two batches; the loader merges a
// batch's rows of a key as it merges them into the table.
//
// Which rows are kept apart depends on the order of the responses, but
// not what record emits: settle reduces a key's rows to those it would
// keep of all its observations.
type dimension[R any] struct {
	seen func(*R) *seen
	// shadow takes from o each attribute that g gives (it becomes null in
	// o), gives g each one of o's that g lacks, and reports whether o
	// still gives any.
	shadow func(o, g *R) bool
	// n and o are apart's copies of the newer and the older row, kept
	// here so that comparing does not put two rows on the heap per call.
	n, o R
}

// apart reports whether a row of another response must be buffered
// beside old rather than merged into it: the newer of the two leaves out
// an attribute the older gives.
func (d *dimension[R]) apart(old, new *R) bool {
	if d.seen(new).newer(*d.seen(old)) {
		d.n, d.o = *new, *old
	} else {
		d.n, d.o = *old, *new
	}
	return d.shadow(&d.o, &d.n)
}

// settle reduces the rows of each key buffered more than once (prev
// chains them from the key's row in index) to what the loader needs of
// them, newest first:
//   - the newest observation, with its values and the earliest first
//     observation of them all;
//   - each older one that gives an attribute no newer one gives, with
//     those attributes only and its own observation as first;
//   - no other: an older observation whose every attribute a newer one
//     gives changes nothing but first.
//
// Rows are kept in their order. The store's stamps, flags and index no
// longer match its rows: reset follows.
func (s *store[K, R]) settle() {
	d := s.dim
	dead := make([]bool, len(s.rows))
	var chain []int32
	for _, h := range s.index {
		if s.prev[h] < 0 {
			continue
		}
		chain = chain[:0]
		for i := h; i >= 0; i = s.prev[i] {
			chain = append(chain, i)
		}
		slices.SortFunc(chain, func(a, b int32) int {
			switch {
			case d.seen(&s.rows[a]).newer(*d.seen(&s.rows[b])):
				return -1
			case d.seen(&s.rows[b]).newer(*d.seen(&s.rows[a])):
				return 1
			}
			return 0
		})
		newest := &s.rows[chain[0]]
		first := d.seen(newest).first
		given := *newest
		for _, i := range chain[1:] {
			o := &s.rows[i]
			sn := d.seen(o)
			first = min(first, sn.first)
			sn.first = sn.last
			dead[i] = !d.shadow(o, &given)
		}
		d.seen(newest).first = first
	}
	n := 0
	for i := range s.rows {
		if !dead[i] {
			s.rows[n] = s.rows[i]
			n++
		}
	}
	clear(s.rows[n:])
	s.rows = s.rows[:n]
}

// shadow takes from *o the value *g gives (o's becomes null), or gives *g
// the value of *o when it has none, and reports whether *o still gives a
// value. A null is the zero value: an empty string, or an optFloat or
// optInt not ok (an empty string is a value left out, as the loader
// reads it).
func shadow[V comparable](o, g *V) bool {
	var null V
	switch {
	case *g != null:
		*o = null
		return false
	case *o != null:
		*g = *o
		return true
	}
	return false
}

// some reports whether any of bs is true, every one evaluated.
func some(bs ...bool) bool { return slices.Contains(bs, true) }
