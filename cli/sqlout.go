package cli

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// errQuery matches a query the database refused (bad SQL, a write on the
// read-only warehouse): the user's input, not a failure of etalake.
var errQuery = errors.New("query failed")

// queryFormats are the output formats of Query.
var queryFormats = []string{"table", "csv", "json"}

// maxCell bounds a value in table output; csv and json print values whole.
const maxCell = 80

// query runs one read-only query and writes its result in format: "table"
// (aligned, long values cut with …, NULL shown as NULL), "csv" (a header,
// NULL as an empty field) or "json" (one array of objects, NULL as null,
// times RFC 3339, dates YYYY-MM-DD, blobs base64).
func query(ctx context.Context, db *sql.DB, q string, format string, w io.Writer) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("%w: %w", errQuery, err)
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name()
	}
	var out resultWriter
	switch format {
	case "table":
		out = newTableWriter(w, names)
	case "csv":
		out = newCSVWriter(w, names)
	case "json":
		out = newJSONWriter(w, names)
	default:
		return fmt.Errorf("unknown format %q: want one of %s", format, strings.Join(queryFormats, ", "))
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, v := range vals {
			vals[i] = normalise(v, cols[i].DatabaseTypeName())
		}
		if err := out.row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%w: %w", errQuery, err)
	}
	return out.close()
}

// normalise turns a driver value into what every format prints: dates
// without a time, instants in UTC.
func normalise(v any, dbType string) any {
	t, ok := v.(time.Time)
	if !ok {
		return v
	}
	if dbType == "DATE" {
		return t.UTC().Format(time.DateOnly)
	}
	return t.UTC().Format(time.RFC3339Nano)
}

type resultWriter interface {
	row(vals []any) error
	close() error
}

type tableWriter struct {
	tw *tabwriter.Writer
	n  int
}

func newTableWriter(w io.Writer, names []string) *tableWriter {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(names, "\t"))
	return &tableWriter{tw: tw}
}

func (t *tableWriter) row(vals []any) error {
	cells := make([]string, len(vals))
	for i, v := range vals {
		s := cellText(v, "NULL")
		s = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
		if utf8.RuneCountInString(s) > maxCell {
			s = string([]rune(s)[:maxCell-1]) + "…"
		}
		cells[i] = s
	}
	t.n++
	_, err := fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
	return err
}

func (t *tableWriter) close() error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(t.tw, "(%d rows)\n", t.n)
	if err != nil {
		return err
	}
	return t.tw.Flush()
}

type csvWriter struct{ w *csv.Writer }

func newCSVWriter(w io.Writer, names []string) *csvWriter {
	c := &csvWriter{w: csv.NewWriter(w)}
	_ = c.w.Write(names)
	return c
}

func (c *csvWriter) row(vals []any) error {
	rec := make([]string, len(vals))
	for i, v := range vals {
		rec[i] = cellText(v, "")
	}
	return c.w.Write(rec)
}

func (c *csvWriter) close() error {
	c.w.Flush()
	return c.w.Error()
}

type jsonWriter struct {
	w     io.Writer
	names []string
	n     int
}

func newJSONWriter(w io.Writer, names []string) *jsonWriter {
	return &jsonWriter{w: w, names: names}
}

func (j *jsonWriter) row(vals []any) error {
	sep := ",\n"
	if j.n == 0 {
		sep = "[\n"
	}
	j.n++
	var b strings.Builder
	b.WriteString(sep + "  {")
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(j.names[i])
		val, err := json.Marshal(v)
		if err != nil {
			val, _ = json.Marshal(fmt.Sprint(v))
		}
		b.Write(k)
		b.WriteString(": ")
		b.Write(val)
	}
	b.WriteString("}")
	_, err := io.WriteString(j.w, b.String())
	return err
}

func (j *jsonWriter) close() error {
	end := "\n]\n"
	if j.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(j.w, end)
	return err
}

// cellText renders a value for table and csv output, null as given.
func cellText(v any, null string) string {
	switch x := v.(type) {
	case nil:
		return null
	case string:
		return x
	case []byte:
		return fmt.Sprintf("<%d bytes>", len(x))
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	if b, err := json.Marshal(v); err == nil && (len(b) == 0 || b[0] == '{' || b[0] == '[') {
		return string(b)
	}
	return fmt.Sprint(v)
}
