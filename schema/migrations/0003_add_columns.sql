-- Migration 3, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE raw_responses ADD COLUMN "next_page" VARCHAR;
COMMENT ON COLUMN raw_responses."next_page" IS 'path and query of the page after this one, when a paged answer names one (Next-Page-Cursor, Link rel=next, or a next link or cursor in the body); NULL on the last page or an answer that is not paged';
ALTER TABLE raw_responses ADD COLUMN "broken" VARCHAR;
COMMENT ON COLUMN raw_responses."broken" IS 'NULL for a whole answer; else why a 2xx did not arrive whole (a body shorter than its Content-Length, a connection broken in the body, JSON that does not parse): landed as the last of its attempts, dead-lettered, and not an answer: the next job asks again, up to --max-reasks jobs per resource and date';
ALTER TABLE etl_runs ADD COLUMN "shortfalls" JSON;
COMMENT ON COLUMN etl_runs."shortfalls" IS 'what the run did not get, by reason, when anything: {"dead_letters": n, "responses_not_derived": n, "failed_after_retries": n, "broken_answers": n, "not_asked_again": n, "stopped_unasked": n, "skipped_input_rows": n}; any of them makes the run partial (status, exit_code 3)';
COMMENT ON COLUMN etl_runs."credits_uncertain_schedule" IS 'schedule requests that timed out or whose 2xx answer broke in transfer: possibly charged';
COMMENT ON COLUMN etl_runs."calls_uncertain_tracking" IS 'tracking calls that timed out or whose 2xx answer broke in transfer: possibly charged';
ALTER TABLE locations ADD COLUMN "name_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN locations."name_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave name, or none did; else the earlier response name is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE locations ADD COLUMN "state_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN locations."state_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave state, or none did; else the earlier response state is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE locations ADD COLUMN "country_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN locations."country_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave country, or none did; else the earlier response country is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE locations ADD COLUMN "country_code_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN locations."country_code_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave country_code, or none did; else the earlier response country_code is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE locations ADD COLUMN "lat_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN locations."lat_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave lat, or none did; else the earlier response lat is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE locations ADD COLUMN "lng_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN locations."lng_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave lng, or none did; else the earlier response lng is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE locations ADD COLUMN "timezone_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN locations."timezone_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave timezone, or none did; else the earlier response timezone is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
COMMENT ON COLUMN locations."last_seen_at" IS 'latest response naming it; its values are from then, but those it left out (<attribute>_kept)';
COMMENT ON COLUMN locations."response_id" IS 'the latest response naming it (raw_responses), observed at last_seen_at; of two at that instant, the greater id';
COMMENT ON TABLE locations IS 'Places (UN/LOCODE) named by any response. Each attribute is as last given: a response that leaves one out (null or empty) keeps the one known, one that gives it replaces it (of two observed at the same instant, the greater response_id''s); <attribute>_kept names the earlier response an attribute is kept from. Key (locode), dimension.';
ALTER TABLE facilities ADD COLUMN "name_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN facilities."name_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave name, or none did; else the earlier response name is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE facilities ADD COLUMN "country_code_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN facilities."country_code_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave country_code, or none did; else the earlier response country_code is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE facilities ADD COLUMN "locode_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN facilities."locode_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave locode, or none did; else the earlier response locode is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE facilities ADD COLUMN "bic_code_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN facilities."bic_code_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave bic_code, or none did; else the earlier response bic_code is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE facilities ADD COLUMN "smdg_code_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN facilities."smdg_code_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave smdg_code, or none did; else the earlier response smdg_code is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE facilities ADD COLUMN "lat_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN facilities."lat_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave lat, or none did; else the earlier response lat is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE facilities ADD COLUMN "lng_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN facilities."lng_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave lng, or none did; else the earlier response lng is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
COMMENT ON COLUMN facilities."last_seen_at" IS 'latest response naming it; its values are from then, but those it left out (<attribute>_kept)';
COMMENT ON COLUMN facilities."response_id" IS 'the latest response naming it (raw_responses), observed at last_seen_at; of two at that instant, the greater id';
COMMENT ON TABLE facilities IS 'Terminals and depots named by any response. Each attribute is as last given: a response that leaves one out (null or empty) keeps the one known, one that gives it replaces it (of two observed at the same instant, the greater response_id''s); <attribute>_kept names the earlier response an attribute is kept from. Key (facility_key), dimension.';
ALTER TABLE vessels ADD COLUMN "name_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."name_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave name, or none did; else the earlier response name is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE vessels ADD COLUMN "call_sign_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."call_sign_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave call_sign, or none did; else the earlier response call_sign is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE vessels ADD COLUMN "mmsi_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."mmsi_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave mmsi, or none did; else the earlier response mmsi is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE vessels ADD COLUMN "flag_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."flag_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave flag, or none did; else the earlier response flag is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
COMMENT ON COLUMN vessels."last_seen_at" IS 'latest response naming it; its values are from then, but those it left out (<attribute>_kept)';
COMMENT ON COLUMN vessels."response_id" IS 'the latest response naming it (raw_responses), observed at last_seen_at; of two at that instant, the greater id';
COMMENT ON TABLE vessels IS 'Vessels named by any response, by IMO number. Each attribute is as last given: a response that leaves one out (null or empty) keeps the one known, one that gives it replaces it (of two observed at the same instant, the greater response_id''s); <attribute>_kept names the earlier response an attribute is kept from. Key (imo), dimension.';
ALTER TABLE shipments ADD COLUMN "updated_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN shipments."updated_at_zone_assumed" IS 'NULL when updated_at was sent with its UTC offset (or is NULL); else UTC, the zone it was read in: metadata.updatedAt names no place';
ALTER TABLE eta_observations ADD COLUMN "eta_zone_assumed" VARCHAR;
COMMENT ON COLUMN eta_observations."eta_zone_assumed" IS 'NULL when eta was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the place of the target (route.<target>.location.timezone), or UTC when no zone is known';
COMMENT ON COLUMN eta_observations."is_actual" IS 'eta is the actual time: the route member''s actual; null or absent is taken as false (estimated)';
ALTER TABLE container_events ADD COLUMN "event_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN container_events."event_at_zone_assumed" IS 'NULL when event_at was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the event''s place (location.timezone, or that of the same UN/LOCODE elsewhere in the response), or UTC when no zone is known';
COMMENT ON COLUMN container_events."event_key" IS 'stable identity of the event, from what does not change about it: a hash of the container, the event code (the status when no code is known), the place (UN/LOCODE) and the occurrence; never its date, actual flag, vessel, voyage, status or description, which carriers fill in or correct later: an estimate without a vessel and the actual with one are one event';
ALTER TABLE container_events ALTER COLUMN "event_type" DROP NOT NULL;
COMMENT ON COLUMN container_events."event_type" IS 'EQUIPMENT, TRANSPORT, … upper-cased; when not sent, that of event_code (EQUIPMENT for GTOT, GTIN, LOAD, DISC; TRANSPORT for DEPA, ARRI); else NULL';
ALTER TABLE container_events ALTER COLUMN "event_code" DROP NOT NULL;
COMMENT ON COLUMN container_events."event_code" IS 'DCSA code, upper-cased: GTOT, GTIN, LOAD, DEPA, ARRI, DISC, …; when not sent, the code of status (CEP, CGO → GTOT; CGI, CER → GTIN; CLL, CLT → LOAD; VDL, VDT → DEPA; VAT, VAD → ARRI; CDT, CDD → DISC); else NULL';
ALTER TABLE container_events ALTER COLUMN "is_actual" DROP NOT NULL;
COMMENT ON COLUMN container_events."is_actual" IS 'event_at is actual; NULL when the service did not say (isActual null or absent)';
COMMENT ON COLUMN container_events."occurrence" IS '0 for the container''s first event of this code at this place in the response, 1 for a second (a second LOAD at the same port), …';
ALTER TABLE event_observations ADD COLUMN "event_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN event_observations."event_at_zone_assumed" IS 'NULL when event_at was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the event''s place (location.timezone, or that of the same UN/LOCODE elsewhere in the response), or UTC when no zone is known';
ALTER TABLE event_observations ALTER COLUMN "is_actual" DROP NOT NULL;
COMMENT ON COLUMN event_observations."is_actual" IS 'event_at was actual then; NULL when the service did not say (isActual null or absent)';
-- Written by hand below this line.

-- Issue 20, items 4 and 5. Self-contained: it reads and writes only the
-- tables named here and the loader's parquet_pending and raw_derived, which
-- exist before any migration runs (load/bootstrap.sql).
--
-- The tracking responses are derived anew: container events have a new
-- identity (event_key: the container, the event code or else the status,
-- the place and the occurrence; transform/eventkey.go), and a body is now
-- decoded element by element, with its codes, UN/LOCODEs, SCACs and
-- container numbers normalised, its dates without an offset read in their
-- place's zone, and isActual null kept NULL. The rows derived before hold
-- the old keys and values: a load of new rows would add to them rather
-- than replace them (an estimate and its actual were two events), and the
-- responses a decode refused whole, which load now, have a dead letter
-- that no longer holds. So every row derived from a tracking response is
-- deleted, its partition of the Parquet mirror marked to be rewritten
-- (emptied partitions lose their files), and the tracking responses are
-- forgotten as derived: the next `etalake run` derives them again from the
-- raw landing before it fetches (its catch-up of responses landed and not
-- derived), as does `etalake replay`. The result is what a replay of the
-- raw landing gives. Dimensions (locations, facilities, vessels) are
-- shared with the schedules and kept: a load only adds to them.
INSERT INTO parquet_pending (table_name, partition_date)
SELECT DISTINCT x.t, x.d FROM (
    SELECT 'shipments', first_observed_date FROM shipments
    UNION ALL SELECT 'eta_observations', observed_date FROM eta_observations
    UNION ALL SELECT 'containers', first_observed_date FROM containers
    UNION ALL SELECT 'container_events', first_observed_date FROM container_events
    UNION ALL SELECT 'event_observations', observed_date FROM event_observations
    UNION ALL SELECT 'dead_letters', at_date FROM dead_letters WHERE endpoint = 'shipment'
) AS x(t, d)
WHERE NOT EXISTS (SELECT 1 FROM parquet_pending AS p WHERE p.table_name = x.t AND p.partition_date = x.d);
DELETE FROM shipments;
DELETE FROM eta_observations;
DELETE FROM containers;
DELETE FROM container_events;
DELETE FROM event_observations;
DELETE FROM dead_letters WHERE endpoint = 'shipment';
DELETE FROM raw_derived WHERE response_id IN (SELECT response_id FROM raw_responses WHERE endpoint = 'shipment');

-- Dimensions merge attribute by attribute (issue 20, item 6). Until this
-- migration a dimension row held the values of its latest observation
-- (last_seen_at, response_id) only, so every attribute it holds is from
-- that observation: its <attribute>_kept stays null, as added above (null:
-- from the latest observation). An empty string is an attribute left out,
-- as the merge now reads it: it becomes null (the transform never wrote
-- one). Self-contained: it reads and writes only the three dimension
-- tables. (The loader marks every partition of a table whose columns a
-- migration adds for its Parquet mirror to write again.)
UPDATE locations SET
    name = nullif(name, ''), state = nullif(state, ''), country = nullif(country, ''),
    country_code = nullif(country_code, ''), timezone = nullif(timezone, '')
WHERE '' IN (name, state, country, country_code, timezone);
UPDATE facilities SET
    name = nullif(name, ''), country_code = nullif(country_code, ''), locode = nullif(locode, ''),
    bic_code = nullif(bic_code, ''), smdg_code = nullif(smdg_code, '')
WHERE '' IN (name, country_code, locode, bic_code, smdg_code);
UPDATE vessels SET
    name = nullif(name, ''), call_sign = nullif(call_sign, ''), flag = nullif(flag, '')
WHERE '' IN (name, call_sign, flag);
