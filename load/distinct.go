package load

import (
	"hash/maphash"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/etalake/etalake/schema"
)

// keySeed seeds the hashes of keysDistinct.
var keySeed = maphash.MakeSeed()

// keysDistinct reports whether rec is known to hold each of t's keys at
// most once. It hashes the key columns of every row in Go: no two equal
// hashes means no two equal keys, and the merge need not count duplicates
// in SQL, which would register the record for a scan of its own (each
// Arrow registration leaks a little of DuckDB's memory, duckdb/duckdb#16050).
// Two equal hashes, or a key column of a type it does not
// hash, answer false: the merge then counts in SQL, which is exact.
func keysDistinct(rec arrow.RecordBatch, t *schema.Table) bool {
	n := int(rec.NumRows())
	if n < 2 {
		return true
	}
	hashes := make([]uint64, n)
	for i, name := range t.Key {
		idx := rec.Schema().FieldIndices(name)
		if len(idx) != 1 || !mixColumn(hashes, rec.Column(idx[0]), uint64(i)) {
			return false
		}
	}
	seen := make(map[uint64]struct{}, n)
	for _, h := range hashes {
		if _, dup := seen[h]; dup {
			return false
		}
		seen[h] = struct{}{}
	}
	return true
}

// mixColumn folds the values of col into hashes, row by row; it reports
// false for a column type it does not hash. A null hashes apart from every
// value of its column.
func mixColumn(hashes []uint64, col arrow.Array, salt uint64) bool {
	var value func(i int) uint64
	switch c := col.(type) {
	case *array.String:
		value = func(i int) uint64 { return maphash.String(keySeed, c.Value(i)) }
	case *array.Binary:
		value = func(i int) uint64 { return maphash.Bytes(keySeed, c.Value(i)) }
	case *array.Int64:
		value = func(i int) uint64 { return uint64(c.Value(i)) }
	case *array.Int32:
		value = func(i int) uint64 { return uint64(c.Value(i)) }
	case *array.Timestamp:
		value = func(i int) uint64 { return uint64(c.Value(i)) }
	case *array.Date32:
		value = func(i int) uint64 { return uint64(c.Value(i)) }
	case *array.Boolean:
		value = func(i int) uint64 {
			if c.Value(i) {
				return 1
			}
			return 0
		}
	default:
		return false
	}
	for i := range hashes {
		v := uint64(0x9e3779b97f4a7c15) // a null
		if col.IsValid(i) {
			v = value(i)
		}
		hashes[i] = mix(hashes[i], v^salt)
	}
	return true
}

// mix combines a running hash with the next value (the 64-bit finaliser
// of MurmurHash3 over their multiply-rotate combination).
func mix(h, v uint64) uint64 {
	h = bits.RotateLeft64(h*0xff51afd7ed558ccd, 31) ^ v
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
