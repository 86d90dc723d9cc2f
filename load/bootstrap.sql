-- The loader's own tables, created on every Open if absent. They are not
-- contract tables (package schema owns those): notebooks need not read them.

CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER NOT NULL,
    name VARCHAR NOT NULL,
    checksum VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL
);
COMMENT ON TABLE schema_migrations IS 'Migrations of package schema applied to this warehouse, one row each; forward-only.';

CREATE TABLE IF NOT EXISTS parquet_pending (
    table_name VARCHAR NOT NULL,
    partition_date DATE NOT NULL
);
COMMENT ON TABLE parquet_pending IS 'Partitions of the Parquet mirror changed in DuckDB and not yet rewritten; recorded in the transaction that changed them, removed once the partition file is renamed into place.';
ALTER TABLE parquet_pending ADD COLUMN IF NOT EXISTS keyed BOOLEAN;
COMMENT ON COLUMN parquet_pending.keyed IS 'true when the keys of every row changed in the partition are in pending_keys (a merge); NULL when the partition changed whole (a migration, a reset, a repair), and the lake replaces it whole.';

CREATE TABLE IF NOT EXISTS pending_keys (
    table_name VARCHAR NOT NULL,
    key VARCHAR NOT NULL
);
COMMENT ON TABLE pending_keys IS 'The first key column of the rows a merge changed in a keyed table (not an Append one), recorded with their parquet_pending partitions: the lake replaces those rows, not their partitions.';

CREATE TABLE IF NOT EXISTS raw_derived (
    response_id VARCHAR NOT NULL,
    derived_at TIMESTAMPTZ NOT NULL
);
COMMENT ON TABLE raw_derived IS 'Landed responses whose rows have been loaded, recorded in the transaction that loaded them: a response landed but not here was cut off by a crash and is derived by the next run.';

CREATE TABLE IF NOT EXISTS sql_views (
    name VARCHAR NOT NULL,
    checksum VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL
);
COMMENT ON TABLE sql_views IS 'Analytic views of package sql applied to this warehouse, with the checksum of the SQL that created each: a view whose SQL changed is created again.';

CREATE TABLE IF NOT EXISTS raw_segments (
    name VARCHAR NOT NULL,
    responses BIGINT NOT NULL,
    bytes BIGINT NOT NULL,
    written_at TIMESTAMPTZ NOT NULL
);
COMMENT ON TABLE raw_segments IS 'The body segments under bodies/segments/, one row each, recorded in the transaction that points raw_responses.segment at it: a segment file without a row was cut off by a crash and is removed by the next writer.';

CREATE TABLE IF NOT EXISTS analytics_pending (
    shipment_number VARCHAR
);
COMMENT ON TABLE analytics_pending IS 'The shipments whose rows changed since the analytic tables were last refreshed, recorded in the transaction that changed them (a row of NULL: something changed whole, a migration, a reset, a pull); a refresh of a table whose rows are per shipment recomputes those shipments'' rows only, then forgets them.';

CREATE TABLE IF NOT EXISTS analytics_months_changed (
    table_name VARCHAR NOT NULL,
    changed_from TIMESTAMPTZ
);
COMMENT ON TABLE analytics_months_changed IS 'For an analytic table published a file per month (arrival_estimates, by observed_at), the time from which its rows changed since its files were last published, recorded in the transaction that changed them (NULL: all of them, RewriteMirror). A publish writes the months from the earliest on and links the months before from the version before; once that version is published, the rows go.';
