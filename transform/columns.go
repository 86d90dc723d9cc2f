package transform

import (
	"encoding/hex"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/schema"
)

// column builds one column of a table, as an Arrow array of the type of
// the table's field at the same position, from buffered rows of type R.
// The arrays are written directly into buffers of the batch's allocator:
// the rows are all known, so there is nothing for a builder to grow.
type column[R any] struct {
	name  string
	build func(mem memory.Allocator, rows []R) arrow.Array
}

// newBuffer allocates a buffer of size bytes, which the caller writes
// whole.
func newBuffer(mem memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(size)
	return b
}

// newBitmap allocates a bitmap of n bits, all clear.
func newBitmap(mem memory.Allocator, n int) *memory.Buffer {
	b := newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	clear(b.Bytes())
	return b
}

// values views a buffer as n values of T.
func values[T any](b *memory.Buffer, n int) []T {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b.Bytes()))), n)
}

// validity returns the validity bitmap of n values with the given nulls,
// nil when there are none, and its bytes.
func validity(mem memory.Allocator, n, nulls int) (*memory.Buffer, []byte) {
	if nulls == 0 {
		return nil, nil
	}
	b := newBitmap(mem, n)
	return b, b.Bytes()
}

// makeArray wraps buffers into an array and drops the buffers' own
// references.
func makeArray(t arrow.DataType, n, nulls int, buffers ...*memory.Buffer) arrow.Array {
	data := array.NewData(t, n, buffers, nil, nulls, 0)
	for _, b := range buffers {
		if b != nil {
			b.Release()
		}
	}
	defer data.Release()
	return array.MakeFromData(data)
}

// varchars builds a VARCHAR column; with nullEmpty, "" is null.
func varchars[R any](mem memory.Allocator, rows []R, get func(*R) string, nullEmpty bool) arrow.Array {
	n, size, nulls := len(rows), 0, 0
	for i := range rows {
		v := get(&rows[i])
		size += len(v)
		if nullEmpty && v == "" {
			nulls++
		}
	}
	if size > 1<<31-1 {
		panic("transform: a string column holds more than 2 GiB; take the records sooner")
	}
	offsets := newBuffer(mem, (n+1)*4)
	off := values[int32](offsets, n+1)
	data := newBuffer(mem, size)
	d := data.Bytes()
	valid, bits := validity(mem, n, nulls)
	pos := 0
	for i := range rows {
		v := get(&rows[i])
		off[i] = int32(pos)
		pos += copy(d[pos:], v)
		if bits != nil && v != "" {
			bitutil.SetBit(bits, i)
		}
	}
	off[n] = int32(pos)
	return makeArray(arrow.BinaryTypes.String, n, nulls, valid, offsets, data)
}

// str is a non-null VARCHAR column.
func str[R any](name string, get func(*R) string) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array { return varchars(mem, rows, get, false) }}
}

// optStr is a nullable VARCHAR column; "" is null.
func optStr[R any](name string, get func(*R) string) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array { return varchars(mem, rows, get, true) }}
}

// hexKey is a non-null VARCHAR column holding a 16-byte key as 32 hex digits.
func hexKey[R any](name string, get func(*R) *[16]byte) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		n := len(rows)
		offsets := newBuffer(mem, (n+1)*4)
		off := values[int32](offsets, n+1)
		data := newBuffer(mem, 32*n)
		d := data.Bytes()
		for i := range rows {
			off[i] = int32(32 * i)
			hex.Encode(d[32*i:], get(&rows[i])[:])
		}
		off[n] = int32(32 * n)
		return makeArray(arrow.BinaryTypes.String, n, 0, nil, offsets, data)
	}}
}

// fixed builds a column of fixed-width values of T; get reports whether
// a value is valid (not null).
func fixed[R, T any](mem memory.Allocator, t arrow.DataType, rows []R, get func(*R) (T, bool)) arrow.Array {
	n, nulls := len(rows), 0
	for i := range rows {
		if _, ok := get(&rows[i]); !ok {
			nulls++
		}
	}
	var zero T
	buf := newBuffer(mem, n*int(unsafe.Sizeof(zero)))
	vs := values[T](buf, n)
	valid, bits := validity(mem, n, nulls)
	for i := range rows {
		v, ok := get(&rows[i])
		vs[i] = v // the zero value under a null
		if ok && bits != nil {
			bitutil.SetBit(bits, i)
		}
	}
	return makeArray(t, n, nulls, valid, buf)
}

func valid[T any](f func(*T) int64) func(*T) (int64, bool) {
	return func(r *T) (int64, bool) { return f(r), true }
}

// i64 is a non-null BIGINT column.
func i64[R any](name string, get func(*R) int64) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return fixed(mem, schema.BigInt.Arrow(), rows, valid(get))
	}}
}

// optI64 is a nullable BIGINT column.
func optI64[R any](name string, get func(*R) optInt) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return fixed(mem, schema.BigInt.Arrow(), rows, func(r *R) (int64, bool) { v := get(r); return v.v, v.ok })
	}}
}

// i32 is a non-null INTEGER column.
func i32[R any](name string, get func(*R) int32) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return fixed(mem, schema.Integer.Arrow(), rows, func(r *R) (int32, bool) { return get(r), true })
	}}
}

// optF64 is a nullable DOUBLE column.
func optF64[R any](name string, get func(*R) optFloat) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return fixed(mem, schema.Double.Arrow(), rows, func(r *R) (float64, bool) { v := get(r); return v.v, v.ok })
	}}
}

// ts is a non-null TIMESTAMPTZ column from microseconds.
func ts[R any](name string, get func(*R) int64) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return fixed(mem, schema.Timestamp.Arrow(), rows, valid(get))
	}}
}

// optTs is a nullable TIMESTAMPTZ column.
func optTs[R any](name string, get func(*R) optTime) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return fixed(mem, schema.Timestamp.Arrow(), rows, func(r *R) (int64, bool) { v := get(r); return v.us, v.ok })
	}}
}

// date is a non-null DATE column: the UTC date of a timestamp in
// microseconds.
func date[R any](name string, get func(*R) int64) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return fixed(mem, schema.Date.Arrow(), rows, func(r *R) (int32, bool) { return dayOf(get(r)), true })
	}}
}

// bools builds a BOOLEAN column.
func bools[R any](mem memory.Allocator, rows []R, get func(*R) (bool, bool)) arrow.Array {
	n, nulls := len(rows), 0
	for i := range rows {
		if _, ok := get(&rows[i]); !ok {
			nulls++
		}
	}
	buf := newBitmap(mem, n)
	vs := buf.Bytes()
	valid, bits := validity(mem, n, nulls)
	for i := range rows {
		v, ok := get(&rows[i])
		if ok && v {
			bitutil.SetBit(vs, i)
		}
		if ok && bits != nil {
			bitutil.SetBit(bits, i)
		}
	}
	return makeArray(arrow.FixedWidthTypes.Boolean, n, nulls, valid, buf)
}

// boolean is a non-null BOOLEAN column.
func boolean[R any](name string, get func(*R) bool) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return bools(mem, rows, func(r *R) (bool, bool) { return get(r), true })
	}}
}

// optBoolean is a nullable BOOLEAN column.
func optBoolean[R any](name string, get func(*R) optBool) column[R] {
	return column[R]{name, func(mem memory.Allocator, rows []R) arrow.Array {
		return bools(mem, rows, func(r *R) (bool, bool) { v := get(r); return v.v, v.ok })
	}}
}
