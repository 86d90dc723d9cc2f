package load_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/etalake/etalake/bench/cheap"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
)

// synthetic builds n rows of tbl, keys made unique by offset+i, spread
// over ten days: every Varchar column holds its name and the row number,
// every Timestamp the same instant (so First = Last, and observed_at of an
// Append table carries the key), and the partition its date.
func synthetic(tbl *schema.Table, offset, n int) arrow.RecordBatch {
	return syntheticDays(tbl, offset, n, 0, 10)
}

// syntheticDays is synthetic over the given number of days from day
// first (counted from 2024-01-01).
func syntheticDays(tbl *schema.Table, offset, n, first, days int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, tbl.Arrow())
	defer b.Release()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, first)
	for i := offset; i < offset+n; i++ {
		at := base.Add(time.Duration(i%days)*24*time.Hour + time.Duration(i)*time.Microsecond)
		for j, name := range tbl.ColumnNames() {
			c, _ := tbl.Column(name)
			switch f := b.Field(j).(type) {
			case *array.StringBuilder:
				if c.Type == schema.JSON {
					f.Append(fmt.Sprintf(`{"n":%d}`, i))
				} else {
					f.Append(fmt.Sprintf("%s-%d", c.Name, i))
				}
			case *array.Int64Builder:
				f.Append(int64(i))
			case *array.Int32Builder:
				f.Append(int32(i % 1000))
			case *array.Float64Builder:
				f.Append(float64(i) / 7)
			case *array.BooleanBuilder:
				f.Append(i%2 == 0)
			case *array.TimestampBuilder:
				f.Append(arrow.Timestamp(at.UnixMicro()))
			case *array.Date32Builder:
				f.Append(arrow.Date32FromTime(at))
			case *array.BinaryBuilder:
				f.Append([]byte(c.Name))
			default:
				panic(fmt.Sprintf("synthetic: %T", f))
			}
		}
	}
	return b.NewRecordBatch()
}

// withoutNullable is rec with every nullable column null; it releases
// rec.
func withoutNullable(rec arrow.RecordBatch) arrow.RecordBatch {
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		if f.Nullable {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, f.Type, int(rec.NumRows()))
			defer cols[i].Release()
		} else {
			cols[i] = rec.Column(i)
		}
	}
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
}

func benchWarehouse(b *testing.B) *load.Warehouse {
	b.Helper()
	w, err := load.Open(b.Context(), b.TempDir(), load.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// cHeapFrom starts measuring the C heap; the function it returns reports
// the bytes the benchmark's operations left in use, per operation
// ("cheap-B/op"): what DuckDB and the Arrow C interface allocated with
// malloc and kept, the memory that grows a long import where Go's heap
// and DuckDB's memory limit do not. Nothing is reported where the C heap
// cannot be read (package cheap).
func cHeapFrom(b *testing.B) func() {
	before, ok := cheap.InUse()
	return func() {
		after, _ := cheap.InUse()
		if ok && b.N > 0 {
			b.ReportMetric(float64(after-before)/float64(b.N), "cheap-B/op")
		}
	}
}

// BenchmarkLoad measures Load into an on-disk warehouse: "first" into an
// empty table, "again" the same rows into a table that holds them (the
// replay case: nothing changes), and for the tables of an entity's latest
// state "newer" the same values observed a day later each time (the
// nightly case: every row touched) and for a dimension "poorer" the same
// a day later each time, every other time without any nullable value (a
// source that names places without their details).
func BenchmarkLoad(b *testing.B) {
	for _, tbl := range []*schema.Table{schema.ETAObservations, schema.ContainerEvents, schema.Locations} {
		for _, n := range []int{10_000, 100_000} {
			rec := synthetic(tbl, 0, n)
			batch := []schema.Rows{{Table: tbl, Rec: rec}}
			b.Run(fmt.Sprintf("%s/%s/rows=%d/first", tbl.Kind, tbl.Name, n), func(b *testing.B) {
				w := benchWarehouse(b)
				for b.Loop() {
					b.StopTimer()
					if err := w.Reset(b.Context(), []*schema.Table{tbl}); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if _, err := w.Load(b.Context(), batch); err != nil {
						b.Fatal(err)
					}
				}
				reportRows(b, n)
			})
			b.Run(fmt.Sprintf("%s/%s/rows=%d/again", tbl.Kind, tbl.Name, n), func(b *testing.B) {
				w := benchWarehouse(b)
				if _, err := w.Load(b.Context(), batch); err != nil {
					b.Fatal(err)
				}
				defer cHeapFrom(b)()
				for b.Loop() {
					st, err := w.Load(b.Context(), batch)
					if err != nil || st.Rows[tbl.Name] != 0 {
						b.Fatal(st, err)
					}
				}
				reportRows(b, n)
			})
			for _, how := range []string{"newer", "poorer"} {
				if tbl.Last == "" || how == "poorer" && tbl.Kind != schema.Dimension {
					continue
				}
				b.Run(fmt.Sprintf("%s/%s/rows=%d/%s", tbl.Kind, tbl.Name, n, how), func(b *testing.B) {
					w := benchWarehouse(b)
					if _, err := w.Load(b.Context(), batch); err != nil {
						b.Fatal(err)
					}
					later := 1
					for b.Loop() {
						b.StopTimer()
						rec := syntheticDays(tbl, 0, n, later, 10)
						if how == "poorer" && later%2 == 1 {
							rec = withoutNullable(rec)
						}
						later++
						b.StartTimer()
						st, err := w.Load(b.Context(), []schema.Rows{{Table: tbl, Rec: rec}})
						rec.Release()
						if err != nil || st.Rows[tbl.Name] != int64(n) {
							b.Fatal(st, err)
						}
					}
					reportRows(b, n)
				})
			}
			rec.Release()
		}
	}
}

// BenchmarkLoadGrowing loads batches of new keys, all of one new day, into
// a table that already holds a million rows over a hundred days: the
// Append merge reads only the batch's partition of the table, the Latest
// and Dimension merges join the whole table (their rows can move between
// partitions).
func BenchmarkLoadGrowing(b *testing.B) {
	const held, n, days = 1_000_000, 10_000, 100
	for _, tbl := range []*schema.Table{schema.ETAObservations, schema.ContainerEvents, schema.Locations} {
		b.Run(fmt.Sprintf("%s/%s/held=%d/rows=%d", tbl.Kind, tbl.Name, held, n), func(b *testing.B) {
			w := benchWarehouse(b)
			for off := 0; off < held; off += 100_000 {
				rec := syntheticDays(tbl, off, 100_000, 0, days)
				_, err := w.Load(b.Context(), []schema.Rows{{Table: tbl, Rec: rec}})
				rec.Release()
				if err != nil {
					b.Fatal(err)
				}
			}
			off := held
			for b.Loop() {
				b.StopTimer()
				rec := syntheticDays(tbl, off, n, days+off/n, 1)
				off += n
				b.StartTimer()
				_, err := w.Load(b.Context(), []schema.Rows{{Table: tbl, Rec: rec}})
				rec.Release()
				if err != nil {
					b.Fatal(err)
				}
			}
			reportRows(b, n)
		})
	}
}

// BenchmarkSyncParquet rewrites every partition (ten days) of a table.
// BenchmarkSyncParquet writes every partition of a table (a replay's
// end) and one partition of a year of them (a nightly run's), with the
// new version of the mirror linking every partition it does not write.
func BenchmarkSyncParquet(b *testing.B) {
	ways := []struct {
		name  string
		setup func(*load.Warehouse)
	}{{"versioned", func(*load.Warehouse) {}}}
	for _, way := range ways {
		for _, n := range []int{100_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/all/eta_observations/rows=%d", way.name, n), func(b *testing.B) {
				w := benchWarehouse(b)
				way.setup(w)
				loadSynthetic(b, w, n)
				var bytes int64
				for b.Loop() {
					b.StopTimer()
					if _, err := w.DB().ExecContext(b.Context(), `INSERT INTO parquet_pending
					SELECT DISTINCT 'eta_observations', observed_date FROM eta_observations`); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					st, err := w.SyncParquet(b.Context())
					if err != nil || st.Rows != int64(n) {
						b.Fatal(st, err)
					}
					bytes = st.Bytes
				}
				reportRows(b, n)
				b.ReportMetric(float64(bytes)/float64(n), "bytes/row")
			})
		}
		b.Run(fmt.Sprintf("%s/one-of-365/eta_observations", way.name), func(b *testing.B) {
			w := benchWarehouse(b)
			way.setup(w)
			if _, err := w.DB().ExecContext(b.Context(), `INSERT INTO eta_observations (shipment_number, shipment_type, target, source, observed_at, locode, eta, is_actual, response_id, observed_date)
				SELECT 'S' || i, 'CT', 'POD', 'CARRIER', TIMESTAMP '2024-01-01' + INTERVAL (i % 365) DAY, 'NLRTM', TIMESTAMP '2025-03-01', false, 'r' || i,
					DATE '2024-01-01' + (i % 365)::INT
				FROM range(365000) t(i);
				INSERT INTO parquet_pending SELECT DISTINCT 'eta_observations', observed_date FROM eta_observations`); err != nil {
				b.Fatal(err)
			}
			if _, err := w.SyncParquet(b.Context()); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				if _, err := w.DB().ExecContext(b.Context(), `INSERT INTO parquet_pending VALUES ('eta_observations', DATE '2024-07-01')`); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if st, err := w.SyncParquet(b.Context()); err != nil || st.Written != 1 {
					b.Fatal(st, err)
				}
			}
		})
	}
}

// loadSynthetic loads n synthetic ETA observations into w.
func loadSynthetic(b *testing.B, w *load.Warehouse, n int) {
	b.Helper()
	for off := 0; off < n; off += 100_000 {
		rec := synthetic(schema.ETAObservations, off, min(100_000, n-off))
		_, err := w.Load(b.Context(), []schema.Rows{{Table: schema.ETAObservations, Rec: rec}})
		rec.Release()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMirrorReadDuringSyncs is a reader looping over a table of the
// mirror, in a DuckDB of its own, while syncs add a row to each of three
// partitions of it at once; it reports the share of its reads that
// counted partitions of two syncs ("mixed/read": the count not a multiple
// of three). A read mixes only when it listed the files through the
// link of one version and opened some through the link of the next:
// DuckDB opens them as it scans.
func BenchmarkMirrorReadDuringSyncs(b *testing.B) {
	for _, way := range []struct {
		name  string
		setup func(*load.Warehouse)
	}{{"versioned", func(*load.Warehouse) {}}} {
		b.Run(way.name, func(b *testing.B) {
			w := benchWarehouse(b)
			way.setup(w)
			reader, err := sql.Open("duckdb", "")
			if err != nil {
				b.Fatal(err)
			}
			defer reader.Close()
			q := fmt.Sprintf("SELECT count(*) FROM read_parquet('%s', hive_partitioning=true)",
				filepath.Join(w.Dir(), "parquet", "eta_observations", "**", "*.parquet"))
			add := func(i int) {
				_, err := w.DB().ExecContext(b.Context(), fmt.Sprintf(`INSERT INTO eta_observations (shipment_number, shipment_type, target, source, observed_at, locode, eta, is_actual, response_id, observed_date)
					SELECT 'S%[1]d', 'CT', 'POD', 'CARRIER', TIMESTAMP '2024-01-01' + INTERVAL (d) DAY, 'NLRTM', TIMESTAMP '2025-03-01', false, 'r%[1]d-' || d,
						DATE '2024-01-01' + d::INT FROM range(3) t(d);
					INSERT INTO parquet_pending SELECT 'eta_observations', DATE '2024-01-01' + d::INT FROM range(3) t(d)`, i))
				if err == nil {
					_, err = w.SyncParquet(b.Context())
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			add(0) // the table exists before the reader starts
			ctx, stop := context.WithCancel(b.Context())
			var wg sync.WaitGroup
			var reads, mixed, failed int
			wg.Go(func() {
				for ctx.Err() == nil {
					var n int64
					err := reader.QueryRowContext(ctx, q).Scan(&n)
					switch {
					case ctx.Err() != nil:
					case err != nil:
						failed++
					case n%3 != 0:
						mixed++
					}
					reads++
				}
			})
			i := 0
			for b.Loop() {
				i++
				add(i)
			}
			stop()
			wg.Wait()
			b.ReportMetric(float64(mixed)/float64(max(reads, 1)), "mixed/read")
			b.ReportMetric(float64(failed)/float64(max(reads, 1)), "failed/read")
			b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
		})
	}
}

// BenchmarkIngest compares the two ways into DuckDB for rows that are
// Arrow records already: an INSERT from the registered Arrow view (what
// Load does, before its merge) and duckdb-go's row Appender fed from the
// same record, into an empty on-disk table.
func BenchmarkIngest(b *testing.B) {
	tbl := schema.ETAObservations
	for _, n := range []int{10_000, 100_000} {
		rec := synthetic(tbl, 0, n)
		for _, way := range []struct {
			name string
			fn   func(ctx context.Context, c driver.Conn) error
		}{
			{"arrow-view", func(ctx context.Context, c driver.Conn) error {
				ar, err := duckdb.NewArrowFromConn(c)
				if err != nil {
					return err
				}
				rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
				if err != nil {
					return err
				}
				defer rr.Release()
				release, err := ar.RegisterView(rr, "bench_in")
				if err != nil {
					return err
				}
				defer release()
				_, err = c.(driver.ExecerContext).ExecContext(ctx, "INSERT INTO bench SELECT * FROM bench_in", nil)
				return err
			}},
			{"appender", func(ctx context.Context, c driver.Conn) error {
				app, err := duckdb.NewAppenderFromConn(c, "", "bench")
				if err != nil {
					return err
				}
				vals := make([]driver.Value, rec.NumCols())
				for i := range int(rec.NumRows()) {
					for j, col := range rec.Columns() {
						vals[j] = goValue(col, i)
					}
					if err := app.AppendRow(vals...); err != nil {
						return err
					}
				}
				return app.Close()
			}},
		} {
			b.Run(fmt.Sprintf("%s/rows=%d", way.name, n), func(b *testing.B) {
				w := benchWarehouse(b)
				ctx := b.Context()
				if _, err := w.DB().ExecContext(ctx, "CREATE TABLE bench AS SELECT * FROM eta_observations LIMIT 0"); err != nil {
					b.Fatal(err)
				}
				conn, err := w.DB().Conn(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close()
				for b.Loop() {
					b.StopTimer()
					if _, err := conn.ExecContext(ctx, "DELETE FROM bench"); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if err := conn.Raw(func(dc any) error { return way.fn(ctx, dc.(driver.Conn)) }); err != nil {
						b.Fatal(err)
					}
				}
				reportRows(b, n)
			})
		}
		rec.Release()
	}
}

// goValue is the Go value of row i of an Arrow column, for the Appender.
func goValue(col arrow.Array, i int) driver.Value {
	if col.IsNull(i) {
		return nil
	}
	switch a := col.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Timestamp:
		return time.UnixMicro(int64(a.Value(i))).UTC()
	case *array.Date32:
		return a.Value(i).ToTime()
	case *array.Binary:
		return a.Value(i)
	}
	panic(fmt.Sprintf("goValue: %T", col))
}

// BenchmarkLand lands responses of 20 kB (a port schedule), one per call
// as a job lands them, and a hundred per call as an import does.
func BenchmarkLand(b *testing.B) {
	body := []byte(strings.Repeat(`{"carrierServiceCode":"AE7","vesselIMONumber":"9321483","eventDateTime":"2024-03-01T10:00:00Z"},`, 200))
	for _, per := range []int{1, 100} {
		b.Run(fmt.Sprintf("per-call=%d", per), func(b *testing.B) {
			w := benchWarehouse(b)
			rs := make([]response.Landed, per)
			i := 0
			defer cHeapFrom(b)()
			for b.Loop() {
				for j := range rs {
					rs[j] = fetched(t0.Add(time.Duration(i)*time.Millisecond), "")
					rs[j].Body = body
					i++
				}
				if n, err := w.Land(b.Context(), ptrs(rs)...); err != nil || n != per {
					b.Fatal(n, err)
				}
			}
			reportRows(b, per)
		})
	}
}

// BenchmarkRaw reads back every landed response, as a full replay does.
func BenchmarkRaw(b *testing.B) {
	const n = 20_000
	body := []byte(strings.Repeat(`{"carrierServiceCode":"AE7","vesselIMONumber":"9321483","eventDateTime":"2024-03-01T10:00:00Z"},`, 50))
	w := benchWarehouse(b)
	rs := make([]response.Landed, 0, 1000)
	for i := range n {
		r := fetched(t0.Add(time.Duration(i)*time.Second), "")
		r.Body = append(body, fmt.Sprint(i)...)
		if rs = append(rs, r); len(rs) == cap(rs) {
			if _, err := w.Land(b.Context(), ptrs(rs)...); err != nil {
				b.Fatal(err)
			}
			rs = rs[:0]
		}
	}
	for b.Loop() {
		got := 0
		err := w.Raw(b.Context(), load.RawFilter{}, func(*response.Landed) error { got++; return nil })
		if err != nil || got != n {
			b.Fatal(got, err)
		}
	}
	reportRows(b, n)
}
