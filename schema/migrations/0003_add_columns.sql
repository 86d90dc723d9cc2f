-- Migration 3, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

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
COMMENT ON TABLE locations IS 'Places (UN/LOCODE) named by any response. Each attribute is as last given: a response that leaves one out (null or empty) keeps the one known, one that gives it replaces it (of two observed at the same instant, the greater response_id''s); <attribute>_kept names the earlier response an attribute is kept from. Key (locode), dimension.';
COMMENT ON COLUMN locations."last_seen_at" IS 'latest response naming it; its values are from then, but those it left out (<attribute>_kept)';
COMMENT ON COLUMN locations."response_id" IS 'the latest response naming it (raw_responses), observed at last_seen_at; of two at that instant, the greater id';
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
COMMENT ON TABLE facilities IS 'Terminals and depots named by any response. Each attribute is as last given: a response that leaves one out (null or empty) keeps the one known, one that gives it replaces it (of two observed at the same instant, the greater response_id''s); <attribute>_kept names the earlier response an attribute is kept from. Key (facility_key), dimension.';
COMMENT ON COLUMN facilities."last_seen_at" IS 'latest response naming it; its values are from then, but those it left out (<attribute>_kept)';
COMMENT ON COLUMN facilities."response_id" IS 'the latest response naming it (raw_responses), observed at last_seen_at; of two at that instant, the greater id';
ALTER TABLE vessels ADD COLUMN "name_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."name_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave name, or none did; else the earlier response name is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE vessels ADD COLUMN "call_sign_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."call_sign_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave call_sign, or none did; else the earlier response call_sign is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE vessels ADD COLUMN "mmsi_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."mmsi_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave mmsi, or none did; else the earlier response mmsi is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
ALTER TABLE vessels ADD COLUMN "flag_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);
COMMENT ON COLUMN vessels."flag_kept" IS 'null when the latest response naming it (last_seen_at, response_id) gave flag, or none did; else the earlier response flag is kept from, later ones having left it out: when it was observed (seen_at) and its id (response_id)';
COMMENT ON TABLE vessels IS 'Vessels named by any response, by IMO number. Each attribute is as last given: a response that leaves one out (null or empty) keeps the one known, one that gives it replaces it (of two observed at the same instant, the greater response_id''s); <attribute>_kept names the earlier response an attribute is kept from. Key (imo), dimension.';
COMMENT ON COLUMN vessels."last_seen_at" IS 'latest response naming it; its values are from then, but those it left out (<attribute>_kept)';
COMMENT ON COLUMN vessels."response_id" IS 'the latest response naming it (raw_responses), observed at last_seen_at; of two at that instant, the greater id';
-- Written by hand below this line.

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
