package transform

// slab hands out pointers to zeroed values that stay valid until reset:
// it grows by whole chunks, never moving what it handed out. The shipment
// fast path takes the many small values of a decoded body from slabs
// instead of allocating each.
type slab[T any] struct {
	chunks [][]T
	chunk  int // current chunk
	used   int // values used in it
}

const slabChunk = 256

func (s *slab[T]) new() *T {
	if s.chunk == len(s.chunks) {
		s.chunks = append(s.chunks, make([]T, slabChunk))
	}
	c := s.chunks[s.chunk]
	p := &c[s.used]
	var zero T
	*p = zero
	if s.used++; s.used == len(c) {
		s.chunk, s.used = s.chunk+1, 0
	}
	return p
}

// of returns a pointer to a copy of v.
func (s *slab[T]) of(v T) *T {
	p := s.new()
	*p = v
	return p
}

func (s *slab[T]) reset() { s.chunk, s.used = 0, 0 }
