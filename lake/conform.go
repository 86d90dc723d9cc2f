package lake

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// conform gives a record read from DuckDB the lake table's Arrow schema
// (target: field ids, required fields, the time zone's spelling), column
// by column by name, without copying a value: the physical layouts are
// the same. A column the table lacks (a newer binary's) is an error; one
// the record lacks is null.
func conform(rec arrow.RecordBatch, target *arrow.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(target.Fields()))
	for i, f := range target.Fields() {
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) == 0 {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, int(rec.NumRows()))
			continue
		}
		data, err := retype(rec.Column(idx[0]).Data(), f.Type)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
		cols[i] = array.MakeFromData(data)
		data.Release()
	}
	for _, f := range rec.Schema().Fields() {
		if len(target.FieldIndices(f.Name)) == 0 {
			return nil, fmt.Errorf("column %s is not in the lake table's schema", f.Name)
		}
	}
	out := array.NewRecordBatch(target, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// retype is data as type t, which has data's layout.
func retype(data arrow.ArrayData, t arrow.DataType) (arrow.ArrayData, error) {
	if data.DataType().ID() != t.ID() {
		// DuckDB's strings as Arrow views or large strings would land here.
		return nil, fmt.Errorf("DuckDB gave %s, the lake wants %s", data.DataType(), t)
	}
	var children []arrow.ArrayData
	if st, ok := t.(*arrow.StructType); ok {
		for i, f := range st.Fields() {
			c, err := retype(data.Children()[i], f.Type)
			if err != nil {
				return nil, err
			}
			defer c.Release()
			children = append(children, c)
		}
	} else {
		children = data.Children()
	}
	return array.NewData(t, data.Len(), data.Buffers(), children, data.NullN(), data.Offset()), nil
}
