package load

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/etalake/etalake/schema"
)

// LoadFrom merges the rows of an SQL query into t in one transaction, by
// the rules Load follows for t's schema.Kind (deduplication within the
// rows included), and records the partitions that change as pending for
// the Parquet mirror, as Load does; it returns the rows inserted or
// changed. The query must produce exactly t's columns, with their names
// and DuckDB types, in definition order (cast where DuckDB would infer
// another type); anything else is refused with ErrInvalid and nothing is
// written.
//
// It is Load for rows DuckDB computes itself, from read_json or another
// table: the query is materialised as the temporary table that the merge
// reads in place of a registered Arrow record, so both end in the same
// statements. The query runs on the loading connection, inside the
// transaction: TEMP tables and macros of other connections are not
// visible to it. raw_responses is accepted (and, like Land, not
// mirrored); unlike Load, LoadFrom records no response as derived.
func (w *Warehouse) LoadFrom(ctx context.Context, t *schema.Table, query string) (int64, error) {
	if t == nil {
		return 0, invalidf("LoadFrom without a table")
	}
	if err := checkMergeable(t); err != nil {
		return 0, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var n int64
	err := w.inTx(ctx, func(s *session) error {
		in, err := s.materialize(ctx, t, query)
		if err != nil {
			return err
		}
		if in.n > 0 {
			if n, err = s.merge(ctx, t, in, Mirrored(t)); err != nil {
				return err
			}
		}
		_, err = s.exec(ctx, "DROP TABLE "+ident(inView))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("load: %s: %w", t.Name, err)
	}
	return n, nil
}

// materialize creates the temporary table inView from query and checks
// that its columns are t's.
func (s *session) materialize(ctx context.Context, t *schema.Table, query string) (tableInput, error) {
	if _, err := s.exec(ctx, fmt.Sprintf("CREATE TEMP TABLE %s AS %s", ident(inView), query)); err != nil {
		return tableInput{}, err
	}
	got, err := s.columns(ctx, true, inView)
	if err != nil {
		return tableInput{}, err
	}
	want, err := s.columns(ctx, false, t.Name)
	if err != nil {
		return tableInput{}, err
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		return tableInput{}, invalidf("%s: the query's columns are (%s), want (%s)",
			t.Name, strings.Join(got, ", "), strings.Join(want, ", "))
	}
	n, err := s.count(ctx, "SELECT count(*) FROM "+ident(inView))
	return tableInput{n: n}, err
}

// columns lists the columns of a table, each as its name and DuckDB type,
// in order: a temporary table of the connection, or a table of the
// warehouse's database.
func (s *session) columns(ctx context.Context, temporary bool, table string) ([]string, error) {
	db := "current_database()"
	if temporary {
		db = "'temp'"
	}
	q := fmt.Sprintf(`SELECT column_name || ' ' || data_type FROM duckdb_columns()
WHERE database_name = %s AND schema_name = 'main' AND table_name = %s ORDER BY column_index`, db, literal(table))
	return s.strings(ctx, q)
}

// input is a batch as the merge reads it: rows of the table's columns,
// readable under the name inView.
type input interface {
	// scan runs fn, a statement reading inView, with the batch readable.
	scan(ctx context.Context, s *session, fn func() error) error
	// rows is the number of rows of the batch.
	rows() int64
	// days lists the distinct values of t's partition column in the batch.
	days(ctx context.Context, s *session, t *schema.Table) ([]day, error)
	// distinct reports whether the batch is known to hold each of t's keys
	// once, so that the merge need not count its duplicates.
	distinct(t *schema.Table) bool
}

// recordInput is an Arrow record of the transform (Load), registered as a
// view for each statement.
type recordInput struct{ rec arrow.RecordBatch }

func (in recordInput) distinct(t *schema.Table) bool { return keysDistinct(in.rec, t) }

func (in recordInput) scan(ctx context.Context, s *session, fn func() error) error {
	return s.withView(ctx, in.rec, fn)
}

func (in recordInput) rows() int64 { return in.rec.NumRows() }

func (in recordInput) days(_ context.Context, _ *session, t *schema.Table) ([]day, error) {
	return distinctDays(in.rec, t)
}

// tableInput is the temporary table inView, holding n rows (LoadFrom).
type tableInput struct{ n int64 }

func (in tableInput) scan(_ context.Context, _ *session, fn func() error) error { return fn() }

func (in tableInput) rows() int64 { return in.n }

func (in tableInput) distinct(*schema.Table) bool { return false }

func (in tableInput) days(ctx context.Context, s *session, t *schema.Table) ([]day, error) {
	out, _, err := s.days(ctx, fmt.Sprintf("SELECT DISTINCT %s FROM %s", ident(t.Partition), ident(inView)))
	return out, err
}
