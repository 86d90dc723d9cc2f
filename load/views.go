package load

import (
	"context"
	"database/sql"
	"fmt"
	"time"

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
	var computed []views.View
	for _, v := range vs {
		if recorded[v.Name] == v.Checksum() && (v.Table == "" || tables[v.Table]) {
			continue
		}
		if v.Computed {
			// Created here, where the views after it find it; computed
			// and recorded once below, whichever of them changed.
			if err := createComputed(ctx, db, v); err != nil {
				return fmt.Errorf("load: view %s: %w", v.Name, err)
			}
			computed = append(computed, v)
			continue
		}
		if err := applyView(ctx, db, v, now()); err != nil {
			return fmt.Errorf("load: view %s: %w", v.Name, err)
		}
	}
	return applyComputed(ctx, db, computed, now())
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
// (package sql) from the contract tables, whole: rows written outside the
// loader (with SQL, by a repair) are in them after it. Publish refreshes
// them itself when those tables changed since the last refresh, so that
// notebooks and reports never see analytic tables older than the tables
// beside them, recomputing a table whose rows are per shipment for the
// shipments that changed alone (views.View.PerShipment).
func (w *Warehouse) RefreshAnalytics(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.refresh(ctx, true)
}

// refresh is RefreshAnalytics, whole or for the shipments changed; the
// caller holds w.mu.
func (w *Warehouse) refresh(ctx context.Context, whole bool) error {
	vs, err := views.Views()
	if err != nil {
		return err
	}
	if w.db == nil {
		return errClosed
	}
	shipments, changedWhole, err := w.analyticsScope(ctx)
	if err != nil {
		return err
	}
	// The estimate is recomputed whole only when asked (RefreshAnalytics):
	// after a change of many shipments (a pull) it finds what it lacks
	// itself, from the earliest day that changed.
	estimateWhole := whole
	whole = whole || changedWhole
	estimated := false
	for _, v := range vs {
		if v.Table == "" {
			continue
		}
		if v.Computed {
			if estimated || (!whole && shipments == 0) {
				continue
			}
			estimated = true
			if err := w.estimate(ctx, estimateWhole, changedWhole); err != nil {
				return err
			}
			continue
		}
		if v.PerShipment && !whole {
			if shipments == 0 {
				continue // none of its shipments changed
			}
			if err := w.refreshShipments(ctx, v); err != nil {
				return fmt.Errorf("load: refreshing the analytic table %s for the %d shipments changed: %w", v.Table, shipments, err)
			}
			continue
		}
		// CREATE OR REPLACE TABLE … AS is atomic by itself; inside an
		// explicit transaction its rows would have to stay in memory.
		if _, err := w.db.ExecContext(ctx, v.SQL); err != nil {
			return fmt.Errorf("load: refreshing the analytic table %s: %w", v.Table, err)
		}
	}
	// A failure above keeps them: the next refresh recomputes them again.
	if _, err := w.db.ExecContext(ctx, "DELETE FROM analytics_pending"); err != nil {
		return fmt.Errorf("load: forgetting the shipments the analytic tables hold: %w", err)
	}
	w.stale, w.unexported = false, true
	return nil
}

// analyticsScope says how many shipments changed since the analytic
// tables were last refreshed (analytics_pending), and whether something
// changed whole.
func (w *Warehouse) analyticsScope(ctx context.Context) (shipments int64, whole bool, err error) {
	err = w.db.QueryRowContext(ctx, `SELECT count(DISTINCT shipment_number), count(*) FILTER (WHERE shipment_number IS NULL) > 0 FROM analytics_pending`).Scan(&shipments, &whole)
	if err != nil {
		return 0, false, fmt.Errorf("load: reading what the analytic tables lack: %w", err)
	}
	return shipments, whole, nil
}

// refreshShipments recomputes the rows of v's table (a PerShipment one)
// of the shipments in analytics_pending, in one transaction: its rows of
// them deleted, and inserted again from its query run over their rows
// alone — the query's "shipments" is, for that transaction, a temporary
// view of those shipments' rows, and every other table it reads is
// joined to it.
func (w *Warehouse) refreshShipments(ctx context.Context, v views.View) error {
	var catalog string
	if err := w.db.QueryRowContext(ctx, "SELECT current_database()").Scan(&catalog); err != nil {
		return err
	}
	scope := "(SELECT DISTINCT shipment_number FROM analytics_pending WHERE shipment_number IS NOT NULL)"
	return w.inTx(ctx, func(s *session) error {
		for _, q := range []string{
			fmt.Sprintf("CREATE TEMP VIEW shipments AS SELECT * FROM %s.main.shipments WHERE shipment_number IN %s", ident(catalog), scope),
			fmt.Sprintf("DELETE FROM %s.main.%s WHERE shipment_number IN %s", ident(catalog), ident(v.Table), scope),
			fmt.Sprintf("INSERT INTO %s.main.%s SELECT * FROM (%s)", ident(catalog), ident(v.Table), v.Select),
			"DROP VIEW temp.main.shipments",
		} {
			if _, err := s.exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
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
	if err := recordIn(ctx, tx, v, at); err != nil {
		return err
	}
	return tx.Commit()
}

// recordIn notes in sql_views, in tx, that v's SQL is applied.
func recordIn(ctx context.Context, tx *sql.Tx, v views.View, at time.Time) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM sql_views WHERE name = ?", v.Name); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO sql_views (name, checksum, applied_at) VALUES (?, ?, ?)", v.Name, v.Checksum(), at.UTC())
	return err
}
