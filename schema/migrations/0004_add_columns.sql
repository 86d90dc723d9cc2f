-- Migration 4, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE raw_responses ADD COLUMN "paging_stop" VARCHAR;
COMMENT ON COLUMN raw_responses."paging_stop" IS 'NULL but on the page where a walk through a paged answer stopped before its end: why (loop: a cursor seen twice; empty page: a page without items named a next one; page limit: --max-pages pages; off host: the next page on another host) and what was seen. The resource is not answered for its date: the next job resumes at next_page when it is not landed, else asks again from the first page, up to --max-reasks jobs';
ALTER TABLE port_calls ADD COLUMN "event_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN port_calls."event_at_zone_assumed" IS 'NULL when event_at was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the port''s zone: its location.timezone, that of the same UN/LOCODE elsewhere in the response, else the zone of the UN/LOCODE''s country when the country has one (DCSA answers name no zone), or UTC when no zone is known';
COMMENT ON COLUMN port_calls."event_type_code" IS 'ARRI or DEPA, upper-cased (a schedule''s arri is ARRI)';
COMMENT ON COLUMN port_calls."classifier" IS 'PLN (planned), EST (estimated) or ACT (actual), upper-cased (a schedule''s pln is PLN)';
-- Written by hand below this line.

-- Issue 29, item 5. Self-contained: it reads and writes only the tables
-- named here and the loader's parquet_pending and raw_derived, which exist
-- before any migration runs (load/bootstrap.sql).
--
-- The schedule responses are derived anew: a schedule is now decoded
-- element by element (a timestamp, a leg's end, a leg, a transport call or
-- a vessel schedule that does not decode is dead-lettered alone, where a
-- whole vessel schedule or routing was), its codes are kept upper case (a
-- port_calls row of classifier 'pln' was one no view counted), its date-
-- times without an offset read in the port's zone (event_at_zone_assumed),
-- its IMO numbers read with an IMO prefix, and a DCSA item sent without
-- its array read. The rows derived before hold the old values: a load of
-- new rows would add to them (a row of 'pln' beside one of 'PLN'), and
-- their dead letters no longer hold. So every port_calls row is deleted,
-- its partition of the Parquet mirror marked to be rewritten, the dead
-- letters of schedule responses deleted, and the schedule responses
-- forgotten as derived: the next `etalake run` derives them again from the
-- raw landing before it fetches, as does `etalake replay`. The result is
-- what a replay of the raw landing gives. Dimensions (locations,
-- facilities, vessels) are shared with the tracking and kept: a load only
-- adds to them.
INSERT INTO parquet_pending (table_name, partition_date)
SELECT DISTINCT x.t, x.d FROM (
    SELECT 'port_calls', observed_date FROM port_calls
    UNION ALL SELECT 'dead_letters', at_date FROM dead_letters WHERE endpoint IN ('schedule_port', 'schedule_p2p', 'schedule_vessel')
) AS x(t, d)
WHERE NOT EXISTS (SELECT 1 FROM parquet_pending AS p WHERE p.table_name = x.t AND p.partition_date = x.d);
DELETE FROM port_calls;
DELETE FROM dead_letters WHERE endpoint IN ('schedule_port', 'schedule_p2p', 'schedule_vessel');
DELETE FROM raw_derived WHERE response_id IN (SELECT response_id FROM raw_responses WHERE endpoint IN ('schedule_port', 'schedule_p2p', 'schedule_vessel'));
