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
		if _, ok := t.Column(name); !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return invalidf("%s has no column %v", t.Name, unknown)
	}
	for i, c := range t.Columns {
		f := b.Field(i)
		val, ok := v[c.Name]
		if !ok || val == nil {
			if !c.Nullable {
				return invalidf("%s.%s: a value is required", t.Name, c.Name)
			}
			f.AppendNull()
			continue
		}
		var ok2 bool
		switch fb := f.(type) {
		case *array.StringBuilder:
			var s string
			if s, ok2 = val.(string); ok2 {
				fb.Append(s)
			}
		case *array.Int64Builder:
			var n int64
			if n, ok2 = val.(int64); ok2 {
				fb.Append(n)
			}
		case *array.Int32Builder:
			var n int32
			if n, ok2 = val.(int32); ok2 {
				fb.Append(n)
			}
		case *array.Float64Builder:
			var x float64
			if x, ok2 = val.(float64); ok2 {
				fb.Append(x)
			}
		case *array.BooleanBuilder:
			var x bool
			if x, ok2 = val.(bool); ok2 {
				fb.Append(x)
			}
		case *array.TimestampBuilder:
			var x time.Time
			if x, ok2 = val.(time.Time); ok2 {
				fb.Append(arrow.Timestamp(x.UnixMicro()))
			}
		case *array.Date32Builder:
			var x time.Time
			if x, ok2 = val.(time.Time); ok2 {
				fb.Append(arrow.Date32FromTime(x.UTC()))
			}
		default:
			return fmt.Errorf("load: %s.%s: unsupported builder %T", t.Name, c.Name, f)
		}
		if !ok2 {
			return invalidf("%s.%s: a %T is not a value of a %s column", t.Name, c.Name, val, c.Type.DuckDB())
		}
	}
	return nil
}
