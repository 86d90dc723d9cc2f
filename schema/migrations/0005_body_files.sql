-- Migration 5, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE raw_responses ADD COLUMN "body_file" VARCHAR;
COMMENT ON COLUMN raw_responses."body_file" IS 'NULL when the body is in body; else the file that holds it, zstd-compressed, relative to the warehouse directory (bodies/<body_sha256>.zst): a body larger than --max-body when it arrived, streamed to disk and never held whole in memory. Read it with zstd -dc, or replay with a larger --max-body to derive it';
ALTER TABLE raw_responses ALTER COLUMN "body" DROP NOT NULL;
COMMENT ON COLUMN raw_responses."body" IS 'the body, zstd-compressed; NULL when it is kept in body_file';
