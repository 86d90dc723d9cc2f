package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	views "github.com/etalake/etalake/sql"
)

// applyViews creates the analytic views of package sql in their order, each
// only when its SQL differs from the one recorded in sql_views (the first
// time, or after an upgrade changed it), in one transaction with its record.
func applyViews(ctx context.Context, db *sql.DB, now func() time.Time) error {
	vs, err := views.Views()
	if err != nil {
		return fmt.Errorf("load: embedded views: %w", err)
	}
	recorded := map[string]string{}
	rows, err := db.QueryContext(ctx, "SELECT name, checksum FROM sql_views")
	if err != nil {
		return fmt.Errorf("load: read sql_views: %w", err)
	}
	for rows.Next() {
		var name, sum string
		if err := rows.Scan(&name, &sum); err != nil {
			rows.Close()
			return err
		}
		recorded[name] = sum
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	tables := map[string]bool{}
	if err := tableNames(ctx, db, tables); err != nil {
		return err
	}
	for _, v := range vs {
		if recorded[v.Name] == v.Checksum() && (v.Table == "" || tables[v.Table]) {
			continue
		}
		if err := applyView(ctx, db, v, now()); err != nil {
			return fmt.Errorf("load: view %s: %w", v.Name, err)
		}
	}
	return nil
}

// tableNames adds the names of the database's tables to names.
func tableNames(ctx context.Context, db *sql.DB, names map[string]bool) error {
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM duckdb_tables()")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		names[n] = true
	}
	return rows.Err()
}

// RefreshAnalytics rebuilds the tables materialised for the analytic views
// (package sql) from the contract tables: jobs call it when they end, so
// that notebooks and reports see what the job loaded. A rebuild that runs
// out of memory is retried on one thread, then on one thread with twice
// and four times the memory limit.
func (w *Warehouse) RefreshAnalytics(ctx context.Context) error {
	vs, err := views.Views()
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.db == nil {
		return errClosed
	}
	// What the job just loaded is still held in memory until checkpointed;
	// written out, it can be evicted while the rebuild needs the room.
	if _, err := w.db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("load: checkpoint before refreshing: %w", err)
	}
	limit, known := memoryBytes(w.opt.MemoryLimit) // not a percentage
	for _, v := range vs {
		if v.Table == "" {
			continue
		}
		// CREATE OR REPLACE TABLE … AS is atomic by itself; inside an
		// explicit transaction its rows would have to stay in memory.
		rebuild := func() error {
			_, err := w.db.ExecContext(ctx, v.SQL)
			return err
		}
		// A parallel hash aggregation holds a table per thread: one thread
		// fits a rebuild in a memory limit that two do not (slower, but it
		// finishes).
		oneThread := func() error {
			return w.withSetting(ctx, "threads", "1", strconv.Itoa(w.opt.Threads), rebuild)
		}
		err := rebuild()
		if isOutOfMemory(err) {
			err = oneThread()
		}
		// The as-of join of 10 M ETA observations does not fit the
		// writer's default even on one thread: better to use more memory
		// for the minute it runs than to fail the job at its end
		// (BENCHMARKS.md, "Analytics").
		for _, more := range []int64{2, 4} {
			if !known || !isOutOfMemory(err) {
				break
			}
			err = w.withSetting(ctx, "memory_limit", fmt.Sprintf("'%dMiB'", limit*more>>20), literal(w.opt.MemoryLimit), oneThread)
		}
		if err != nil {
			return fmt.Errorf("load: refreshing %s: %w", v.Table, err)
		}
	}
	return nil
}

// withSetting runs fn with the DuckDB setting name at value (SQL), and
// sets it to back after.
func (w *Warehouse) withSetting(ctx context.Context, name, value, back string, fn func() error) error {
	if _, err := w.db.ExecContext(ctx, fmt.Sprintf("SET %s = %s", name, value)); err != nil {
		return err
	}
	defer w.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("SET %s = %s", name, back))
	return fn()
}

// memoryBytes reads a DuckDB memory size such as "128MB", "1GiB" or
// "512 KB" (DuckDB's units: KB, MB, GB, TB of 1000, KiB, MiB, GiB, TiB of
// 1024, B).
func memoryBytes(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, false
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, false
	}
	units := map[string]float64{"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KIB": 1 << 10, "MIB": 1 << 20, "GIB": 1 << 30, "TIB": 1 << 40}
	u, ok := units[strings.ToUpper(strings.TrimSpace(s[i:]))]
	if !ok || n <= 0 {
		return 0, false
	}
	return int64(n * u), true
}

func isOutOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}

func applyView(ctx context.Context, db *sql.DB, v views.View, at time.Time) error {
	if v.Table != "" { // see RefreshAnalytics: atomic by itself
		// An earlier version may have defined the name as a view.
		var isView bool
		if err := db.QueryRowContext(ctx, "SELECT count(*) > 0 FROM duckdb_views() WHERE view_name = ?", v.Table).Scan(&isView); err != nil {
			return err
		}
		if isView {
			if _, err := db.ExecContext(ctx, "DROP VIEW "+ident(v.Table)); err != nil {
				return err
			}
		}
		if _, err := db.ExecContext(ctx, v.SQL); err != nil {
			return err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if v.Table == "" {
		if _, err := tx.ExecContext(ctx, v.SQL); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM sql_views WHERE name = ?", v.Name); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO sql_views (name, checksum, applied_at) VALUES (?, ?, ?)", v.Name, v.Checksum(), at.UTC()); err != nil {
		return err
	}
	return tx.Commit()
}
