-- The SQL the loader emits for facilities (kind dimension), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "facility_key" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT * EXCLUDE ("t.name_kept", "t.country_code_kept", "t.locode_kept", "t.bic_code_kept", "t.smdg_code_kept", "t.lat_kept", "t.lng_kept") REPLACE (CASE WHEN "__load_touch" THEN NULL ELSE "name" END AS "name", CASE WHEN "__load_touch" THEN NULL ELSE "country_code" END AS "country_code", CASE WHEN "__load_touch" THEN NULL ELSE "locode" END AS "locode", CASE WHEN "__load_touch" THEN NULL ELSE "bic_code" END AS "bic_code", CASE WHEN "__load_touch" THEN NULL ELSE "smdg_code" END AS "smdg_code", CASE WHEN "__load_touch" THEN NULL ELSE "lat" END AS "lat", CASE WHEN "__load_touch" THEN NULL ELSE "lng" END AS "lng"),
  coalesce("name_kept" IS DISTINCT FROM "t.name_kept" OR "country_code_kept" IS DISTINCT FROM "t.country_code_kept" OR "locode_kept" IS DISTINCT FROM "t.locode_kept" OR "bic_code_kept" IS DISTINCT FROM "t.bic_code_kept" OR "smdg_code_kept" IS DISTINCT FROM "t.smdg_code_kept" OR "lat_kept" IS DISTINCT FROM "t.lat_kept" OR "lng_kept" IS DISTINCT FROM "t.lng_kept", false) AS "__load_kept"
FROM (SELECT "s.facility_key" AS "facility_key",
    CASE WHEN "__load_given.name" THEN "s.name" ELSE "t.name" END AS "name",
    CASE WHEN "__load_given.country_code" THEN "s.country_code" ELSE "t.country_code" END AS "country_code",
    CASE WHEN "__load_given.locode" THEN "s.locode" ELSE "t.locode" END AS "locode",
    CASE WHEN "__load_given.bic_code" THEN "s.bic_code" ELSE "t.bic_code" END AS "bic_code",
    CASE WHEN "__load_given.smdg_code" THEN "s.smdg_code" ELSE "t.smdg_code" END AS "smdg_code",
    CASE WHEN "__load_given.lat" THEN "s.lat" ELSE "t.lat" END AS "lat",
    CASE WHEN "__load_given.lng" THEN "s.lng" ELSE "t.lng" END AS "lng",
    CASE WHEN "__load_older" THEN "s.first_seen_at" ELSE "t.first_seen_at" END AS "first_seen_at",
    CASE WHEN "__load_latest" THEN "s.last_seen_at" ELSE "t.last_seen_at" END AS "last_seen_at",
    CASE WHEN "__load_latest" THEN "s.response_id" ELSE "t.response_id" END AS "response_id",
    CASE WHEN "__load_older" THEN "s.first_seen_date" ELSE "t.first_seen_date" END AS "first_seen_date",
    CASE WHEN "__load_given.name" AND "__load_latest" THEN NULL WHEN "__load_given.name" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.name" IS NOT NULL THEN coalesce("t.name_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.name_kept" END AS "name_kept",
    CASE WHEN "__load_given.country_code" AND "__load_latest" THEN NULL WHEN "__load_given.country_code" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.country_code" IS NOT NULL THEN coalesce("t.country_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.country_code_kept" END AS "country_code_kept",
    CASE WHEN "__load_given.locode" AND "__load_latest" THEN NULL WHEN "__load_given.locode" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.locode" IS NOT NULL THEN coalesce("t.locode_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.locode_kept" END AS "locode_kept",
    CASE WHEN "__load_given.bic_code" AND "__load_latest" THEN NULL WHEN "__load_given.bic_code" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.bic_code" IS NOT NULL THEN coalesce("t.bic_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.bic_code_kept" END AS "bic_code_kept",
    CASE WHEN "__load_given.smdg_code" AND "__load_latest" THEN NULL WHEN "__load_given.smdg_code" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.smdg_code" IS NOT NULL THEN coalesce("t.smdg_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.smdg_code_kept" END AS "smdg_code_kept",
    CASE WHEN "__load_given.lat" AND "__load_latest" THEN NULL WHEN "__load_given.lat" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lat" IS NOT NULL THEN coalesce("t.lat_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lat_kept" END AS "lat_kept",
    CASE WHEN "__load_given.lng" AND "__load_latest" THEN NULL WHEN "__load_given.lng" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lng" IS NOT NULL THEN coalesce("t.lng_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lng_kept" END AS "lng_kept",
    coalesce("__load_hit" AND NOT "__load_older" AND (NOT "__load_given.name" OR "s.name" IS NOT DISTINCT FROM "t.name") AND (NOT "__load_given.country_code" OR "s.country_code" IS NOT DISTINCT FROM "t.country_code") AND (NOT "__load_given.locode" OR "s.locode" IS NOT DISTINCT FROM "t.locode") AND (NOT "__load_given.bic_code" OR "s.bic_code" IS NOT DISTINCT FROM "t.bic_code") AND (NOT "__load_given.smdg_code" OR "s.smdg_code" IS NOT DISTINCT FROM "t.smdg_code") AND (NOT "__load_given.lat" OR "s.lat" IS NOT DISTINCT FROM "t.lat") AND (NOT "__load_given.lng" OR "s.lng" IS NOT DISTINCT FROM "t.lng"), false) AS "__load_touch",
    "t.first_seen_date" AS "__load_old",
    "t.name_kept",
    "t.country_code_kept",
    "t.locode_kept",
    "t.bic_code_kept",
    "t.smdg_code_kept",
    "t.lat_kept",
    "t.lng_kept"
FROM (SELECT s."facility_key" AS "s.facility_key",
      s."name" AS "s.name",
      s."country_code" AS "s.country_code",
      s."locode" AS "s.locode",
      s."bic_code" AS "s.bic_code",
      s."smdg_code" AS "s.smdg_code",
      s."lat" AS "s.lat",
      s."lng" AS "s.lng",
      s."first_seen_at" AS "s.first_seen_at",
      s."last_seen_at" AS "s.last_seen_at",
      s."response_id" AS "s.response_id",
      s."first_seen_date" AS "s.first_seen_date",
      t."facility_key" AS "t.facility_key",
      t."name" AS "t.name",
      t."country_code" AS "t.country_code",
      t."locode" AS "t.locode",
      t."bic_code" AS "t.bic_code",
      t."smdg_code" AS "t.smdg_code",
      t."lat" AS "t.lat",
      t."lng" AS "t.lng",
      t."first_seen_at" AS "t.first_seen_at",
      t."last_seen_at" AS "t.last_seen_at",
      t."response_id" AS "t.response_id",
      t."first_seen_date" AS "t.first_seen_date",
      t."name_kept" AS "t.name_kept",
      t."country_code_kept" AS "t.country_code_kept",
      t."locode_kept" AS "t.locode_kept",
      t."bic_code_kept" AS "t.bic_code_kept",
      t."smdg_code_kept" AS "t.smdg_code_kept",
      t."lat_kept" AS "t.lat_kept",
      t."lng_kept" AS "t.lng_kept",
      t."__load_hit" IS NULL OR s."last_seen_at" > t."last_seen_at" OR (s."last_seen_at" = t."last_seen_at" AND s."response_id" > t."response_id") AS "__load_latest",
      t."__load_hit" IS NULL OR s."first_seen_at" < t."first_seen_at" AS "__load_older",
      t."__load_hit" AS "__load_hit",
      s."name" IS NOT NULL AND (t."name" IS NULL OR s."last_seen_at" > coalesce(t."name_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."name_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."name_kept"."response_id", t."response_id"))) AS "__load_given.name",
      s."country_code" IS NOT NULL AND (t."country_code" IS NULL OR s."last_seen_at" > coalesce(t."country_code_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."country_code_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."country_code_kept"."response_id", t."response_id"))) AS "__load_given.country_code",
      s."locode" IS NOT NULL AND (t."locode" IS NULL OR s."last_seen_at" > coalesce(t."locode_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."locode_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."locode_kept"."response_id", t."response_id"))) AS "__load_given.locode",
      s."bic_code" IS NOT NULL AND (t."bic_code" IS NULL OR s."last_seen_at" > coalesce(t."bic_code_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."bic_code_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."bic_code_kept"."response_id", t."response_id"))) AS "__load_given.bic_code",
      s."smdg_code" IS NOT NULL AND (t."smdg_code" IS NULL OR s."last_seen_at" > coalesce(t."smdg_code_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."smdg_code_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."smdg_code_kept"."response_id", t."response_id"))) AS "__load_given.smdg_code",
      s."lat" IS NOT NULL AND (t."lat" IS NULL OR s."last_seen_at" > coalesce(t."lat_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."lat_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."lat_kept"."response_id", t."response_id"))) AS "__load_given.lat",
      s."lng" IS NOT NULL AND (t."lng" IS NULL OR s."last_seen_at" > coalesce(t."lng_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."lng_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."lng_kept"."response_id", t."response_id"))) AS "__load_given.lng"
FROM (SELECT "facility_key",
        nullif("name", '') AS "name",
        nullif("country_code", '') AS "country_code",
        nullif("locode", '') AS "locode",
        nullif("bic_code", '') AS "bic_code",
        nullif("smdg_code", '') AS "smdg_code",
        "lat",
        "lng",
        "first_seen_at",
        "last_seen_at",
        "response_id",
        "first_seen_date"
      FROM "__load_in") AS s
    LEFT JOIN (SELECT *,
        true AS "__load_hit"
      FROM "facilities") AS t ON t."facility_key" = s."facility_key")
WHERE "__load_latest" OR "__load_older" OR "__load_given.name" OR "__load_given.country_code" OR "__load_given.locode" OR "__load_given.bic_code" OR "__load_given.smdg_code" OR "__load_given.lat" OR "__load_given.lng");

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT * EXCLUDE ("t.name_kept", "t.country_code_kept", "t.locode_kept", "t.bic_code_kept", "t.smdg_code_kept", "t.lat_kept", "t.lng_kept") REPLACE (CASE WHEN "__load_touch" THEN NULL ELSE "name" END AS "name", CASE WHEN "__load_touch" THEN NULL ELSE "country_code" END AS "country_code", CASE WHEN "__load_touch" THEN NULL ELSE "locode" END AS "locode", CASE WHEN "__load_touch" THEN NULL ELSE "bic_code" END AS "bic_code", CASE WHEN "__load_touch" THEN NULL ELSE "smdg_code" END AS "smdg_code", CASE WHEN "__load_touch" THEN NULL ELSE "lat" END AS "lat", CASE WHEN "__load_touch" THEN NULL ELSE "lng" END AS "lng"),
  coalesce("name_kept" IS DISTINCT FROM "t.name_kept" OR "country_code_kept" IS DISTINCT FROM "t.country_code_kept" OR "locode_kept" IS DISTINCT FROM "t.locode_kept" OR "bic_code_kept" IS DISTINCT FROM "t.bic_code_kept" OR "smdg_code_kept" IS DISTINCT FROM "t.smdg_code_kept" OR "lat_kept" IS DISTINCT FROM "t.lat_kept" OR "lng_kept" IS DISTINCT FROM "t.lng_kept", false) AS "__load_kept"
FROM (SELECT "s.facility_key" AS "facility_key",
    CASE WHEN "__load_given.name" THEN "s.name" ELSE "t.name" END AS "name",
    CASE WHEN "__load_given.country_code" THEN "s.country_code" ELSE "t.country_code" END AS "country_code",
    CASE WHEN "__load_given.locode" THEN "s.locode" ELSE "t.locode" END AS "locode",
    CASE WHEN "__load_given.bic_code" THEN "s.bic_code" ELSE "t.bic_code" END AS "bic_code",
    CASE WHEN "__load_given.smdg_code" THEN "s.smdg_code" ELSE "t.smdg_code" END AS "smdg_code",
    CASE WHEN "__load_given.lat" THEN "s.lat" ELSE "t.lat" END AS "lat",
    CASE WHEN "__load_given.lng" THEN "s.lng" ELSE "t.lng" END AS "lng",
    CASE WHEN "__load_older" THEN "s.first_seen_at" ELSE "t.first_seen_at" END AS "first_seen_at",
    CASE WHEN "__load_latest" THEN "s.last_seen_at" ELSE "t.last_seen_at" END AS "last_seen_at",
    CASE WHEN "__load_latest" THEN "s.response_id" ELSE "t.response_id" END AS "response_id",
    CASE WHEN "__load_older" THEN "s.first_seen_date" ELSE "t.first_seen_date" END AS "first_seen_date",
    CASE WHEN "__load_given.name" AND "__load_latest" THEN "s.name_kept" WHEN "__load_given.name" THEN coalesce("s.name_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.name" IS NOT NULL THEN coalesce("t.name_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.name_kept" END AS "name_kept",
    CASE WHEN "__load_given.country_code" AND "__load_latest" THEN "s.country_code_kept" WHEN "__load_given.country_code" THEN coalesce("s.country_code_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.country_code" IS NOT NULL THEN coalesce("t.country_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.country_code_kept" END AS "country_code_kept",
    CASE WHEN "__load_given.locode" AND "__load_latest" THEN "s.locode_kept" WHEN "__load_given.locode" THEN coalesce("s.locode_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.locode" IS NOT NULL THEN coalesce("t.locode_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.locode_kept" END AS "locode_kept",
    CASE WHEN "__load_given.bic_code" AND "__load_latest" THEN "s.bic_code_kept" WHEN "__load_given.bic_code" THEN coalesce("s.bic_code_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.bic_code" IS NOT NULL THEN coalesce("t.bic_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.bic_code_kept" END AS "bic_code_kept",
    CASE WHEN "__load_given.smdg_code" AND "__load_latest" THEN "s.smdg_code_kept" WHEN "__load_given.smdg_code" THEN coalesce("s.smdg_code_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.smdg_code" IS NOT NULL THEN coalesce("t.smdg_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.smdg_code_kept" END AS "smdg_code_kept",
    CASE WHEN "__load_given.lat" AND "__load_latest" THEN "s.lat_kept" WHEN "__load_given.lat" THEN coalesce("s.lat_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lat" IS NOT NULL THEN coalesce("t.lat_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lat_kept" END AS "lat_kept",
    CASE WHEN "__load_given.lng" AND "__load_latest" THEN "s.lng_kept" WHEN "__load_given.lng" THEN coalesce("s.lng_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lng" IS NOT NULL THEN coalesce("t.lng_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lng_kept" END AS "lng_kept",
    coalesce("__load_hit" AND NOT "__load_older" AND (NOT "__load_given.name" OR "s.name" IS NOT DISTINCT FROM "t.name") AND (NOT "__load_given.country_code" OR "s.country_code" IS NOT DISTINCT FROM "t.country_code") AND (NOT "__load_given.locode" OR "s.locode" IS NOT DISTINCT FROM "t.locode") AND (NOT "__load_given.bic_code" OR "s.bic_code" IS NOT DISTINCT FROM "t.bic_code") AND (NOT "__load_given.smdg_code" OR "s.smdg_code" IS NOT DISTINCT FROM "t.smdg_code") AND (NOT "__load_given.lat" OR "s.lat" IS NOT DISTINCT FROM "t.lat") AND (NOT "__load_given.lng" OR "s.lng" IS NOT DISTINCT FROM "t.lng"), false) AS "__load_touch",
    "t.first_seen_date" AS "__load_old",
    "t.name_kept",
    "t.country_code_kept",
    "t.locode_kept",
    "t.bic_code_kept",
    "t.smdg_code_kept",
    "t.lat_kept",
    "t.lng_kept"
FROM (SELECT s."facility_key" AS "s.facility_key",
      s."name" AS "s.name",
      s."country_code" AS "s.country_code",
      s."locode" AS "s.locode",
      s."bic_code" AS "s.bic_code",
      s."smdg_code" AS "s.smdg_code",
      s."lat" AS "s.lat",
      s."lng" AS "s.lng",
      s."first_seen_at" AS "s.first_seen_at",
      s."last_seen_at" AS "s.last_seen_at",
      s."response_id" AS "s.response_id",
      s."first_seen_date" AS "s.first_seen_date",
      s."name_kept" AS "s.name_kept",
      s."country_code_kept" AS "s.country_code_kept",
      s."locode_kept" AS "s.locode_kept",
      s."bic_code_kept" AS "s.bic_code_kept",
      s."smdg_code_kept" AS "s.smdg_code_kept",
      s."lat_kept" AS "s.lat_kept",
      s."lng_kept" AS "s.lng_kept",
      t."facility_key" AS "t.facility_key",
      t."name" AS "t.name",
      t."country_code" AS "t.country_code",
      t."locode" AS "t.locode",
      t."bic_code" AS "t.bic_code",
      t."smdg_code" AS "t.smdg_code",
      t."lat" AS "t.lat",
      t."lng" AS "t.lng",
      t."first_seen_at" AS "t.first_seen_at",
      t."last_seen_at" AS "t.last_seen_at",
      t."response_id" AS "t.response_id",
      t."first_seen_date" AS "t.first_seen_date",
      t."name_kept" AS "t.name_kept",
      t."country_code_kept" AS "t.country_code_kept",
      t."locode_kept" AS "t.locode_kept",
      t."bic_code_kept" AS "t.bic_code_kept",
      t."smdg_code_kept" AS "t.smdg_code_kept",
      t."lat_kept" AS "t.lat_kept",
      t."lng_kept" AS "t.lng_kept",
      t."__load_hit" IS NULL OR s."last_seen_at" > t."last_seen_at" OR (s."last_seen_at" = t."last_seen_at" AND s."response_id" > t."response_id") AS "__load_latest",
      t."__load_hit" IS NULL OR s."first_seen_at" < t."first_seen_at" AS "__load_older",
      t."__load_hit" AS "__load_hit",
      s."name" IS NOT NULL AND (t."name" IS NULL OR coalesce(s."name_kept"."seen_at", s."last_seen_at") > coalesce(t."name_kept"."seen_at", t."last_seen_at") OR (coalesce(s."name_kept"."seen_at", s."last_seen_at") = coalesce(t."name_kept"."seen_at", t."last_seen_at") AND coalesce(s."name_kept"."response_id", s."response_id") > coalesce(t."name_kept"."response_id", t."response_id"))) AS "__load_given.name",
      s."country_code" IS NOT NULL AND (t."country_code" IS NULL OR coalesce(s."country_code_kept"."seen_at", s."last_seen_at") > coalesce(t."country_code_kept"."seen_at", t."last_seen_at") OR (coalesce(s."country_code_kept"."seen_at", s."last_seen_at") = coalesce(t."country_code_kept"."seen_at", t."last_seen_at") AND coalesce(s."country_code_kept"."response_id", s."response_id") > coalesce(t."country_code_kept"."response_id", t."response_id"))) AS "__load_given.country_code",
      s."locode" IS NOT NULL AND (t."locode" IS NULL OR coalesce(s."locode_kept"."seen_at", s."last_seen_at") > coalesce(t."locode_kept"."seen_at", t."last_seen_at") OR (coalesce(s."locode_kept"."seen_at", s."last_seen_at") = coalesce(t."locode_kept"."seen_at", t."last_seen_at") AND coalesce(s."locode_kept"."response_id", s."response_id") > coalesce(t."locode_kept"."response_id", t."response_id"))) AS "__load_given.locode",
      s."bic_code" IS NOT NULL AND (t."bic_code" IS NULL OR coalesce(s."bic_code_kept"."seen_at", s."last_seen_at") > coalesce(t."bic_code_kept"."seen_at", t."last_seen_at") OR (coalesce(s."bic_code_kept"."seen_at", s."last_seen_at") = coalesce(t."bic_code_kept"."seen_at", t."last_seen_at") AND coalesce(s."bic_code_kept"."response_id", s."response_id") > coalesce(t."bic_code_kept"."response_id", t."response_id"))) AS "__load_given.bic_code",
      s."smdg_code" IS NOT NULL AND (t."smdg_code" IS NULL OR coalesce(s."smdg_code_kept"."seen_at", s."last_seen_at") > coalesce(t."smdg_code_kept"."seen_at", t."last_seen_at") OR (coalesce(s."smdg_code_kept"."seen_at", s."last_seen_at") = coalesce(t."smdg_code_kept"."seen_at", t."last_seen_at") AND coalesce(s."smdg_code_kept"."response_id", s."response_id") > coalesce(t."smdg_code_kept"."response_id", t."response_id"))) AS "__load_given.smdg_code",
      s."lat" IS NOT NULL AND (t."lat" IS NULL OR coalesce(s."lat_kept"."seen_at", s."last_seen_at") > coalesce(t."lat_kept"."seen_at", t."last_seen_at") OR (coalesce(s."lat_kept"."seen_at", s."last_seen_at") = coalesce(t."lat_kept"."seen_at", t."last_seen_at") AND coalesce(s."lat_kept"."response_id", s."response_id") > coalesce(t."lat_kept"."response_id", t."response_id"))) AS "__load_given.lat",
      s."lng" IS NOT NULL AND (t."lng" IS NULL OR coalesce(s."lng_kept"."seen_at", s."last_seen_at") > coalesce(t."lng_kept"."seen_at", t."last_seen_at") OR (coalesce(s."lng_kept"."seen_at", s."last_seen_at") = coalesce(t."lng_kept"."seen_at", t."last_seen_at") AND coalesce(s."lng_kept"."response_id", s."response_id") > coalesce(t."lng_kept"."response_id", t."response_id"))) AS "__load_given.lng"
FROM (SELECT "facility_key" AS "facility_key",
        arg_max("name", "name_kept") AS "name",
        arg_max("country_code", "country_code_kept") AS "country_code",
        arg_max("locode", "locode_kept") AS "locode",
        arg_max("bic_code", "bic_code_kept") AS "bic_code",
        arg_max("smdg_code", "smdg_code_kept") AS "smdg_code",
        arg_max("lat", "lat_kept") AS "lat",
        arg_max("lng", "lng_kept") AS "lng",
        min("first_seen_at") AS "first_seen_at",
        max("last_seen_at") AS "last_seen_at",
        arg_max("response_id", "__load_obs") AS "response_id",
        arg_min("first_seen_date", "first_seen_at") AS "first_seen_date",
        CASE WHEN max("name_kept") = max("__load_obs") THEN NULL ELSE max("name_kept") END AS "name_kept",
        CASE WHEN max("country_code_kept") = max("__load_obs") THEN NULL ELSE max("country_code_kept") END AS "country_code_kept",
        CASE WHEN max("locode_kept") = max("__load_obs") THEN NULL ELSE max("locode_kept") END AS "locode_kept",
        CASE WHEN max("bic_code_kept") = max("__load_obs") THEN NULL ELSE max("bic_code_kept") END AS "bic_code_kept",
        CASE WHEN max("smdg_code_kept") = max("__load_obs") THEN NULL ELSE max("smdg_code_kept") END AS "smdg_code_kept",
        CASE WHEN max("lat_kept") = max("__load_obs") THEN NULL ELSE max("lat_kept") END AS "lat_kept",
        CASE WHEN max("lng_kept") = max("__load_obs") THEN NULL ELSE max("lng_kept") END AS "lng_kept"
      FROM (SELECT *,
          CASE WHEN "name" IS NOT NULL THEN "__load_obs" END AS "name_kept",
          CASE WHEN "country_code" IS NOT NULL THEN "__load_obs" END AS "country_code_kept",
          CASE WHEN "locode" IS NOT NULL THEN "__load_obs" END AS "locode_kept",
          CASE WHEN "bic_code" IS NOT NULL THEN "__load_obs" END AS "bic_code_kept",
          CASE WHEN "smdg_code" IS NOT NULL THEN "__load_obs" END AS "smdg_code_kept",
          CASE WHEN "lat" IS NOT NULL THEN "__load_obs" END AS "lat_kept",
          CASE WHEN "lng" IS NOT NULL THEN "__load_obs" END AS "lng_kept"
        FROM (SELECT *,
            {'seen_at': "last_seen_at",
            'response_id': "response_id"} AS "__load_obs"
          FROM (SELECT "facility_key",
              nullif("name", '') AS "name",
              nullif("country_code", '') AS "country_code",
              nullif("locode", '') AS "locode",
              nullif("bic_code", '') AS "bic_code",
              nullif("smdg_code", '') AS "smdg_code",
              "lat",
              "lng",
              "first_seen_at",
              "last_seen_at",
              "response_id",
              "first_seen_date"
            FROM "__load_in")))
      GROUP BY "facility_key") AS s
    LEFT JOIN (SELECT *,
        true AS "__load_hit"
      FROM "facilities") AS t ON t."facility_key" = s."facility_key")
WHERE "__load_latest" OR "__load_older" OR "__load_given.name" OR "__load_given.country_code" OR "__load_given.locode" OR "__load_given.bic_code" OR "__load_given.smdg_code" OR "__load_given.lat" OR "__load_given.lng");

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE NOT "__load_changed"."__load_touch"),
  count(*) FILTER (WHERE "__load_touch"),
  count(*) FILTER (WHERE "__load_touch" AND "__load_kept")
FROM "__load_changed";

-- touchSQL: the touches, in place
UPDATE "facilities" AS t
SET "last_seen_at" = n."last_seen_at",
  "response_id" = n."response_id"
FROM "__load_changed" AS n
WHERE t."facility_key" = n."facility_key" AND n."__load_touch" AND n."__load_kept" = false;

-- touchSQL: the touches that change Kept columns too
UPDATE "facilities" AS t
SET "last_seen_at" = n."last_seen_at",
  "response_id" = n."response_id",
  "name_kept" = n."name_kept",
  "country_code_kept" = n."country_code_kept",
  "locode_kept" = n."locode_kept",
  "bic_code_kept" = n."bic_code_kept",
  "smdg_code_kept" = n."smdg_code_kept",
  "lat_kept" = n."lat_kept",
  "lng_kept" = n."lng_kept"
FROM "__load_changed" AS n
WHERE t."facility_key" = n."facility_key" AND n."__load_touch" AND n."__load_kept" = true;

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "facilities" AS t USING "__load_changed" AS n
WHERE t."facility_key" = n."facility_key" AND n."__load_old" IS NOT NULL AND NOT n."__load_touch";

-- insertSQL: the changed rows that are not touches
INSERT INTO "facilities" ("facility_key", "name", "country_code", "locode", "bic_code", "smdg_code", "lat", "lng", "first_seen_at", "last_seen_at", "response_id", "first_seen_date", "name_kept", "country_code_kept", "locode_kept", "bic_code_kept", "smdg_code_kept", "lat_kept", "lng_kept")
SELECT "facility_key",
  "name",
  "country_code",
  "locode",
  "bic_code",
  "smdg_code",
  "lat",
  "lng",
  "first_seen_at",
  "last_seen_at",
  "response_id",
  "first_seen_date",
  "name_kept",
  "country_code_kept",
  "locode_kept",
  "bic_code_kept",
  "smdg_code_kept",
  "lat_kept",
  "lng_kept"
FROM "__load_changed" AS n
WHERE NOT n."__load_touch";

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'facilities',
  x.d,
  true
FROM (SELECT "first_seen_date"
  FROM "__load_changed"
  UNION
  SELECT "__load_old"
  FROM "__load_changed"
  WHERE "__load_old" IS NOT NULL AND "__load_old" <> "first_seen_date") AS x(d)
WHERE x.d NOT IN (SELECT partition_date
  FROM parquet_pending
  WHERE table_name = 'facilities' AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT 'facilities',
  CAST("facility_key" AS VARCHAR)
FROM "__load_changed"
WHERE CAST("facility_key" AS VARCHAR) NOT IN (SELECT key
  FROM pending_keys
  WHERE table_name = 'facilities');

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "facility_key",
    "name",
    "country_code",
    "locode",
    "bic_code",
    "smdg_code",
    "lat",
    "lng",
    "first_seen_at",
    "last_seen_at",
    "response_id",
    "name_kept",
    "country_code_kept",
    "locode_kept",
    "bic_code_kept",
    "smdg_code_kept",
    "lat_kept",
    "lng_kept"
  FROM "facilities"
  WHERE "first_seen_date" = DATE '2026-01-05'
  ORDER BY "facility_key") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
