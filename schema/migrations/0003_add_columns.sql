-- Migration 3, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE raw_responses ADD COLUMN "next_page" VARCHAR;
COMMENT ON COLUMN raw_responses."next_page" IS 'path and query of the page after this one, when a paged answer names one (Next-Page-Cursor, Link rel=next, or a next link or cursor in the body); NULL on the last page or an answer that is not paged';
ALTER TABLE shipments ADD COLUMN "updated_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN shipments."updated_at_zone_assumed" IS 'NULL when updated_at was sent with its UTC offset (or is NULL); else UTC, the zone it was read in: metadata.updatedAt names no place';
ALTER TABLE eta_observations ADD COLUMN "eta_zone_assumed" VARCHAR;
COMMENT ON COLUMN eta_observations."eta_zone_assumed" IS 'NULL when eta was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the place of the target (route.<target>.location.timezone), or UTC when no zone is known';
COMMENT ON COLUMN eta_observations."is_actual" IS 'eta is the actual time: the route member''s actual; null or absent is taken as false (estimated)';
ALTER TABLE container_events ADD COLUMN "event_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN container_events."event_at_zone_assumed" IS 'NULL when event_at was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the event''s place (location.timezone, or that of the same UN/LOCODE elsewhere in the response), or UTC when no zone is known';
ALTER TABLE container_events ALTER COLUMN "event_type" DROP NOT NULL;
COMMENT ON COLUMN container_events."event_type" IS 'EQUIPMENT, TRANSPORT, … upper-cased; when not sent, that of event_code (EQUIPMENT for GTOT, GTIN, LOAD, DISC; TRANSPORT for DEPA, ARRI); else NULL';
ALTER TABLE container_events ALTER COLUMN "event_code" DROP NOT NULL;
COMMENT ON COLUMN container_events."event_code" IS 'DCSA code, upper-cased: GTOT, GTIN, LOAD, DEPA, ARRI, DISC, …; when not sent, the code of status (CEP, CGO → GTOT; CGI, CER → GTIN; CLL, CLT → LOAD; VDL, VDT → DEPA; VAT, VAD → ARRI; CDT, CDD → DISC); else NULL';
ALTER TABLE container_events ALTER COLUMN "is_actual" DROP NOT NULL;
COMMENT ON COLUMN container_events."is_actual" IS 'event_at is actual; NULL when the service did not say (isActual null or absent)';
ALTER TABLE event_observations ADD COLUMN "event_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN event_observations."event_at_zone_assumed" IS 'NULL when event_at was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the event''s place (location.timezone, or that of the same UN/LOCODE elsewhere in the response), or UTC when no zone is known';
ALTER TABLE event_observations ALTER COLUMN "is_actual" DROP NOT NULL;
COMMENT ON COLUMN event_observations."is_actual" IS 'event_at was actual then; NULL when the service did not say (isActual null or absent)';
