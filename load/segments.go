package load

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/etalake/etalake/schema"
)

// Body segments: every publish writes the responses landed since the one
// before to one new file, bodies/segments/<name>.parquet — every column of
// raw_responses but segment, each body as it arrived (Parquet's zstd
// compresses a page of similar answers far better than one answer alone)
// — and points their rows at it (raw_responses.segment), dropping the
// database's copy of their bodies: Raw reads them from the segment, so the
// database holds only the bodies landed since (Land writes a segment as
// well once they pass Options.SegmentFlush). A segment is
// never written again: a backup, a copy or a move of the warehouse
// carries the new segments and nothing else of the bodies. Each version
// links every segment as parquet/raw_responses/<name>.parquet, which the
// readers' raw_responses reads. A segment file is recorded in raw_segments
// in the transaction that points rows at it; one without a row was cut
// off by a crash, and Open removes it.
const segmentsDir = "bodies/segments"

// DefaultSegmentFlush is how many body bytes (as received) Land lets the
// database hold before it writes them to a segment: about 15 MB of the
// database's zstd frames for tracking answers, whatever the job's size.
const DefaultSegmentFlush = 128 << 20

// segmentBatch bounds what a segment's writer holds: responses per row
// group, and their bodies' bytes.
const (
	segmentBatchRows  = 1024
	segmentBatchBytes = 16 << 20
)

// segmentSchema is the Arrow schema of a segment: raw_responses' columns
// but segment, in order.
var segmentSchema = func() *arrow.Schema {
	var fields []arrow.Field
	for _, f := range schema.RawResponses.Arrow().Fields() {
		if f.Name != segmentColumn {
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}()

// segmentColumn is raw_responses' column naming the segment.
const segmentColumn = "segment"

// writeSegment writes the responses no segment holds yet to a new
// segment and records it, and returns how many it wrote (0: nothing new,
// no file). The caller holds w.mu.
func (w *Warehouse) writeSegment(ctx context.Context, st *SyncStats) error {
	var n int64
	if err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM raw_responses WHERE segment IS NULL`).Scan(&n); err != nil || n == 0 {
		return err
	}
	name, err := w.nextSegment(ctx)
	if err != nil {
		return err
	}
	dir := filepath.Join(w.dir, filepath.FromSlash(segmentsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, name)
	rows, bytes, err := w.writeSegmentFile(ctx, path)
	if err != nil {
		return fmt.Errorf("writing body segment %s: %w", name, err)
	}
	rel := segmentsDir + "/" + name
	err = w.inTx(ctx, func(s *session) error {
		// The body now lives in the segment alone: the database keeps
		// the row and drops its copy, so it holds no more bodies than
		// the responses landed since the last publish.
		if _, err := s.exec(ctx, fmt.Sprintf(`UPDATE raw_responses SET segment = %s, body = NULL WHERE segment IS NULL`, literal(rel))); err != nil {
			return err
		}
		_, err := s.exec(ctx, fmt.Sprintf(`INSERT INTO raw_segments VALUES (%s, %d, %d, %s)`, literal(rel), rows, bytes, literal(w.opt.Now().UTC().Format("2006-01-02T15:04:05.999999Z07:00"))))
		return err
	})
	if err != nil {
		return errors.Join(fmt.Errorf("recording body segment %s: %w", name, err), removeIfExists(path))
	}
	st.Segments++
	st.SegmentRows += rows
	w.unsegmented = 0
	return nil
}

// nextSegment is the name of the next segment: s<N>.parquet, N one more
// than the last recorded.
func (w *Warehouse) nextSegment(ctx context.Context) (string, error) {
	var last int64
	err := w.db.QueryRowContext(ctx, `SELECT coalesce(max(CAST(regexp_extract(name, 's(\d+)\.parquet$', 1) AS BIGINT)), 0) FROM raw_segments`).Scan(&last)
	if err != nil {
		return "", fmt.Errorf("numbering the next body segment: %w", err)
	}
	return fmt.Sprintf("s%09d.parquet", last+1), nil
}

// writeSegmentFile writes the responses no segment holds yet to path,
// through a temp file renamed when whole and synced, a row group at a
// time, and returns the responses and bytes written.
func (w *Warehouse) writeSegmentFile(ctx context.Context, path string) (rows, bytes int64, err error) {
	tmp := filepath.Join(filepath.Dir(path), tempPrefix+filepath.Base(path))
	f, err := os.Create(tmp)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if err != nil {
			_ = f.Close() // already closed when the writer was
			_ = os.Remove(tmp)
		}
	}()
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDictionaryFor("body", false),
		parquet.WithDataPageSize(4<<20),
		parquet.WithMaxRowGroupLength(segmentBatchRows),
		parquet.WithAllocator(memory.DefaultAllocator),
	)
	fw, err := pqarrow.NewFileWriter(segmentSchema, f, props, pqarrow.NewArrowWriterProperties())
	if err != nil {
		return 0, 0, err
	}
	b := newSegmentBatch()
	defer b.release()
	flush := func() error {
		if b.rows == 0 {
			return nil
		}
		rec := b.b.NewRecordBatch()
		defer rec.Release()
		b.rows, b.bytes = 0, 0
		return fw.Write(rec)
	}
	err = w.rawRows(ctx, RawFilter{Unsegmented: true}, func(p *rawRow) error {
		b.add(p)
		rows++
		if b.rows >= segmentBatchRows || b.bytes >= segmentBatchBytes {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	// The writer closes the file it was given.
	if err = errors.Join(err, fw.Close()); err != nil {
		return 0, 0, err
	}
	if bytes, err = syncFile(tmp); err != nil {
		return 0, 0, err
	}
	if err = os.Rename(tmp, path); err != nil {
		return 0, 0, err
	}
	return rows, bytes, syncDir(filepath.Dir(path))
}

// segmentBatch builds a segment's rows.
type segmentBatch struct {
	b           *array.RecordBuilder
	idx         map[string]int
	rows, bytes int
}

func newSegmentBatch() *segmentBatch {
	idx := map[string]int{}
	for i, f := range segmentSchema.Fields() {
		idx[f.Name] = i
	}
	return &segmentBatch{b: array.NewRecordBuilder(memory.DefaultAllocator, segmentSchema), idx: idx}
}

func (b *segmentBatch) release() { b.b.Release() }

// add appends a response read back by rawRows: its body as it arrived,
// or NULL when it is in the body store (body_file).
func (b *segmentBatch) add(p *rawRow) {
	r := &p.r
	rb := rowBuilder{b: b.b, idx: b.idx}
	rb.str("response_id", r.ID)
	rb.str("run_id", r.RunID)
	rb.str("product", string(r.Product))
	rb.str("endpoint", string(r.Endpoint))
	rb.str("resource", r.Resource)
	rb.str("request", r.Request)
	rb.i32("status", r.Status)
	rb.ts("fetched_at", &r.FetchedAt)
	rb.ts("observed_at", &r.ObservedAt)
	rb.ts("date_header", r.DateHeader)
	rb.i32("attempt", r.Attempt)
	rb.str("source", r.Source)
	rb.date("logical_date", r.LogicalDate)
	b.b.Field(b.idx["body_bytes"]).(*array.Int64Builder).Append(p.size)
	rb.str("body_sha256", p.sum)
	body := b.b.Field(b.idx["body"]).(*array.BinaryBuilder)
	if p.file.Valid {
		body.AppendNull()
	} else {
		body.Append(r.Body)
	}
	rb.optStr("body_file", p.file.String)
	observed := r.ObservedAt.UTC()
	rb.date("observed_date", &observed)
	rb.optStr("next_page", r.NextPage)
	rb.optStr("broken", r.Broken)
	rb.optStr("paging_stop", r.PagingStop)
	b.rows++
	b.bytes += len(r.Body)
}

// segments lists the recorded segments, relative to the warehouse.
func (w *Warehouse) segments(ctx context.Context) ([]string, error) {
	return queryStrings(ctx, w.db, `SELECT name FROM raw_segments ORDER BY name`)
}

// stageSegments puts raw_responses in the staged version: every recorded
// segment, or for a publish of some tables only (SyncParquet), the
// segments of the version before, so that it shows no response the
// tables beside it were not published with.
func (w *Warehouse) stageSegments(ctx context.Context, cur version, ok bool, only []*schema.Table, stage string, st *SyncStats) error {
	dir := filepath.Join(stage, parquetDir, schema.RawResponses.Name)
	if only == nil {
		return w.linkSegments(ctx, dir, st)
	}
	if !ok {
		return nil
	}
	n, err := linkTree(filepath.Join(cur.dir, parquetDir, schema.RawResponses.Name), dir, nil)
	st.Linked += n
	return err
}

// linkSegments links every recorded segment into dir, the new version's
// parquet/raw_responses.
func (w *Warehouse) linkSegments(ctx context.Context, dir string, st *SyncStats) error {
	names, err := w.segments(ctx)
	if err != nil || len(names) == 0 {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, rel := range names {
		src := filepath.Join(w.dir, filepath.FromSlash(rel))
		if err := linkFile(src, filepath.Join(dir, filepath.Base(rel))); err != nil {
			return fmt.Errorf("linking body segment %s: %w", rel, err)
		}
		st.Linked++
	}
	return nil
}

// sweepSegments removes the segment files no row of raw_segments records
// (a publish killed between the file and its record) and temp files.
func (w *Warehouse) sweepSegments(ctx context.Context) error {
	dir := filepath.Join(w.dir, filepath.FromSlash(segmentsDir))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	names, err := w.segments(ctx)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, n := range names {
		known[filepath.Base(n)] = true
	}
	for _, e := range entries {
		if !known[e.Name()] && (strings.HasPrefix(e.Name(), tempPrefix) || strings.HasSuffix(e.Name(), ".parquet")) {
			if err := removeIfExists(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// segmentBodies fills in the bodies of the page's rows that live in a
// segment (blob NULL, segment set), one query per segment touched. A
// segment's rows are in (observed_at, response_id) order, as Raw reads
// them, so bounding observed_at lets DuckDB skip every row group outside
// the page. Each body is checked against its stored size and SHA-256.
func (w *Warehouse) segmentBodies(ctx context.Context, page []rawRow) error {
	type want struct {
		rows       map[string]*rawRow
		first, end time.Time
	}
	bySegment := map[string]*want{}
	for i := range page {
		p := &page[i]
		if p.blob != nil || !p.segment.Valid || p.file.Valid {
			continue
		}
		g := bySegment[p.segment.String]
		if g == nil {
			g = &want{rows: map[string]*rawRow{}, first: p.r.ObservedAt}
			bySegment[p.segment.String] = g
		}
		g.rows[p.r.ID] = p
		g.end = p.r.ObservedAt
	}
	for rel, g := range bySegment {
		if err := w.readSegmentBodies(ctx, rel, g.first, g.end, g.rows); err != nil {
			return err
		}
	}
	return nil
}

// readSegmentBodies sets the body of each row of rows (by response id)
// from the segment rel, whose rows of theirs are observed from first to
// end, and checks it; a row the segment lacks is an error naming both.
func (w *Warehouse) readSegmentBodies(ctx context.Context, rel string, first, end time.Time, rows map[string]*rawRow) error {
	ids := slices.Collect(maps.Keys(rows))
	path := filepath.Join(w.dir, filepath.FromSlash(rel))
	q := fmt.Sprintf(`SELECT response_id, body FROM read_parquet(%s) WHERE observed_at BETWEEN ? AND ? AND response_id IN (SELECT unnest(?::VARCHAR[]))`, literal(path))
	res, err := w.db.QueryContext(ctx, q, first, end, ids)
	if err != nil {
		return fmt.Errorf("reading bodies from segment %s: %w", rel, err)
	}
	defer res.Close()
	for res.Next() {
		var id string
		var body []byte
		if err := res.Scan(&id, &body); err != nil {
			return fmt.Errorf("reading bodies from segment %s: %w", rel, err)
		}
		if p := rows[id]; p != nil {
			if err := checkBody(p, body); err != nil {
				return err
			}
			p.r.Body = body
			delete(rows, id)
		}
	}
	if err := res.Err(); err != nil {
		return fmt.Errorf("reading bodies from segment %s: %w", rel, err)
	}
	for id := range rows {
		return fmt.Errorf("load: raw %s: its body is not in segment %s, where the database says it is", id, rel)
	}
	return nil
}
