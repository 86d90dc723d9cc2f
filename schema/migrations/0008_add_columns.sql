-- Migration 8, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE raw_responses ADD COLUMN "segment" VARCHAR;
COMMENT ON COLUMN raw_responses."segment" IS 'the body segment that holds the response, relative to the warehouse directory (bodies/segments/<name>.parquet: the responses a publish added, their bodies as they arrived, Parquet compressed), once a publish has written it; NULL before. The writer''s database then keeps no copy of the body (body NULL); readers read raw_responses from the segments (parquet/raw_responses/), each body as it arrived';
