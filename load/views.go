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
	for _, v := range vs {
		if recorded[v.Name] == v.Checksum() {
			continue
		}
		if err := applyView(ctx, db, v, now()); err != nil {
			return fmt.Errorf("load: view %s: %w", v.Name, err)
		}
	}
	return nil
}

func applyView(ctx context.Context, db *sql.DB, v views.View, at time.Time) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, v.SQL); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM sql_views WHERE name = ?", v.Name); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO sql_views (name, checksum, applied_at) VALUES (?, ?, ?)", v.Name, v.Checksum(), at.UTC()); err != nil {
		return err
	}
	return tx.Commit()
}
