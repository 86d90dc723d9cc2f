package transform_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/schema"
)

// checked returns a checked allocator that must hold nothing when the test
// ends.
func checked(t testing.TB) *memory.CheckedAllocator {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// release releases every record.
func release(recs []schema.Rows) {
	for _, r := range recs {
		r.Rec.Release()
	}
}

// table is one table's rows rendered as JSON objects, columns in schema
// order.
type table struct {
	rows []string
	keys []string
}

// render renders records by table name, checking them first.
func render(t testing.TB, recs []schema.Rows) map[string]*table {
	t.Helper()
	checkRecords(t, recs)
	out := map[string]*table{}
	for _, r := range recs {
		tb := &table{}
		for i := 0; i < int(r.Rec.NumRows()); i++ {
			tb.rows = append(tb.rows, renderRow(r.Rec, i))
			tb.keys = append(tb.keys, renderKey(r.Table, r.Rec, i))
		}
		out[r.Table.Name] = tb
	}
	return out
}

// checkRecords checks what every batch of records must satisfy: schema
// order, schemas equal to the contract's, valid arrays with valid UTF-8,
// no null in a non-null column, keys unique (a dimension's, per response), partition dates derived from
// their timestamps, first ≤ last.
func checkRecords(t testing.TB, recs []schema.Rows) {
	t.Helper()
	pos := map[*schema.Table]int{}
	for i, tbl := range schema.Tables {
		pos[tbl] = i
	}
	last := -1
	for _, r := range recs {
		tbl := r.Table
		if p, ok := pos[tbl]; !ok || p <= last {
			t.Fatalf("record of %s out of schema.Tables order", tbl.Name)
		} else {
			last = p
		}
		if err := checkRecord(tbl, r.Rec); err != nil {
			t.Fatalf("%s: %v", tbl.Name, err)
		}
	}
}

func checkRecord(tbl *schema.Table, rec arrow.RecordBatch) error {
	want := tbl.Arrow()
	if !rec.Schema().Equal(want) || !rec.Schema().Metadata().Equal(want.Metadata()) {
		return fmt.Errorf("schema %v, want %v", rec.Schema(), want)
	}
	n := int(rec.NumRows())
	if n == 0 {
		return fmt.Errorf("empty record")
	}
	for i, col := range rec.Columns() {
		c := tbl.Columns[i]
		if col.Len() != n {
			return fmt.Errorf("column %s has %d values for %d rows", c.Name, col.Len(), n)
		}
		if !c.Nullable && col.NullN() != 0 {
			return fmt.Errorf("non-null column %s has %d nulls", c.Name, col.NullN())
		}
		if s, ok := col.(*array.String); ok {
			if err := s.Validate(); err != nil {
				return fmt.Errorf("column %s: %v", c.Name, err)
			}
			for j := 0; j < n; j++ {
				if !utf8.ValidString(s.Value(j)) {
					return fmt.Errorf("column %s row %d: invalid UTF-8 %q", c.Name, j, s.Value(j))
				}
			}
		}
	}
	keys := map[string]int{}
	for i := 0; i < n; i++ {
		k := renderKey(tbl, rec, i)
		if tbl.Kind == schema.Dimension {
			// A dimension's observations of a key may be kept apart, one
			// row per response (transform/dimension.go).
			k += " " + column(tbl, rec, "response_id").(*array.String).Value(i)
		}
		if j, dup := keys[k]; dup {
			return fmt.Errorf("rows %d and %d share the key %s", j, i, k)
		}
		keys[k] = i
	}
	part := map[string]string{"observed_date": "observed_at", "first_seen_date": "first_seen_at",
		"first_observed_date": "first_observed_at", "at_date": "at"}
	from, ok := part[tbl.Partition]
	if !ok {
		return fmt.Errorf("partition %s not derived from a known column", tbl.Partition)
	}
	dates := column(tbl, rec, tbl.Partition).(*array.Date32)
	stamps := column(tbl, rec, from).(*array.Timestamp)
	for i := 0; i < n; i++ {
		want := time.UnixMicro(int64(stamps.Value(i))).UTC().Format(time.DateOnly)
		if got := dates.Value(i).FormattedString(); got != want {
			return fmt.Errorf("row %d: %s %s for %s %s", i, tbl.Partition, got, from, want)
		}
	}
	if tbl.First != "" {
		first := column(tbl, rec, tbl.First).(*array.Timestamp)
		lastTS := column(tbl, rec, tbl.Last).(*array.Timestamp)
		for i := 0; i < n; i++ {
			if first.Value(i) > lastTS.Value(i) {
				return fmt.Errorf("row %d: %s after %s", i, tbl.First, tbl.Last)
			}
		}
	}
	return nil
}

func column(tbl *schema.Table, rec arrow.RecordBatch, name string) arrow.Array {
	for i, c := range tbl.Columns {
		if c.Name == name {
			return rec.Column(i)
		}
	}
	panic("no column " + name)
}

// renderKey renders a row's key columns.
func renderKey(tbl *schema.Table, rec arrow.RecordBatch, row int) string {
	var parts []string
	for _, k := range tbl.Key {
		parts = append(parts, value(column(tbl, rec, k), row))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// renderRow renders a row as a JSON object, columns in order.
func renderRow(rec arrow.RecordBatch, row int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, col := range rec.Columns() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(rec.ColumnName(i)))
		b.WriteByte(':')
		b.WriteString(value(col, row))
	}
	b.WriteByte('}')
	return b.String()
}

// value renders one value as JSON: timestamps RFC 3339 UTC, dates
// YYYY-MM-DD, nulls null.
func value(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "null"
	}
	switch a := col.(type) {
	case *array.String:
		return jsonString(a.Value(i))
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Float64:
		v := a.Value(i)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return jsonString(fmt.Sprint(v))
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.Timestamp:
		return jsonString(time.UnixMicro(int64(a.Value(i))).UTC().Format(time.RFC3339Nano))
	case *array.Date32:
		return jsonString(a.Value(i).FormattedString())
	}
	panic(fmt.Sprintf("no rendering for %T", col))
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func sortStrings(s []string) { sort.Strings(s) }
