package load

import (
	"fmt"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/schema"
)

// recordOf builds a record of table t from rows of values by column name;
// a missing or nil value is null. Timestamps are time.Time, dates
// time.Time (their UTC date), JSON and VARCHAR strings. It is for the
// warehouse's own small tables (the run ledger, the tracked set), whose
// rows come from the jobs rather than from a response.
func recordOf(t *schema.Table, rows []map[string]any) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, t.Arrow())
	defer b.Release()
	for _, v := range rows {
		if err := appendRow(b, t, v); err != nil {
			return nil, err
		}
	}
	return b.NewRecordBatch(), nil
}

func appendRow(b *array.RecordBuilder, t *schema.Table, v map[string]any) error {
	var unknown []string
	for name := range v {
		if c, ok := t.Column(name); !ok || c.Computed {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return invalidf("%s has no column %v that a batch carries", t.Name, unknown)
	}
	i := -1
	for _, c := range t.Columns {
		if c.Computed {
			continue
		}
		i++
		f := b.Field(i)
		val := v[c.Name]
		if val == nil {
			if !c.Nullable {
				return invalidf("%s.%s: a value is required", t.Name, c.Name)
			}
			f.AppendNull()
			continue
		}
		var ok bool
		switch fb := f.(type) {
		case *array.StringBuilder:
			ok = put(fb.Append, val)
		case *array.Int64Builder:
			ok = put(fb.Append, val)
		case *array.Int32Builder:
			ok = put(fb.Append, val)
		case *array.Float64Builder:
			ok = put(fb.Append, val)
		case *array.BooleanBuilder:
			ok = put(fb.Append, val)
		case *array.TimestampBuilder:
			ok = put(func(t time.Time) { fb.Append(arrow.Timestamp(t.UnixMicro())) }, val)
		case *array.Date32Builder:
			ok = put(func(t time.Time) { fb.Append(arrow.Date32FromTime(t.UTC())) }, val)
		default:
			return fmt.Errorf("load: %s.%s: unsupported builder %T", t.Name, c.Name, f)
		}
		if !ok {
			return invalidf("%s.%s: a %T is not a value of a %s column", t.Name, c.Name, val, c.Type.DuckDB())
		}
	}
	return nil
}

// put appends val with add when it is a T, and says whether it was.
func put[T any](add func(T), val any) bool {
	x, ok := val.(T)
	if ok {
		add(x)
	}
	return ok
}
