package load

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// errClosed is returned by the methods of a closed Warehouse.
var errClosed = errors.New("load: warehouse is closed")

// session is one DuckDB connection inside one transaction, used at the
// driver level: Arrow records are registered as views on the connection
// itself, which database/sql cannot do.
type session struct {
	conn  driver.Conn
	arrow *duckdb.Arrow
}

// onArrowConn calls fn with one connection of the warehouse, as a driver
// connection and as DuckDB's Arrow interface over it. The caller holds
// w.mu.
func (w *Warehouse) onArrowConn(ctx context.Context, fn func(driver.Conn, *duckdb.Arrow) error) error {
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("load: not a driver connection: %T", dc)
		}
		ar, err := duckdb.NewArrowFromConn(c)
		if err != nil {
			return err
		}
		return fn(c, ar)
	})
}

// inTx runs fn in one transaction on one connection of the warehouse and
// commits when fn succeeds. The caller holds w.mu.
func (w *Warehouse) inTx(ctx context.Context, fn func(*session) error) error {
	if w.db == nil {
		return errClosed
	}
	return w.onArrowConn(ctx, func(c driver.Conn, ar *duckdb.Arrow) error {
		s := &session{conn: c, arrow: ar}
		if _, err := s.exec(ctx, "BEGIN TRANSACTION"); err != nil {
			return err
		}
		if err := fn(s); err != nil {
			if _, rbErr := s.exec(context.WithoutCancel(ctx), "ROLLBACK"); rbErr != nil {
				// A connection whose transaction state is unknown goes back
				// to no pool: ErrBadConn makes database/sql discard it.
				return errors.Join(err, rbErr, driver.ErrBadConn)
			}
			return err
		}
		if _, err := s.exec(ctx, "COMMIT"); err != nil {
			return errors.Join(fmt.Errorf("load: commit: %w", err), driver.ErrBadConn)
		}
		return nil
	})
}

// exec runs a statement and returns the rows it affected.
func (s *session) exec(ctx context.Context, q string) (int64, error) {
	res, err := s.conn.(driver.ExecerContext).ExecContext(ctx, q, nil)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// queryCount runs a query of one BIGINT, a count.
func (s *session) queryCount(ctx context.Context, q string) (int64, error) {
	n, err := s.queryCounts(ctx, q, 1)
	if err != nil {
		return 0, err
	}
	return n[0], nil
}

// queryCounts runs a query of one row of n BIGINTs; no row reads as zeros.
func (s *session) queryCounts(ctx context.Context, q string, n int) ([]int64, error) {
	rows, err := s.conn.(driver.QueryerContext).QueryContext(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	v := make([]driver.Value, n)
	out := make([]int64, n)
	if err := rows.Next(v); err != nil {
		if err == io.EOF {
			return out, nil
		}
		return nil, err
	}
	for i := range v {
		c, ok := v[i].(int64)
		if !ok {
			return nil, fmt.Errorf("load: count %d of %q is %T", i, q, v[i])
		}
		out[i] = c
	}
	return out, nil
}

// strings runs a query of one VARCHAR column and returns its values.
func (s *session) strings(ctx context.Context, q string) ([]string, error) {
	rows, err := s.conn.(driver.QueryerContext).QueryContext(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	v := make([]driver.Value, 1)
	for {
		if err := rows.Next(v); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		str, ok := v[0].(string)
		if !ok {
			return nil, fmt.Errorf("load: a value is %T, want a string", v[0])
		}
		out = append(out, str)
	}
}

// days runs a query whose first column is a DATE and returns its distinct
// values and how many rows it returned. It reads the result as Arrow, so a
// result of many rows costs no row-by-row scanning.
func (s *session) days(ctx context.Context, q string) ([]day, int64, error) {
	rr, err := s.arrow.QueryContext(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	defer rr.Release()
	seen := map[day]bool{}
	var out []day
	var n int64
	for rr.Next() {
		rec := rr.RecordBatch()
		col, ok := rec.Column(0).(*array.Date32)
		if !ok {
			return nil, 0, fmt.Errorf("load: %s: first column is %s, want date32", q, rec.Column(0).DataType())
		}
		n += int64(col.Len())
		for i := range col.Len() {
			if col.IsNull(i) {
				continue
			}
			if d := day(col.Value(i)); !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out, n, rr.Err()
}

// withView runs fn with rec registered as the view inView, for one
// statement, and drops the view after. When fn fails, the transaction is
// aborted and the drop fails too: its error would only hide fn's.
func (s *session) withView(ctx context.Context, rec arrow.RecordBatch, fn func() error) error {
	release, err := s.register(rec, inView)
	if err != nil {
		return err
	}
	err = fn()
	release()
	if _, dropErr := s.exec(ctx, "DROP VIEW IF EXISTS "+ident(inView)); err == nil {
		err = dropErr
	}
	return err
}

// register makes rec readable once as the view name. Call the returned
// function after the statement that read it.
func (s *session) register(rec arrow.RecordBatch, name string) (func(), error) {
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		return nil, err
	}
	defer rr.Release() // the exported stream holds its own reference
	return s.arrow.RegisterView(rr, name)
}
