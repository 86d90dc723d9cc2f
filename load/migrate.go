package load

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"slices"
	"time"

	"github.com/etalake/etalake/schema"
)

//go:embed bootstrap.sql
var bootstrapSQL string

// applied is a row of schema_migrations.
type applied struct {
	Version        int
	Name, Checksum string
}

// migrate creates the loader's own tables if absent, checks the recorded
// migrations against the embedded ones, and applies the pending ones, each
// in its own transaction together with its schema_migrations row. It
// returns how many it applied.
func migrate(ctx context.Context, db *sql.DB, now func() time.Time) (int, error) {
	ms, err := schema.Migrations()
	if err != nil {
		return 0, fmt.Errorf("load: embedded migrations: %w", err)
	}
	var tracked int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = 'analytics_pending'`).Scan(&tracked); err != nil {
		return 0, fmt.Errorf("load: bootstrap: %w", err)
	}
	if _, err := db.ExecContext(ctx, bootstrapSQL); err != nil {
		return 0, fmt.Errorf("load: bootstrap: %w", err)
	}
	// What changed before analytics_pending existed is not in it: the
	// first refresh is whole.
	if tracked == 0 {
		if _, err := db.ExecContext(ctx, analyticsWholeSQL); err != nil {
			return 0, fmt.Errorf("load: bootstrap: %w", err)
		}
	}
	done, err := appliedMigrations(ctx, db)
	if err != nil {
		return 0, err
	}
	for _, a := range done {
		if a.Version > len(ms) {
			return 0, fmt.Errorf("%w: the warehouse has migration %d (%s), this binary knows migrations up to %d: use a newer etalake",
				ErrMigration, a.Version, a.Name, len(ms))
		}
		if m := ms[a.Version-1]; a.Checksum != m.Checksum() {
			return 0, fmt.Errorf("%w: migration %d (%s) was applied with checksum %.12s…, this binary embeds %.12s… for it; migrations are forward-only: add a new migration instead of editing an applied one",
				ErrMigration, m.Version, m.Name, a.Checksum, m.Checksum())
		}
	}
	n := 0
	for _, m := range ms {
		if _, ok := done[m.Version]; ok {
			continue
		}
		if err := apply(ctx, db, m, now()); err != nil {
			return n, fmt.Errorf("load: migration %s: %w", m.Name, err)
		}
		n++
	}
	return n, nil
}

// appliedMigrations reads schema_migrations, by version.
func appliedMigrations(ctx context.Context, db *sql.DB) (map[int]applied, error) {
	rows, err := db.QueryContext(ctx, `SELECT version, name, checksum FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, fmt.Errorf("load: read schema_migrations: %w", err)
	}
	defer rows.Close()
	out := map[int]applied{}
	for rows.Next() {
		var a applied
		if err := rows.Scan(&a.Version, &a.Name, &a.Checksum); err != nil {
			return nil, err
		}
		if _, dup := out[a.Version]; dup || a.Version < 1 {
			return nil, fmt.Errorf("%w: schema_migrations records version %d twice or out of range", ErrMigration, a.Version)
		}
		out[a.Version] = a
	}
	return out, rows.Err()
}

// apply runs one migration and records it, in one transaction. Every
// partition of a mirrored table whose columns the migration adds is
// recorded as pending in the same transaction: the next SyncParquet
// writes its file again with the new columns, so that the files of a
// table never differ in their columns (read_parquet refuses a glob over
// files of two shapes).
func apply(ctx context.Context, db *sql.DB, m schema.Migration, at time.Time) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return err
	}
	for _, t := range schema.Tables {
		if m.Version > 1 && Mirrored(t) && slices.ContainsFunc(t.Columns, func(c schema.Column) bool { return c.Since == m.Version }) {
			if _, err := tx.ExecContext(ctx, pendingSQL(t, fmt.Sprintf("SELECT DISTINCT %s FROM %s", ident(t.Partition), ident(t.Name)))); err != nil {
				return err
			}
		}
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
		m.Version, m.Name, m.Checksum(), at.UTC()); err != nil {
		return err
	}
	return tx.Commit()
}
