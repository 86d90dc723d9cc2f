package transform

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/schema"
)

// buffer is the rows of one table buffered by a Batch.
type buffer interface {
	table() *schema.Table
	len() int
	bytes() int
	record(mem memory.Allocator) arrow.RecordBatch
	reset()
	setSlot(i int)
	columnNames() []string
}

// store buffers the rows of one table, one row per key (a dimension may
// keep some apart, see dimension). The first row of a key a response puts
// stays for the whole response (its later rows of the same key are that
// response's duplicates; a dimension fills its null columns from them, see
// coalesce); a row from another response is merged by the table's kind
// (see mergeAppend and mergeLatest).
type store[K comparable, R any] struct {
	tbl  *schema.Table
	cols []column[R]
	// merge merges a row of another response into old and reports
	// whether old took the new row's values.
	merge func(old, new *R) bool
	// coalesce, when set, fills the null columns of a response's row from
	// a later row of the same key and response.
	coalesce func(old, new *R)
	// dim, when set (a Dimension table), keeps apart the observations of a
	// key that merging would lose an attribute of (see dimension), and
	// prev chains each row to the previous row of its key still buffered
	// (-1: none). Only with the map index: hashIndex keeps a row per key.
	dim   *dimension[R]
	prev  []int32
	rows  []R
	stamp []uint64 // the Add that last put each row
	own   []bool   // whether the row's values are from that Add
	index map[K]int32
	// hashed, when set, replaces index.
	hashed *hashIndex[K]
	slot   int // the buffer's position in a Batch
	// new holds the row being merged, so that merging does not make every
	// row escape to the heap.
	new R
	// rowBytes is what a row holds besides its strings: the row, its
	// stamp and flag, and its entry in the index, counted as twice the key
	// and 8 bytes for the index's slack (measured: Batch.Bytes is within
	// a few percent of the heap a batch takes).
	rowBytes int
}

func newStore[K comparable, R any](t *schema.Table, merge func(old, new *R) bool, cols ...column[R]) *store[K, R] {
	var r R
	var k K
	rowBytes := int(unsafe.Sizeof(r)) + 9 + 2*int(unsafe.Sizeof(k)) + 8
	return &store[K, R]{tbl: t, cols: cols, merge: merge, index: map[K]int32{}, rowBytes: rowBytes}
}

// put buffers r under k for the Add numbered add, and reports whether the
// key is new to that Add.
func (s *store[K, R]) put(add uint64, k K, r R) bool {
	var i int32
	var slot int
	var ok bool
	if s.hashed != nil {
		i, slot, ok = s.hashed.find(k)
	} else {
		i, ok = s.index[k]
	}
	if ok {
		fresh := s.stamp[i] != add
		// A later row of the response whose row this is fills it; one of a
		// response whose row was merged into another's is that response's
		// duplicate, unless it gives a dimension what the other lacks.
		if !fresh && (s.own[i] || s.dim == nil) {
			if s.coalesce != nil && s.own[i] {
				s.new = r
				s.coalesce(&s.rows[i], &s.new)
			}
			return false
		}
		s.new = r
		if s.dim != nil {
			if s.dim.apart(&s.rows[i], &s.new) {
				j := s.append(add, r)
				s.prev[j] = i
				s.index[k] = j // the response's later rows fill j
				return fresh
			}
			if !fresh {
				return false
			}
		}
		s.own[i] = s.merge(&s.rows[i], &s.new)
		s.stamp[i] = add
		return true
	}
	if s.hashed != nil {
		s.hashed.insert(k, slot, int32(len(s.rows)))
	} else {
		s.index[k] = int32(len(s.rows))
	}
	s.append(add, r)
	return true
}

// append buffers r as a row of its own for the Add numbered add, and
// returns its number.
func (s *store[K, R]) append(add uint64, r R) int32 {
	s.rows = append(s.rows, r)
	s.stamp = append(s.stamp, add)
	s.own = append(s.own, true)
	if s.dim != nil {
		s.prev = append(s.prev, -1)
	}
	return int32(len(s.rows) - 1)
}

func (s *store[K, R]) table() *schema.Table { return s.tbl }
func (s *store[K, R]) len() int             { return len(s.rows) }
func (s *store[K, R]) bytes() int           { return len(s.rows) * s.rowBytes }
func (s *store[K, R]) setSlot(i int)        { s.slot = i }

// columnNames lists the columns the store fills, in order.
func (s *store[K, R]) columnNames() []string {
	names := make([]string, len(s.cols))
	for i, c := range s.cols {
		names[i] = c.name
	}
	return names
}

// record builds the table's record from the rows, in the order they were
// first put. A dimension's rows kept apart are first reduced to what the
// loader needs of them (dimension.settle); the store is then to be reset.
func (s *store[K, R]) record(mem memory.Allocator) arrow.RecordBatch {
	if s.dim != nil && len(s.rows) > len(s.index) {
		s.settle()
	}
	cols := make([]arrow.Array, len(s.cols))
	for i, c := range s.cols {
		cols[i] = c.build(mem, s.rows)
	}
	rec := array.NewRecordBatch(s.tbl.Arrow(), cols, int64(len(s.rows)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func (s *store[K, R]) reset() {
	clear(s.rows)
	s.rows = s.rows[:0]
	s.stamp = s.stamp[:0]
	s.own = s.own[:0]
	s.prev = s.prev[:0]
	clear(s.index)
	if s.hashed != nil {
		s.hashed.reset()
	}
}

// observed is what an append row needs for merging: the response it came
// from.
type observed struct {
	rid string // response_id
}

// mergeAppend keeps, of two rows with the same key, the one from the
// smaller response_id (schema.Append).
func mergeAppend[R any](obs func(*R) *observed) func(old, new *R) bool {
	return func(old, new *R) bool {
		if obs(new).rid < obs(old).rid {
			*old = *new
			return true
		}
		return false
	}
}

// seen is what a latest or dimension row needs for merging: its first and
// last observation and the response of the last.
type seen struct {
	first, last int64 // microseconds
	rid         string
}

// seenAt is the seen of a row first derived from response rid at us.
func seenAt(us int64, rid string) seen { return seen{first: us, last: us, rid: rid} }

// newer reports whether n is a later observation than o: a greater last,
// ties broken by the greater response_id.
func (n seen) newer(o seen) bool {
	return n.last > o.last || n.last == o.last && n.rid > o.rid
}

// mergeLatest keeps the values of the newer row, the earliest first and the
// latest last (schema.Latest, and schema.Dimension where the newer row
// gives every attribute the older gives: see dimension).
func mergeLatest[R any](sn func(*R) *seen) func(old, new *R) bool {
	return func(old, new *R) bool {
		o, n := sn(old), sn(new)
		first := min(o.first, n.first)
		won := n.newer(*o)
		if won {
			*old = *new
		}
		sn(old).first = first
		return won
	}
}
