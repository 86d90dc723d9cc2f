package transform

import (
	"encoding/hex"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// column writes one column of a table from buffered rows of type R into the
// Arrow builder of the table's field of the same position.
type column[R any] struct {
	name string
	fill func(b array.Builder, rows []R)
}

// bytesOf views s as bytes without copying; the builders copy.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// reserveStrings sizes a string builder for the rows' values.
func reserveStrings[R any](sb *array.StringBuilder, rows []R, get func(*R) string) {
	n := 0
	for i := range rows {
		n += len(get(&rows[i]))
	}
	sb.Reserve(len(rows))
	sb.ReserveData(n)
}

// str is a non-null VARCHAR column.
func str[R any](name string, get func(*R) string) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		sb := b.(*array.StringBuilder)
		reserveStrings(sb, rows, get)
		for i := range rows {
			sb.BinaryBuilder.Append(bytesOf(get(&rows[i])))
		}
	}}
}

// optStr is a nullable VARCHAR column; "" is null.
func optStr[R any](name string, get func(*R) string) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		sb := b.(*array.StringBuilder)
		reserveStrings(sb, rows, get)
		for i := range rows {
			if v := get(&rows[i]); v != "" {
				sb.BinaryBuilder.Append(bytesOf(v))
			} else {
				sb.AppendNull()
			}
		}
	}}
}

// hexKey is a non-null VARCHAR column holding a 16-byte key as 32 hex digits.
func hexKey[R any](name string, get func(*R) *[16]byte) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		sb := b.(*array.StringBuilder)
		sb.Reserve(len(rows))
		sb.ReserveData(32 * len(rows))
		var buf [32]byte
		for i := range rows {
			hex.Encode(buf[:], get(&rows[i])[:])
			sb.BinaryBuilder.Append(buf[:])
		}
	}}
}

// i64 is a non-null BIGINT column.
func i64[R any](name string, get func(*R) int64) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		ib := b.(*array.Int64Builder)
		ib.Reserve(len(rows))
		for i := range rows {
			ib.UnsafeAppend(get(&rows[i]))
		}
	}}
}

// optI64 is a nullable BIGINT column.
func optI64[R any](name string, get func(*R) optInt) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		ib := b.(*array.Int64Builder)
		ib.Reserve(len(rows))
		for i := range rows {
			if v := get(&rows[i]); v.ok {
				ib.UnsafeAppend(v.v)
			} else {
				ib.UnsafeAppendBoolToBitmap(false)
			}
		}
	}}
}

// i32 is a non-null INTEGER column.
func i32[R any](name string, get func(*R) int32) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		ib := b.(*array.Int32Builder)
		ib.Reserve(len(rows))
		for i := range rows {
			ib.UnsafeAppend(get(&rows[i]))
		}
	}}
}

// optF64 is a nullable DOUBLE column.
func optF64[R any](name string, get func(*R) optFloat) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		fb := b.(*array.Float64Builder)
		fb.Reserve(len(rows))
		for i := range rows {
			if v := get(&rows[i]); v.ok {
				fb.UnsafeAppend(v.v)
			} else {
				fb.UnsafeAppendBoolToBitmap(false)
			}
		}
	}}
}

// boolean is a non-null BOOLEAN column.
func boolean[R any](name string, get func(*R) bool) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		bb := b.(*array.BooleanBuilder)
		bb.Reserve(len(rows))
		for i := range rows {
			bb.UnsafeAppend(get(&rows[i]))
		}
	}}
}

// optBoolean is a nullable BOOLEAN column.
func optBoolean[R any](name string, get func(*R) optBool) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		bb := b.(*array.BooleanBuilder)
		bb.Reserve(len(rows))
		for i := range rows {
			if v := get(&rows[i]); v.ok {
				bb.UnsafeAppend(v.v)
			} else {
				bb.UnsafeAppendBoolToBitmap(false)
			}
		}
	}}
}

// ts is a non-null TIMESTAMPTZ column from microseconds.
func ts[R any](name string, get func(*R) int64) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		tb := b.(*array.TimestampBuilder)
		tb.Reserve(len(rows))
		for i := range rows {
			tb.UnsafeAppend(arrow.Timestamp(get(&rows[i])))
		}
	}}
}

// optTs is a nullable TIMESTAMPTZ column.
func optTs[R any](name string, get func(*R) optTime) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		tb := b.(*array.TimestampBuilder)
		tb.Reserve(len(rows))
		for i := range rows {
			if v := get(&rows[i]); v.ok {
				tb.UnsafeAppend(arrow.Timestamp(v.us))
			} else {
				tb.UnsafeAppendBoolToBitmap(false)
			}
		}
	}}
}

// date is a non-null DATE column: the UTC date of a timestamp in
// microseconds.
func date[R any](name string, get func(*R) int64) column[R] {
	return column[R]{name, func(b array.Builder, rows []R) {
		db := b.(*array.Date32Builder)
		db.Reserve(len(rows))
		for i := range rows {
			db.UnsafeAppend(arrow.Date32(dayOf(get(&rows[i]))))
		}
	}}
}
