package load

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/schema"
)

// appendRows appends the rows of rec whose index keep accepts to t, in the
// session's transaction, through DuckDB's appender. rec's schema is
// t.Arrow(). It returns the rows appended.
//
// Land writes this way rather than through a registered Arrow view: each
// duckdb_arrow_scan registration, and each statement binding the view,
// leaves the exported Arrow schema unreleased in the C heap (the scan
// nulls the schema's release callback, duckdb/duckdb#16050), never freed:
// a nightly job lands after every few responses, and would leak with each.
// A landing is a few hundred rows, so the appender's value-by-value copy
// costs nothing that shows; Load's batches of many thousand rows keep the
// Arrow scan, which the appender would slow (BenchmarkLand, BenchmarkLoad).
func (s *session) appendRows(t *schema.Table, rec arrow.RecordBatch, keep func(int) bool) (int64, error) {
	for _, c := range t.Columns {
		if c.Type == schema.JSON {
			// duckdb-go's appender marshals a value for a JSON column
			// with encoding/json: a JSON text would land as a JSON string.
			return 0, fmt.Errorf("load: %s.%s is JSON, which the appender would encode again", t.Name, c.Name)
		}
	}
	values := make([]func(int) driver.Value, rec.NumCols())
	for i := range values {
		v, err := columnValues(rec.Column(i))
		if err != nil {
			return 0, fmt.Errorf("%s.%s: %w", t.Name, rec.Schema().Field(i).Name, err)
		}
		values[i] = v
	}
	app, err := duckdb.NewAppenderWithColumns(s.conn, "", "", t.Name, t.ColumnNames())
	if err != nil {
		return 0, err
	}
	row := make([]driver.Value, len(values))
	var n int64
	for r := range int(rec.NumRows()) {
		if !keep(r) {
			continue
		}
		for c, value := range values {
			row[c] = nil
			if rec.Column(c).IsValid(r) {
				row[c] = value(r)
			}
		}
		if err := app.AppendRow(row...); err != nil {
			return 0, errors.Join(err, app.Close())
		}
		n++
	}
	return n, app.Close()
}

// columnValues reads the valid values of an Arrow column of the
// warehouse's types as the appender takes them.
func columnValues(col arrow.Array) (func(int) driver.Value, error) {
	switch c := col.(type) {
	case *array.String:
		return valueAt(c), nil
	case *array.Binary:
		return valueAt(c), nil
	case *array.Int64:
		return valueAt(c), nil
	case *array.Int32:
		return valueAt(c), nil
	case *array.Float64:
		return valueAt(c), nil
	case *array.Boolean:
		return valueAt(c), nil
	case *array.Date32:
		return func(i int) driver.Value { return c.Value(i).ToTime() }, nil
	case *array.Timestamp:
		if arrow.TypeEqual(c.DataType(), schema.TimestampType) {
			return func(i int) driver.Value { return time.UnixMicro(int64(c.Value(i))).UTC() }, nil
		}
	}
	return nil, fmt.Errorf("type %s is not one of the warehouse's", col.DataType())
}

// valueAt reads a column whose Go values the appender takes as they are.
func valueAt[T any](c interface{ Value(int) T }) func(int) driver.Value {
	return func(i int) driver.Value { return c.Value(i) }
}

// stringsIn lists the values of column col of table t, restricted to the
// given partitions, that are among vals. It filters with list_contains
// over a list literal: DuckDB plans "col IN (…)" of many values as a join,
// and each join parks C heap in DuckDB's eviction queues until they are
// purged or the database closes.
func (s *session) stringsIn(ctx context.Context, t *schema.Table, col string, parts []day, vals []string) (map[string]bool, error) {
	lits := make([]string, len(vals))
	for i, v := range vals {
		lits[i] = literal(v)
	}
	q := fmt.Sprintf("SELECT %s FROM %s WHERE %s IN (%s) AND list_contains([%s], %s)", ident(col), ident(t.Name),
		ident(t.Partition), partList(parts), strings.Join(lits, ", "), ident(col))
	got, err := s.strings(ctx, q)
	if err != nil {
		return nil, err
	}
	present := make(map[string]bool, len(got))
	for _, v := range got {
		present[v] = true
	}
	return present, nil
}
