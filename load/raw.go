package load

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
)

// The sources of a landed response, as load names them in its queries.
const (
	SourceFetch  = response.SourceFetch
	SourceImport = response.SourceImport
	SourcePush   = response.SourcePush
)

// ResponseID is the content-derived id of a response: the first 32 hex
// digits of a SHA-256 over its product, endpoint, request, status,
// observed_at and body, so the same response landed twice (by a retry of a
// run, a second run, an import) is one row. Run, fetch time, attempt and
// source do not enter it. Each field is hashed as an 8-byte big-endian
// length and its bytes; status as decimal digits; observed_at as decimal
// Unix nanoseconds of its value truncated to the microsecond (as stored),
// so the id of a response read back by Raw is the id it was landed with.
// A broken answer (Broken) also hashes its fetched_at, likewise.
//
// A body kept in a file (File) is hashed once, by HashBodyFile, into
// File.ID, which ResponseID returns: the same id as the same bytes in Body.
func ResponseID(r *response.Landed) string {
	if r.File != nil {
		return r.File.ID
	}
	h := sha256.New()
	responseHashHead(h, r)
	idField(h, r.Body, int64(len(r.Body)))
	responseHashTail(h, r)
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// idField hashes one field of ResponseID: its length n as 8 bytes
// big-endian, then b (which a caller may stream itself instead).
func idField(h io.Writer, b []byte, n int64) {
	var l [8]byte
	binary.BigEndian.PutUint64(l[:], uint64(n))
	h.Write(l[:])
	h.Write(b)
}

// responseHashHead hashes the fields of ResponseID before the body.
func responseHashHead(h io.Writer, r *response.Landed) {
	str := func(s string) { idField(h, []byte(s), int64(len(s))) }
	str(string(r.Product))
	str(string(r.Endpoint))
	str(r.Request)
	str(strconv.Itoa(r.Status))
	str(strconv.FormatInt(r.ObservedAt.Truncate(time.Microsecond).UnixNano(), 10))
}

// responseHashTail hashes the fields of ResponseID after the body.
func responseHashTail(h io.Writer, r *response.Landed) {
	if r.Broken != "" || r.PagingStop != "" {
		// Two transfers that broke alike, or two walks that stopped
		// alike, are two failed asks, not one answer landed twice: the
		// cap on asking again counts them.
		s := strconv.FormatInt(r.FetchedAt.Truncate(time.Microsecond).UnixNano(), 10)
		idField(h, []byte(s), int64(len(s)))
	}
}

// check refuses a response that cannot be landed.
func check(r *response.Landed) error {
	var missing []string
	for name, v := range map[string]string{"run id": r.RunID, "product": string(r.Product), "endpoint": string(r.Endpoint), "resource": r.Resource, "request": r.Request} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if r.FetchedAt.IsZero() {
		missing = append(missing, "fetched at")
	}
	if r.ObservedAt.IsZero() {
		missing = append(missing, "observed at")
	}
	if len(missing) > 0 {
		return invalidf("raw response %s %s: no %s", r.Endpoint, r.Request, strings.Join(missing, ", "))
	}
	if r.Source != SourceFetch && r.Source != SourceImport && r.Source != SourcePush {
		return invalidf("raw response %s %s: source %q, want %q, %q or %q", r.Endpoint, r.Request, r.Source, SourceFetch, SourceImport, SourcePush)
	}
	if r.File != nil && (len(r.Body) > 0 || r.File.ID == "") {
		return invalidf("raw response %s %s: a body file with a body in memory too, or not hashed (HashBodyFile)", r.Endpoint, r.Request)
	}
	return nil
}

// Land stores responses in raw_responses in one transaction, each only if
// its ResponseID is not there yet, sets each one's ID, and returns how
// many were new. Bodies are stored zstd-compressed, with their size and
// SHA-256: in the row, or, for a body kept in a file (File), streamed to
// the body store (bodies.go) and named by the row's body_file.
func (w *Warehouse) Land(ctx context.Context, rs ...*response.Landed) (landed int, err error) {
	if len(rs) == 0 {
		return 0, nil
	}
	for _, r := range rs {
		if err := check(r); err != nil {
			return 0, err
		}
		r.ID = ResponseID(r)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return 0, errClosed
	}
	// The bodies kept in files go to the body store first: a row never
	// names a file that is not whole on disk.
	stored := map[*response.BodyFile]string{}
	for _, r := range rs {
		if r.File == nil {
			continue
		}
		name, err := w.storeBody(r)
		if err != nil {
			return 0, fmt.Errorf("load: land: %w", err)
		}
		stored[r.File] = filepath.ToSlash(name)
	}
	rec, all := w.rawRecord(rs, stored)
	defer rec.Release()
	parts, err := distinctDays(rec, schema.RawResponses)
	if err != nil {
		return 0, err
	}
	var n int64
	err = w.inTx(ctx, func(s *session) error {
		// A response id is a function of observed_at, so a landed copy
		// is in the partition of its observed_date.
		present, err := s.stringsIn(ctx, schema.RawResponses, idColumn, parts, all)
		if err != nil {
			return err
		}
		n, err = s.appendRows(schema.RawResponses, rec, func(i int) bool { return !present[all[i]] })
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("load: land: %w", err)
	}
	// A long job (an import of months) moves its bodies to a segment as
	// it goes, so that the database never holds more than about
	// Options.SegmentFlush bytes of them. A failure here loses nothing —
	// the bodies stay in the database — and the publish, which segments
	// what is left, says it. (writeSegment resets the count.)
	for _, r := range rs {
		if r.File == nil {
			w.unsegmented += int64(len(r.Body))
		}
	}
	if w.unsegmented >= w.opt.SegmentFlush {
		_ = w.writeSegment(ctx, &SyncStats{})
	}
	return int(n), nil
}

// rawRecord builds the raw_responses rows of rs, one per response id (the
// first response of an id; the others are the same response landed again),
// and returns the ids in the order of its rows. stored names the body
// store's file of each body kept in a file.
func (w *Warehouse) rawRecord(rs []*response.Landed, stored map[*response.BodyFile]string) (arrow.RecordBatch, []string) {
	rb := newRowBuilder(schema.RawResponses)
	defer rb.b.Release()
	seen := make(map[string]bool, len(rs))
	var ids []string
	for _, r := range rs {
		id := r.ID
		if seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
		rb.str("response_id", id)
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
		if r.File != nil {
			rb.b.Field(rb.idx["body_bytes"]).(*array.Int64Builder).Append(r.File.Size)
			rb.str("body_sha256", r.File.SHA256)
			rb.b.Field(rb.idx["body"]).AppendNull()
			rb.optStr("body_file", stored[r.File])
		} else {
			sum := sha256.Sum256(r.Body)
			rb.b.Field(rb.idx["body_bytes"]).(*array.Int64Builder).Append(int64(len(r.Body)))
			rb.str("body_sha256", hex.EncodeToString(sum[:]))
			rb.b.Field(rb.idx["body"]).(*array.BinaryBuilder).Append(w.enc.EncodeAll(r.Body, nil))
			rb.optStr("body_file", "")
		}
		observed := r.ObservedAt.UTC()
		rb.date("observed_date", &observed)
		rb.optStr("next_page", r.NextPage)
		rb.optStr("broken", r.Broken)
		rb.optStr("paging_stop", r.PagingStop)
		rb.optStr("segment", "") // a publish writes it to a segment (segments.go)
	}
	return rb.b.NewRecordBatch(), ids
}

// rowBuilder appends values to a table's record by column name.
type rowBuilder struct {
	b   *array.RecordBuilder
	idx map[string]int
}

func newRowBuilder(t *schema.Table) rowBuilder {
	idx := map[string]int{}
	for i, c := range t.Columns {
		idx[c.Name] = i
	}
	return rowBuilder{b: array.NewRecordBuilder(memory.DefaultAllocator, t.Arrow()), idx: idx}
}

func (rb rowBuilder) str(col, v string) {
	rb.b.Field(rb.idx[col]).(*array.StringBuilder).Append(v)
}

// optStr appends v, or NULL for "".
func (rb rowBuilder) optStr(col, v string) {
	f := rb.b.Field(rb.idx[col]).(*array.StringBuilder)
	if v == "" {
		f.AppendNull()
		return
	}
	f.Append(v)
}

func (rb rowBuilder) i32(col string, v int) {
	rb.b.Field(rb.idx[col]).(*array.Int32Builder).Append(int32(v))
}

func (rb rowBuilder) ts(col string, v *time.Time) {
	f := rb.b.Field(rb.idx[col]).(*array.TimestampBuilder)
	if v == nil {
		f.AppendNull()
		return
	}
	f.Append(arrow.Timestamp(v.UnixMicro()))
}

// date appends the calendar date of v in its own location.
func (rb rowBuilder) date(col string, v *time.Time) {
	f := rb.b.Field(rb.idx[col]).(*array.Date32Builder)
	if v == nil {
		f.AppendNull()
		return
	}
	f.Append(arrow.Date32(dayOf(*v)))
}

// RawFilter selects landed responses; its zero value selects all.
type RawFilter struct {
	// Since and Until bound observed_at: Since ≤ observed_at < Until; a zero
	// bound is open.
	Since, Until time.Time
	Statuses     []int    // only these HTTP statuses; empty: all
	Endpoints    []string // only these endpoints; empty: all
	Products     []string // only these products; empty: all
	// Underived selects only responses whose rows were never loaded (see
	// Load): after a crash between landing and loading, the next run
	// derives them.
	Underived bool
	// IDs, when not empty, selects only these responses.
	IDs []string
	// Unsegmented selects only responses no body segment holds yet
	// (segments.go).
	Unsegmented bool
}

// whereSQL renders conditions as a WHERE clause (with its leading
// space), or nothing when there are none.
func whereSQL(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// where renders the filter as SQL conditions and their arguments.
func (f RawFilter) where() ([]string, []any) {
	var conds []string
	var args []any
	if !f.Since.IsZero() {
		conds = append(conds, "observed_at >= ?")
		args = append(args, f.Since.UTC())
	}
	if !f.Until.IsZero() {
		conds = append(conds, "observed_at < ?")
		args = append(args, f.Until.UTC())
	}
	in := func(col string, n int) {
		conds = append(conds, fmt.Sprintf("%s IN (%s)", col, strings.TrimSuffix(strings.Repeat("?, ", n), ", ")))
	}
	if len(f.Statuses) > 0 {
		in("status", len(f.Statuses))
		for _, s := range f.Statuses {
			args = append(args, int32(s))
		}
	}
	if len(f.Endpoints) > 0 {
		in("endpoint", len(f.Endpoints))
		for _, s := range f.Endpoints {
			args = append(args, s)
		}
	}
	if len(f.Products) > 0 {
		in("product", len(f.Products))
		for _, s := range f.Products {
			args = append(args, s)
		}
	}
	if f.Underived {
		conds = append(conds, "response_id NOT IN (SELECT response_id FROM raw_derived)")
	}
	if f.Unsegmented {
		conds = append(conds, "segment IS NULL")
	}
	if len(f.IDs) > 0 {
		// A list literal, not IN (…): DuckDB plans a long IN list as a
		// join, and a list of ids as one filter.
		lits := make([]string, len(f.IDs))
		for i, id := range f.IDs {
			lits[i] = literal(id)
		}
		conds = append(conds, fmt.Sprintf("list_contains([%s], response_id)", strings.Join(lits, ", ")))
	}
	return conds, args
}

// rawPage is how many responses Raw reads per query: the memory Raw holds
// is one page of compressed bodies (a few MB) and one decompressed body.
// Each page is a top-N query from the last one's (observed_at,
// response_id); DuckDB prunes the row groups before it by their min/max.
const rawPage = 1024

// Raw calls fn with every landed response the filter selects, its ID set,
// oldest observed_at first (ties by response id), bodies decompressed and
// checked against their SHA-256 — but a body kept in the body store,
// which comes with File set (Compressed) and Body nil: ReadBody reads it.
// It reads a page at a time and holds no query open while fn runs, so fn
// may Load or Land. fn may keep r only until it returns. An error of fn
// stops the iteration and is returned.
func (w *Warehouse) Raw(ctx context.Context, f RawFilter, fn func(r *response.Landed) error) error {
	return w.rawRows(ctx, f, func(p *rawRow) error { return fn(&p.r) })
}

// rawRows is Raw, handing fn each row as read: the response, with its
// stored SHA-256 and body file.
func (w *Warehouse) rawRows(ctx context.Context, f RawFilter, fn func(p *rawRow) error) error {
	if w.db == nil {
		return errClosed
	}
	conds, args := f.where()
	var after *rawRow
	for {
		c, a := conds, args
		if after != nil {
			c = append(c[:len(c):len(c)], "(observed_at > ? OR (observed_at = ? AND response_id > ?))")
			a = append(a[:len(a):len(a)], after.r.ObservedAt, after.r.ObservedAt, after.r.ID)
		}
		page, err := w.rawPage(ctx, c, a)
		if err != nil {
			return fmt.Errorf("load: raw: %w", err)
		}
		if err := w.segmentBodies(ctx, page); err != nil {
			return err
		}
		for i := range page {
			p := &page[i]
			switch {
			case p.r.Body != nil: // read from its segment, and checked
			case p.file.Valid:
				// Left in its file: the caller reads it (ReadBody) if it
				// may hold it.
				p.r.File = &response.BodyFile{Path: filepath.Join(w.dir, filepath.FromSlash(p.file.String)), Size: p.size, SHA256: p.sum, ID: p.r.ID, Compressed: true}
			default:
				if p.r.Body, err = w.decompress(p); err != nil {
					return err
				}
			}
			if err := fn(p); err != nil {
				return err
			}
			p.r.Body, p.blob = nil, nil
		}
		if len(page) < rawPage {
			return nil
		}
		after = &page[len(page)-1]
	}
}

// RawIDs lists the ids of the landed responses the filter selects, oldest
// first as Raw reads them, without reading their bodies.
func (w *Warehouse) RawIDs(ctx context.Context, f RawFilter) ([]string, error) {
	if w.db == nil {
		return nil, errClosed
	}
	conds, args := f.where()
	q := "SELECT response_id FROM raw_responses" + whereSQL(conds) + " ORDER BY observed_at, response_id"
	ids, err := queryStrings(ctx, w.db, q, args...)
	if err != nil {
		return nil, fmt.Errorf("load: raw ids: %w", err)
	}
	return ids, nil
}

// queryStrings runs a query of one VARCHAR column on db and returns its
// values.
func queryStrings(ctx context.Context, db *sql.DB, q string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// rawRow is a landed response as read, body still compressed.
type rawRow struct {
	r    response.Landed
	sum  string
	size int64
	blob []byte
	file sql.NullString // body_file
	// segment holds the body when blob is NULL (segments.go).
	segment sql.NullString
}

const rawColumns = `response_id, run_id, product, endpoint, resource, request, status, fetched_at, observed_at,
date_header, attempt, source, logical_date, body_bytes, body_sha256, body, next_page, broken, paging_stop, body_file, segment`

// rawPage reads the next page of responses.
func (w *Warehouse) rawPage(ctx context.Context, conds []string, args []any) ([]rawRow, error) {
	q := "SELECT " + rawColumns + " FROM raw_responses" + whereSQL(conds) +
		fmt.Sprintf(" ORDER BY observed_at, response_id LIMIT %d", rawPage)
	rows, err := w.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page []rawRow
	for rows.Next() {
		var p rawRow
		var dateHeader, logical sql.NullTime
		var status, attempt int32
		var next, broken, stop sql.NullString
		if err := rows.Scan(&p.r.ID, &p.r.RunID, &p.r.Product, &p.r.Endpoint, &p.r.Resource, &p.r.Request, &status,
			&p.r.FetchedAt, &p.r.ObservedAt, &dateHeader, &attempt, &p.r.Source, &logical,
			&p.size, &p.sum, &p.blob, &next, &broken, &stop, &p.file, &p.segment); err != nil {
			return nil, err
		}
		p.r.NextPage, p.r.Broken, p.r.PagingStop = next.String, broken.String, stop.String
		p.r.Status, p.r.Attempt = int(status), int(attempt)
		p.r.FetchedAt, p.r.ObservedAt = p.r.FetchedAt.UTC(), p.r.ObservedAt.UTC()
		if dateHeader.Valid {
			t := dateHeader.Time.UTC()
			p.r.DateHeader = &t
		}
		if logical.Valid {
			t := logical.Time.UTC()
			p.r.LogicalDate = &t
		}
		page = append(page, p)
	}
	return page, rows.Err()
}

// decompress restores a landed body and checks it is the one landed.
func (w *Warehouse) decompress(p *rawRow) ([]byte, error) {
	if w.dec == nil {
		return nil, errClosed
	}
	body, err := w.dec.DecodeAll(p.blob, make([]byte, 0, p.size))
	if err != nil {
		return nil, fmt.Errorf("load: raw %s: body: %w", p.r.ID, err)
	}
	return body, checkBody(p, body)
}

// checkBody says whether body is the one landed as p: its stored size
// and SHA-256.
func checkBody(p *rawRow, body []byte) error {
	sum := sha256.Sum256(body)
	if int64(len(body)) != p.size || hex.EncodeToString(sum[:]) != p.sum {
		return fmt.Errorf("load: raw %s: body does not match its stored size and SHA-256", p.r.ID)
	}
	return nil
}
