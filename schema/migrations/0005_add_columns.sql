-- Migration 5, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE raw_responses ADD COLUMN "body_file" VARCHAR;
COMMENT ON COLUMN raw_responses."body_file" IS 'NULL when the body is in body; else the file that holds it, zstd-compressed, relative to the warehouse directory (bodies/<body_sha256>.zst): a body larger than --max-body when it arrived, streamed to disk and never held whole in memory. Read it with zstd -dc, or replay with a larger --max-body to derive it';
ALTER TABLE raw_responses ALTER COLUMN "body" DROP NOT NULL;
COMMENT ON COLUMN raw_responses."body" IS 'the body, zstd-compressed; NULL when it is kept in body_file';
ALTER TABLE etl_runs ADD COLUMN "given_up" JSON;
COMMENT ON COLUMN etl_runs."given_up" IS 'the resources given up for logical_date when the run ended, when any: their answer stayed broken in transfer or stopped paging in --max-reasks jobs, and the next jobs of the date ask them only once the service answers their product well again; each with the command that asks it again now: [{"resource": "port:NLRTM", "failed_jobs": 3, "why": "…", "asked": false, "command": "etalake backfill --date 2026-01-05 --reask port:NLRTM"}] (asked: this run asked it, in vain; else it was not asked); see data_freshness';
COMMENT ON COLUMN etl_runs."job" IS 'run, backfill or demo (the jobs that fetch), import, replay, or track (a change of the tracked set by hand: etalake track add, rm)';
