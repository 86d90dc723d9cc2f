package load

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

// monthly are the analytic tables published a file per month, each by its
// time column: analytics/<table>/YYYY-MM.parquet, a month of rows whose
// column falls in it (UTC). arrival_estimates is one row per carrier ETA
// ever observed: written whole, it made every night's publish cost the
// warehouse's age (BENCHMARKS.md, "A night as the warehouse grows"). Its
// rows change only from a day on (estimate.Update recomputes from the
// earliest day that changed), so the months before are the version
// before's, linked. Readers glob analytics/<table>/*.parquet either way.
var monthly = map[string]string{"arrival_estimates": "observed_at"}

// monthFile is the name of a month's file.
var monthFile = regexp.MustCompile(`^(\d{4})-(\d{2})\.parquet$`)

// recordMonthsChanged records, in the transaction that changes table's
// rows, that they change from from on: the next publish writes its
// months from then on (analytics_months_changed).
func recordMonthsChanged(ctx context.Context, conn *sql.Conn, table string, from time.Time) error {
	_, err := conn.ExecContext(ctx, "INSERT INTO analytics_months_changed VALUES (?, ?)", table, from)
	return err
}

// monthsChangedFrom is the earliest time from which table's rows changed
// since its months were last published; all says everything changed (a
// row of NULL), none that nothing did.
func (w *Warehouse) monthsChangedFrom(ctx context.Context, table string) (from time.Time, all, none bool, err error) {
	var n, nulls int64
	var at sql.NullTime
	err = w.db.QueryRowContext(ctx, "SELECT count(*), count(*) FILTER (WHERE changed_from IS NULL), min(changed_from) FROM analytics_months_changed WHERE table_name = ?", table).
		Scan(&n, &nulls, &at)
	return at.Time.UTC(), nulls > 0, n == 0, err
}

// exportMonthly writes table's months to dir: the months before the
// earliest change since the version before (prev, its files; "" when
// there is none) linked from it, the months from then on written from the
// table. All of them are written when prev has no month file (the first
// publish, an empty table, the layout of one file before this one), when
// everything changed, or when the working copy is new. It returns how
// many files it linked.
func (w *Warehouse) exportMonthly(ctx context.Context, table, column, dir, prev string) (linked int, err error) {
	from, all, none, err := w.monthsChangedFrom(ctx, table)
	if err != nil {
		return 0, err
	}
	before := monthFiles(prev)
	// first is the first month written; the months before it are linked.
	var first time.Time
	switch {
	case all || len(before) == 0:
	case none:
		first = time.Date(9999, 12, 1, 0, 0, 0, 0, time.UTC) // all linked, none written
	default:
		first = time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	for month, name := range before {
		if !month.Before(first) {
			continue
		}
		if err := linkFile(filepath.Join(prev, name), filepath.Join(dir, name)); err != nil {
			return linked, err
		}
		linked++
	}
	months, err := w.monthsFrom(ctx, table, column, first)
	if err != nil {
		return linked, err
	}
	for _, m := range months {
		path := filepath.Join(dir, m.Format("2006-01")+".parquet")
		q := fmt.Sprintf("COPY (SELECT * FROM %s WHERE %s >= %s AND %s < %s) TO %s (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE %d)",
			ident(table), ident(column), instant(m), ident(column), instant(m.AddDate(0, 1, 0)), literal(path), rowGroupSize)
		if _, err := w.db.ExecContext(ctx, q); err != nil {
			return linked, err
		}
	}
	return linked, nil
}

// instant is t as a TIMESTAMPTZ literal (COPY takes no parameters).
func instant(t time.Time) string {
	return "TIMESTAMPTZ " + literal(t.UTC().Format("2006-01-02 15:04:05")+"+00")
}

// monthsFrom are the months (UTC) of table's rows whose column is at or
// after from, each month's first instant.
func (w *Warehouse) monthsFrom(ctx context.Context, table, column string, from time.Time) ([]time.Time, error) {
	rows, err := w.db.QueryContext(ctx, fmt.Sprintf("SELECT DISTINCT date_trunc('month', %s) AS m FROM %s WHERE %s >= ? ORDER BY m", ident(column), ident(table), ident(column)), from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var m time.Time
		if err := rows.Scan(&m); err != nil {
			return nil, err
		}
		out = append(out, m.UTC())
	}
	return out, rows.Err()
}

// monthFiles are the month files under dir, by month; none when dir is
// "", missing, or holds any other Parquet file (a table written whole).
func monthFiles(dir string) map[time.Time]string {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[time.Time]string{}
	for _, e := range entries {
		m := monthFile.FindStringSubmatch(e.Name())
		if m == nil {
			if filepath.Ext(e.Name()) == ".parquet" {
				return nil
			}
			continue
		}
		at, err := time.Parse("2006-01", m[1]+"-"+m[2])
		if err != nil {
			return nil
		}
		out[at] = e.Name()
	}
	return out
}

// forgetMonthsChanged forgets the changes of the monthly tables once a
// version holding their months is published.
func (w *Warehouse) forgetMonthsChanged(ctx context.Context) error {
	_, err := w.db.ExecContext(ctx, "DELETE FROM analytics_months_changed")
	return err
}
