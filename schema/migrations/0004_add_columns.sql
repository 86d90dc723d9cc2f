-- Migration 4, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

ALTER TABLE port_calls ADD COLUMN "event_at_zone_assumed" VARCHAR;
COMMENT ON COLUMN port_calls."event_at_zone_assumed" IS 'NULL when event_at was sent with its UTC offset (or is NULL); else the time zone it was read in, the date having none: the IANA name of the port''s zone: its location.timezone, that of the same UN/LOCODE elsewhere in the response, else the zone of the UN/LOCODE''s country when the country has one (DCSA answers name no zone), or UTC when no zone is known';
COMMENT ON COLUMN port_calls."event_type_code" IS 'ARRI or DEPA, upper-cased (a schedule''s arri is ARRI)';
COMMENT ON COLUMN port_calls."classifier" IS 'PLN (planned), EST (estimated) or ACT (actual), upper-cased (a schedule''s pln is PLN)';
