package load

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/schema"
)

// TestKeysDistinctAgreesWithExactCount compares keysDistinct with an exact
// answer on records of few values (so duplicates are common), nulls and
// every hashed type among the keys. A false "distinct" would load a key
// twice; a false "not distinct" only costs a SQL count, but with so few
// rows a hash collision would be a bug in the mixing.
func TestKeysDistinctAgreesWithExactCount(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "payload", Type: arrow.BinaryTypes.String},
	}, nil)
	tbl := &schema.Table{Name: "t", Key: []string{"s", "i", "ts", "d"}}
	rng := rand.New(rand.NewPCG(1, 2))
	sawDup, sawDistinct := false, false
	for trial := range 500 {
		n := 1 + rng.IntN(12)
		b := array.NewRecordBuilder(mem, sch)
		exact := map[string]bool{}
		distinct := true
		for range n {
			var key string
			if rng.IntN(4) == 0 {
				b.Field(0).AppendNull()
				key += "null|"
			} else {
				v := []string{"a", "b", "ab", ""}[rng.IntN(4)]
				b.Field(0).(*array.StringBuilder).Append(v)
				key += "s" + v + "|"
			}
			if rng.IntN(4) == 0 {
				b.Field(1).AppendNull()
				key += "null|"
			} else {
				v := int64(rng.IntN(3))
				b.Field(1).(*array.Int64Builder).Append(v)
				key += fmt.Sprint(v, "|")
			}
			ts := arrow.Timestamp(rng.IntN(2))
			b.Field(2).(*array.TimestampBuilder).Append(ts)
			d := arrow.Date32(rng.IntN(2))
			b.Field(3).(*array.Date32Builder).Append(d)
			b.Field(4).(*array.StringBuilder).Append(fmt.Sprint(rng.Int())) // not a key
			key += fmt.Sprint(ts, "|", d)
			if exact[key] {
				distinct = false
			}
			exact[key] = true
		}
		rec := b.NewRecordBatch()
		b.Release()
		if got := keysDistinct(rec, tbl); got != distinct {
			t.Errorf("trial %d: keysDistinct = %v, exact answer %v, keys %v", trial, got, distinct, exact)
		}
		rec.Release()
		sawDup = sawDup || !distinct
		sawDistinct = sawDistinct || distinct
	}
	if !sawDup || !sawDistinct {
		t.Fatalf("the trials did not cover both answers: dup %v, distinct %v", sawDup, sawDistinct)
	}
}

// TestKeysDistinctRefusesWhatItCannotHash: a key of a type it does not
// hash is left to the SQL count.
func TestKeysDistinctRefusesWhatItCannotHash(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sch := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewRecordBuilder(mem, sch)
	defer b.Release()
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{1, 2}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	if keysDistinct(rec, &schema.Table{Name: "t", Key: []string{"f"}}) {
		t.Error("a float key was taken as distinct")
	}
	if keysDistinct(rec, &schema.Table{Name: "t", Key: []string{"missing"}}) {
		t.Error("a key column missing from the record was taken as distinct")
	}
}
