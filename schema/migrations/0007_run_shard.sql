-- Migration 7, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE etl_runs ADD COLUMN "shard" VARCHAR;
COMMENT ON COLUMN etl_runs."shard" IS 'the worker''s part of the key''s work, I/N (--shard): the resources whose FNV-1a 64-bit hash of their name (port:NLRTM, shipment:CT:MSCU1234566) modulo N is I-1; NULL when the run asked everything';
