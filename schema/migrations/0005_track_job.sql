-- Migration 5, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

COMMENT ON COLUMN etl_runs."job" IS 'run, backfill or demo (the jobs that fetch), import, replay, or track (a change of the tracked set by hand: etalake track add, rm)';
