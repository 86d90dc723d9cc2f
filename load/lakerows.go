package load

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/schema"
)

// The rows a lake commit writes are read one partition (day) at a time,
// each day's query sorted by key, the days in order: the lake's clustered
// writer gets them sorted by partition as one query sorting them all
// would give them, but DuckDB sorts a day's rows, not a table's. The
// first commit of a whole warehouse of 16× history (3.8 million rows)
// peaked at 1 854 MiB read by one query a table, at 839 MiB so, and at
// 667 MiB with the lake's row groups of 122 880 rows (lake/tables.go;
// BENCHMARKS.md).

// lakeQueries are the queries of the rows of t that change selects, one a
// day in day order (one selecting nothing when no day is selected).
func lakeQueries(t *schema.Table, change LakeChange, writer int64) []string {
	var cols []string
	for _, c := range t.Columns {
		cols = append(cols, ident(c.Name))
	}
	keys := []string{ident(t.Partition)}
	for _, c := range t.Key {
		keys = append(keys, ident(c))
	}
	query := func(where string) string {
		return fmt.Sprintf("SELECT %s, CAST(%d AS BIGINT) AS %s FROM %s WHERE %s ORDER BY %s",
			strings.Join(cols, ", "), writer, ident(LakeWriterColumn), ident(t.Name), where, strings.Join(keys, ", "))
	}
	whole := map[day]bool{}
	var days []day
	for _, d := range change.Whole {
		whole[dayOf(d)] = true
		days = append(days, dayOf(d))
	}
	for _, d := range change.Keyed {
		if !whole[dayOf(d)] {
			days = append(days, dayOf(d))
		}
	}
	slices.Sort(days)
	days = slices.Compact(days)
	if len(days) == 0 {
		return []string{query("false")}
	}
	out := make([]string, 0, len(days))
	for _, d := range days {
		one := LakeChange{Keyed: []time.Time{d.Time()}, Keys: change.Keys}
		if whole[d] {
			one = LakeChange{Whole: []time.Time{d.Time()}}
		}
		out = append(out, query(lakeSelection(t, one)))
	}
	return out
}

// dayReader reads the results of queries one after the other, as one
// record reader: one query's result is open at a time. Err is the first
// query's error.
type dayReader struct {
	ctx     context.Context
	ar      *duckdb.Arrow
	queries []string // those not run yet
	cur     array.RecordReader
	err     error
	refs    atomic.Int64
}

func newDayReader(ctx context.Context, ar *duckdb.Arrow, queries []string) (*dayReader, error) {
	r := &dayReader{ctx: ctx, ar: ar, queries: queries[1:]}
	r.refs.Store(1)
	cur, err := ar.QueryContext(ctx, queries[0])
	if err != nil {
		return nil, err
	}
	r.cur = cur
	return r, nil
}

func (r *dayReader) Schema() *arrow.Schema { return r.cur.Schema() }

func (r *dayReader) Next() bool {
	for r.err == nil {
		if r.cur.Next() {
			return true
		}
		if err := r.cur.Err(); err != nil {
			r.err = err
			return false
		}
		if len(r.queries) == 0 {
			return false
		}
		next, err := r.ar.QueryContext(r.ctx, r.queries[0])
		if err != nil {
			r.err = err
			return false
		}
		r.queries = r.queries[1:]
		r.cur.Release()
		r.cur = next
	}
	return false
}

func (r *dayReader) RecordBatch() arrow.RecordBatch { return r.cur.RecordBatch() }

// Record is RecordBatch (array.RecordReader still asks for it).
func (r *dayReader) Record() arrow.RecordBatch { return r.cur.RecordBatch() }

func (r *dayReader) Err() error { return r.err }

func (r *dayReader) Retain() { r.refs.Add(1) }

func (r *dayReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.cur.Release()
	}
}
