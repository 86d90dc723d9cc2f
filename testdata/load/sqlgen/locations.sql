-- The SQL the loader emits for locations (kind dimension), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "locode" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT * EXCLUDE ("t.name_kept", "t.state_kept", "t.country_kept", "t.country_code_kept", "t.lat_kept", "t.lng_kept", "t.timezone_kept") REPLACE (CASE WHEN "__load_touch" THEN NULL ELSE "name" END AS "name", CASE WHEN "__load_touch" THEN NULL ELSE "state" END AS "state", CASE WHEN "__load_touch" THEN NULL ELSE "country" END AS "country", CASE WHEN "__load_touch" THEN NULL ELSE "country_code" END AS "country_code", CASE WHEN "__load_touch" THEN NULL ELSE "lat" END AS "lat", CASE WHEN "__load_touch" THEN NULL ELSE "lng" END AS "lng", CASE WHEN "__load_touch" THEN NULL ELSE "timezone" END AS "timezone"),
  coalesce("name_kept" IS DISTINCT FROM "t.name_kept" OR "state_kept" IS DISTINCT FROM "t.state_kept" OR "country_kept" IS DISTINCT FROM "t.country_kept" OR "country_code_kept" IS DISTINCT FROM "t.country_code_kept" OR "lat_kept" IS DISTINCT FROM "t.lat_kept" OR "lng_kept" IS DISTINCT FROM "t.lng_kept" OR "timezone_kept" IS DISTINCT FROM "t.timezone_kept", false) AS "__load_kept"
FROM (SELECT "s.locode" AS "locode",
    CASE WHEN "__load_given.name" THEN "s.name" ELSE "t.name" END AS "name",
    CASE WHEN "__load_given.state" THEN "s.state" ELSE "t.state" END AS "state",
    CASE WHEN "__load_given.country" THEN "s.country" ELSE "t.country" END AS "country",
    CASE WHEN "__load_given.country_code" THEN "s.country_code" ELSE "t.country_code" END AS "country_code",
    CASE WHEN "__load_given.lat" THEN "s.lat" ELSE "t.lat" END AS "lat",
    CASE WHEN "__load_given.lng" THEN "s.lng" ELSE "t.lng" END AS "lng",
    CASE WHEN "__load_given.timezone" THEN "s.timezone" ELSE "t.timezone" END AS "timezone",
    CASE WHEN "__load_older" THEN "s.first_seen_at" ELSE "t.first_seen_at" END AS "first_seen_at",
    CASE WHEN "__load_latest" THEN "s.last_seen_at" ELSE "t.last_seen_at" END AS "last_seen_at",
    CASE WHEN "__load_latest" THEN "s.response_id" ELSE "t.response_id" END AS "response_id",
    CASE WHEN "__load_older" THEN "s.first_seen_date" ELSE "t.first_seen_date" END AS "first_seen_date",
    CASE WHEN "__load_given.name" AND "__load_latest" THEN NULL WHEN "__load_given.name" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.name" IS NOT NULL THEN coalesce("t.name_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.name_kept" END AS "name_kept",
    CASE WHEN "__load_given.state" AND "__load_latest" THEN NULL WHEN "__load_given.state" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.state" IS NOT NULL THEN coalesce("t.state_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.state_kept" END AS "state_kept",
    CASE WHEN "__load_given.country" AND "__load_latest" THEN NULL WHEN "__load_given.country" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.country" IS NOT NULL THEN coalesce("t.country_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.country_kept" END AS "country_kept",
    CASE WHEN "__load_given.country_code" AND "__load_latest" THEN NULL WHEN "__load_given.country_code" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.country_code" IS NOT NULL THEN coalesce("t.country_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.country_code_kept" END AS "country_code_kept",
    CASE WHEN "__load_given.lat" AND "__load_latest" THEN NULL WHEN "__load_given.lat" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lat" IS NOT NULL THEN coalesce("t.lat_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lat_kept" END AS "lat_kept",
    CASE WHEN "__load_given.lng" AND "__load_latest" THEN NULL WHEN "__load_given.lng" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lng" IS NOT NULL THEN coalesce("t.lng_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lng_kept" END AS "lng_kept",
    CASE WHEN "__load_given.timezone" AND "__load_latest" THEN NULL WHEN "__load_given.timezone" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.timezone" IS NOT NULL THEN coalesce("t.timezone_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.timezone_kept" END AS "timezone_kept",
    coalesce("__load_hit" AND NOT "__load_older" AND (NOT "__load_given.name" OR "s.name" IS NOT DISTINCT FROM "t.name") AND (NOT "__load_given.state" OR "s.state" IS NOT DISTINCT FROM "t.state") AND (NOT "__load_given.country" OR "s.country" IS NOT DISTINCT FROM "t.country") AND (NOT "__load_given.country_code" OR "s.country_code" IS NOT DISTINCT FROM "t.country_code") AND (NOT "__load_given.lat" OR "s.lat" IS NOT DISTINCT FROM "t.lat") AND (NOT "__load_given.lng" OR "s.lng" IS NOT DISTINCT FROM "t.lng") AND (NOT "__load_given.timezone" OR "s.timezone" IS NOT DISTINCT FROM "t.timezone"), false) AS "__load_touch",
    "t.first_seen_date" AS "__load_old",
    "t.name_kept",
    "t.state_kept",
    "t.country_kept",
    "t.country_code_kept",
    "t.lat_kept",
    "t.lng_kept",
    "t.timezone_kept"
FROM (SELECT s."locode" AS "s.locode",
      s."name" AS "s.name",
      s."state" AS "s.state",
      s."country" AS "s.country",
      s."country_code" AS "s.country_code",
      s."lat" AS "s.lat",
      s."lng" AS "s.lng",
      s."timezone" AS "s.timezone",
      s."first_seen_at" AS "s.first_seen_at",
      s."last_seen_at" AS "s.last_seen_at",
      s."response_id" AS "s.response_id",
      s."first_seen_date" AS "s.first_seen_date",
      t."locode" AS "t.locode",
      t."name" AS "t.name",
      t."state" AS "t.state",
      t."country" AS "t.country",
      t."country_code" AS "t.country_code",
      t."lat" AS "t.lat",
      t."lng" AS "t.lng",
      t."timezone" AS "t.timezone",
      t."first_seen_at" AS "t.first_seen_at",
      t."last_seen_at" AS "t.last_seen_at",
      t."response_id" AS "t.response_id",
      t."first_seen_date" AS "t.first_seen_date",
      t."name_kept" AS "t.name_kept",
      t."state_kept" AS "t.state_kept",
      t."country_kept" AS "t.country_kept",
      t."country_code_kept" AS "t.country_code_kept",
      t."lat_kept" AS "t.lat_kept",
      t."lng_kept" AS "t.lng_kept",
      t."timezone_kept" AS "t.timezone_kept",
      t."__load_hit" IS NULL OR s."last_seen_at" > t."last_seen_at" OR (s."last_seen_at" = t."last_seen_at" AND s."response_id" > t."response_id") AS "__load_latest",
      t."__load_hit" IS NULL OR s."first_seen_at" < t."first_seen_at" AS "__load_older",
      t."__load_hit" AS "__load_hit",
      s."name" IS NOT NULL AND (t."name" IS NULL OR s."last_seen_at" > coalesce(t."name_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."name_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."name_kept"."response_id", t."response_id"))) AS "__load_given.name",
      s."state" IS NOT NULL AND (t."state" IS NULL OR s."last_seen_at" > coalesce(t."state_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."state_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."state_kept"."response_id", t."response_id"))) AS "__load_given.state",
      s."country" IS NOT NULL AND (t."country" IS NULL OR s."last_seen_at" > coalesce(t."country_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."country_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."country_kept"."response_id", t."response_id"))) AS "__load_given.country",
      s."country_code" IS NOT NULL AND (t."country_code" IS NULL OR s."last_seen_at" > coalesce(t."country_code_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."country_code_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."country_code_kept"."response_id", t."response_id"))) AS "__load_given.country_code",
      s."lat" IS NOT NULL AND (t."lat" IS NULL OR s."last_seen_at" > coalesce(t."lat_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."lat_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."lat_kept"."response_id", t."response_id"))) AS "__load_given.lat",
      s."lng" IS NOT NULL AND (t."lng" IS NULL OR s."last_seen_at" > coalesce(t."lng_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."lng_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."lng_kept"."response_id", t."response_id"))) AS "__load_given.lng",
      s."timezone" IS NOT NULL AND (t."timezone" IS NULL OR s."last_seen_at" > coalesce(t."timezone_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."timezone_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."timezone_kept"."response_id", t."response_id"))) AS "__load_given.timezone"
FROM (SELECT "locode",
        nullif("name", '') AS "name",
        nullif("state", '') AS "state",
        nullif("country", '') AS "country",
        nullif("country_code", '') AS "country_code",
        "lat",
        "lng",
        nullif("timezone", '') AS "timezone",
        "first_seen_at",
        "last_seen_at",
        "response_id",
        "first_seen_date"
      FROM "__load_in") AS s
    LEFT JOIN (SELECT *,
        true AS "__load_hit"
      FROM "locations") AS t ON t."locode" = s."locode")
WHERE "__load_latest" OR "__load_older" OR "__load_given.name" OR "__load_given.state" OR "__load_given.country" OR "__load_given.country_code" OR "__load_given.lat" OR "__load_given.lng" OR "__load_given.timezone");

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT * EXCLUDE ("t.name_kept", "t.state_kept", "t.country_kept", "t.country_code_kept", "t.lat_kept", "t.lng_kept", "t.timezone_kept") REPLACE (CASE WHEN "__load_touch" THEN NULL ELSE "name" END AS "name", CASE WHEN "__load_touch" THEN NULL ELSE "state" END AS "state", CASE WHEN "__load_touch" THEN NULL ELSE "country" END AS "country", CASE WHEN "__load_touch" THEN NULL ELSE "country_code" END AS "country_code", CASE WHEN "__load_touch" THEN NULL ELSE "lat" END AS "lat", CASE WHEN "__load_touch" THEN NULL ELSE "lng" END AS "lng", CASE WHEN "__load_touch" THEN NULL ELSE "timezone" END AS "timezone"),
  coalesce("name_kept" IS DISTINCT FROM "t.name_kept" OR "state_kept" IS DISTINCT FROM "t.state_kept" OR "country_kept" IS DISTINCT FROM "t.country_kept" OR "country_code_kept" IS DISTINCT FROM "t.country_code_kept" OR "lat_kept" IS DISTINCT FROM "t.lat_kept" OR "lng_kept" IS DISTINCT FROM "t.lng_kept" OR "timezone_kept" IS DISTINCT FROM "t.timezone_kept", false) AS "__load_kept"
FROM (SELECT "s.locode" AS "locode",
    CASE WHEN "__load_given.name" THEN "s.name" ELSE "t.name" END AS "name",
    CASE WHEN "__load_given.state" THEN "s.state" ELSE "t.state" END AS "state",
    CASE WHEN "__load_given.country" THEN "s.country" ELSE "t.country" END AS "country",
    CASE WHEN "__load_given.country_code" THEN "s.country_code" ELSE "t.country_code" END AS "country_code",
    CASE WHEN "__load_given.lat" THEN "s.lat" ELSE "t.lat" END AS "lat",
    CASE WHEN "__load_given.lng" THEN "s.lng" ELSE "t.lng" END AS "lng",
    CASE WHEN "__load_given.timezone" THEN "s.timezone" ELSE "t.timezone" END AS "timezone",
    CASE WHEN "__load_older" THEN "s.first_seen_at" ELSE "t.first_seen_at" END AS "first_seen_at",
    CASE WHEN "__load_latest" THEN "s.last_seen_at" ELSE "t.last_seen_at" END AS "last_seen_at",
    CASE WHEN "__load_latest" THEN "s.response_id" ELSE "t.response_id" END AS "response_id",
    CASE WHEN "__load_older" THEN "s.first_seen_date" ELSE "t.first_seen_date" END AS "first_seen_date",
    CASE WHEN "__load_given.name" AND "__load_latest" THEN "s.name_kept" WHEN "__load_given.name" THEN coalesce("s.name_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.name" IS NOT NULL THEN coalesce("t.name_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.name_kept" END AS "name_kept",
    CASE WHEN "__load_given.state" AND "__load_latest" THEN "s.state_kept" WHEN "__load_given.state" THEN coalesce("s.state_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.state" IS NOT NULL THEN coalesce("t.state_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.state_kept" END AS "state_kept",
    CASE WHEN "__load_given.country" AND "__load_latest" THEN "s.country_kept" WHEN "__load_given.country" THEN coalesce("s.country_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.country" IS NOT NULL THEN coalesce("t.country_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.country_kept" END AS "country_kept",
    CASE WHEN "__load_given.country_code" AND "__load_latest" THEN "s.country_code_kept" WHEN "__load_given.country_code" THEN coalesce("s.country_code_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.country_code" IS NOT NULL THEN coalesce("t.country_code_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.country_code_kept" END AS "country_code_kept",
    CASE WHEN "__load_given.lat" AND "__load_latest" THEN "s.lat_kept" WHEN "__load_given.lat" THEN coalesce("s.lat_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lat" IS NOT NULL THEN coalesce("t.lat_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lat_kept" END AS "lat_kept",
    CASE WHEN "__load_given.lng" AND "__load_latest" THEN "s.lng_kept" WHEN "__load_given.lng" THEN coalesce("s.lng_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.lng" IS NOT NULL THEN coalesce("t.lng_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.lng_kept" END AS "lng_kept",
    CASE WHEN "__load_given.timezone" AND "__load_latest" THEN "s.timezone_kept" WHEN "__load_given.timezone" THEN coalesce("s.timezone_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.timezone" IS NOT NULL THEN coalesce("t.timezone_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.timezone_kept" END AS "timezone_kept",
    coalesce("__load_hit" AND NOT "__load_older" AND (NOT "__load_given.name" OR "s.name" IS NOT DISTINCT FROM "t.name") AND (NOT "__load_given.state" OR "s.state" IS NOT DISTINCT FROM "t.state") AND (NOT "__load_given.country" OR "s.country" IS NOT DISTINCT FROM "t.country") AND (NOT "__load_given.country_code" OR "s.country_code" IS NOT DISTINCT FROM "t.country_code") AND (NOT "__load_given.lat" OR "s.lat" IS NOT DISTINCT FROM "t.lat") AND (NOT "__load_given.lng" OR "s.lng" IS NOT DISTINCT FROM "t.lng") AND (NOT "__load_given.timezone" OR "s.timezone" IS NOT DISTINCT FROM "t.timezone"), false) AS "__load_touch",
    "t.first_seen_date" AS "__load_old",
    "t.name_kept",
    "t.state_kept",
    "t.country_kept",
    "t.country_code_kept",
    "t.lat_kept",
    "t.lng_kept",
    "t.timezone_kept"
FROM (SELECT s."locode" AS "s.locode",
      s."name" AS "s.name",
      s."state" AS "s.state",
      s."country" AS "s.country",
      s."country_code" AS "s.country_code",
      s."lat" AS "s.lat",
      s."lng" AS "s.lng",
      s."timezone" AS "s.timezone",
      s."first_seen_at" AS "s.first_seen_at",
      s."last_seen_at" AS "s.last_seen_at",
      s."response_id" AS "s.response_id",
      s."first_seen_date" AS "s.first_seen_date",
      s."name_kept" AS "s.name_kept",
      s."state_kept" AS "s.state_kept",
      s."country_kept" AS "s.country_kept",
      s."country_code_kept" AS "s.country_code_kept",
      s."lat_kept" AS "s.lat_kept",
      s."lng_kept" AS "s.lng_kept",
      s."timezone_kept" AS "s.timezone_kept",
      t."locode" AS "t.locode",
      t."name" AS "t.name",
      t."state" AS "t.state",
      t."country" AS "t.country",
      t."country_code" AS "t.country_code",
      t."lat" AS "t.lat",
      t."lng" AS "t.lng",
      t."timezone" AS "t.timezone",
      t."first_seen_at" AS "t.first_seen_at",
      t."last_seen_at" AS "t.last_seen_at",
      t."response_id" AS "t.response_id",
      t."first_seen_date" AS "t.first_seen_date",
      t."name_kept" AS "t.name_kept",
      t."state_kept" AS "t.state_kept",
      t."country_kept" AS "t.country_kept",
      t."country_code_kept" AS "t.country_code_kept",
      t."lat_kept" AS "t.lat_kept",
      t."lng_kept" AS "t.lng_kept",
      t."timezone_kept" AS "t.timezone_kept",
      t."__load_hit" IS NULL OR s."last_seen_at" > t."last_seen_at" OR (s."last_seen_at" = t."last_seen_at" AND s."response_id" > t."response_id") AS "__load_latest",
      t."__load_hit" IS NULL OR s."first_seen_at" < t."first_seen_at" AS "__load_older",
      t."__load_hit" AS "__load_hit",
      s."name" IS NOT NULL AND (t."name" IS NULL OR coalesce(s."name_kept"."seen_at", s."last_seen_at") > coalesce(t."name_kept"."seen_at", t."last_seen_at") OR (coalesce(s."name_kept"."seen_at", s."last_seen_at") = coalesce(t."name_kept"."seen_at", t."last_seen_at") AND coalesce(s."name_kept"."response_id", s."response_id") > coalesce(t."name_kept"."response_id", t."response_id"))) AS "__load_given.name",
      s."state" IS NOT NULL AND (t."state" IS NULL OR coalesce(s."state_kept"."seen_at", s."last_seen_at") > coalesce(t."state_kept"."seen_at", t."last_seen_at") OR (coalesce(s."state_kept"."seen_at", s."last_seen_at") = coalesce(t."state_kept"."seen_at", t."last_seen_at") AND coalesce(s."state_kept"."response_id", s."response_id") > coalesce(t."state_kept"."response_id", t."response_id"))) AS "__load_given.state",
      s."country" IS NOT NULL AND (t."country" IS NULL OR coalesce(s."country_kept"."seen_at", s."last_seen_at") > coalesce(t."country_kept"."seen_at", t."last_seen_at") OR (coalesce(s."country_kept"."seen_at", s."last_seen_at") = coalesce(t."country_kept"."seen_at", t."last_seen_at") AND coalesce(s."country_kept"."response_id", s."response_id") > coalesce(t."country_kept"."response_id", t."response_id"))) AS "__load_given.country",
      s."country_code" IS NOT NULL AND (t."country_code" IS NULL OR coalesce(s."country_code_kept"."seen_at", s."last_seen_at") > coalesce(t."country_code_kept"."seen_at", t."last_seen_at") OR (coalesce(s."country_code_kept"."seen_at", s."last_seen_at") = coalesce(t."country_code_kept"."seen_at", t."last_seen_at") AND coalesce(s."country_code_kept"."response_id", s."response_id") > coalesce(t."country_code_kept"."response_id", t."response_id"))) AS "__load_given.country_code",
      s."lat" IS NOT NULL AND (t."lat" IS NULL OR coalesce(s."lat_kept"."seen_at", s."last_seen_at") > coalesce(t."lat_kept"."seen_at", t."last_seen_at") OR (coalesce(s."lat_kept"."seen_at", s."last_seen_at") = coalesce(t."lat_kept"."seen_at", t."last_seen_at") AND coalesce(s."lat_kept"."response_id", s."response_id") > coalesce(t."lat_kept"."response_id", t."response_id"))) AS "__load_given.lat",
      s."lng" IS NOT NULL AND (t."lng" IS NULL OR coalesce(s."lng_kept"."seen_at", s."last_seen_at") > coalesce(t."lng_kept"."seen_at", t."last_seen_at") OR (coalesce(s."lng_kept"."seen_at", s."last_seen_at") = coalesce(t."lng_kept"."seen_at", t."last_seen_at") AND coalesce(s."lng_kept"."response_id", s."response_id") > coalesce(t."lng_kept"."response_id", t."response_id"))) AS "__load_given.lng",
      s."timezone" IS NOT NULL AND (t."timezone" IS NULL OR coalesce(s."timezone_kept"."seen_at", s."last_seen_at") > coalesce(t."timezone_kept"."seen_at", t."last_seen_at") OR (coalesce(s."timezone_kept"."seen_at", s."last_seen_at") = coalesce(t."timezone_kept"."seen_at", t."last_seen_at") AND coalesce(s."timezone_kept"."response_id", s."response_id") > coalesce(t."timezone_kept"."response_id", t."response_id"))) AS "__load_given.timezone"
FROM (SELECT "locode" AS "locode",
        arg_max("name", "name_kept") AS "name",
        arg_max("state", "state_kept") AS "state",
        arg_max("country", "country_kept") AS "country",
        arg_max("country_code", "country_code_kept") AS "country_code",
        arg_max("lat", "lat_kept") AS "lat",
        arg_max("lng", "lng_kept") AS "lng",
        arg_max("timezone", "timezone_kept") AS "timezone",
        min("first_seen_at") AS "first_seen_at",
        max("last_seen_at") AS "last_seen_at",
        arg_max("response_id", "__load_obs") AS "response_id",
        arg_min("first_seen_date", "first_seen_at") AS "first_seen_date",
        CASE WHEN max("name_kept") = max("__load_obs") THEN NULL ELSE max("name_kept") END AS "name_kept",
        CASE WHEN max("state_kept") = max("__load_obs") THEN NULL ELSE max("state_kept") END AS "state_kept",
        CASE WHEN max("country_kept") = max("__load_obs") THEN NULL ELSE max("country_kept") END AS "country_kept",
        CASE WHEN max("country_code_kept") = max("__load_obs") THEN NULL ELSE max("country_code_kept") END AS "country_code_kept",
        CASE WHEN max("lat_kept") = max("__load_obs") THEN NULL ELSE max("lat_kept") END AS "lat_kept",
        CASE WHEN max("lng_kept") = max("__load_obs") THEN NULL ELSE max("lng_kept") END AS "lng_kept",
        CASE WHEN max("timezone_kept") = max("__load_obs") THEN NULL ELSE max("timezone_kept") END AS "timezone_kept"
      FROM (SELECT *,
          CASE WHEN "name" IS NOT NULL THEN "__load_obs" END AS "name_kept",
          CASE WHEN "state" IS NOT NULL THEN "__load_obs" END AS "state_kept",
          CASE WHEN "country" IS NOT NULL THEN "__load_obs" END AS "country_kept",
          CASE WHEN "country_code" IS NOT NULL THEN "__load_obs" END AS "country_code_kept",
          CASE WHEN "lat" IS NOT NULL THEN "__load_obs" END AS "lat_kept",
          CASE WHEN "lng" IS NOT NULL THEN "__load_obs" END AS "lng_kept",
          CASE WHEN "timezone" IS NOT NULL THEN "__load_obs" END AS "timezone_kept"
        FROM (SELECT *,
            {'seen_at': "last_seen_at",
            'response_id': "response_id"} AS "__load_obs"
          FROM (SELECT "locode",
              nullif("name", '') AS "name",
              nullif("state", '') AS "state",
              nullif("country", '') AS "country",
              nullif("country_code", '') AS "country_code",
              "lat",
              "lng",
              nullif("timezone", '') AS "timezone",
              "first_seen_at",
              "last_seen_at",
              "response_id",
              "first_seen_date"
            FROM "__load_in")))
      GROUP BY "locode") AS s
    LEFT JOIN (SELECT *,
        true AS "__load_hit"
      FROM "locations") AS t ON t."locode" = s."locode")
WHERE "__load_latest" OR "__load_older" OR "__load_given.name" OR "__load_given.state" OR "__load_given.country" OR "__load_given.country_code" OR "__load_given.lat" OR "__load_given.lng" OR "__load_given.timezone");

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE NOT "__load_changed"."__load_touch"),
  count(*) FILTER (WHERE "__load_touch"),
  count(*) FILTER (WHERE "__load_touch" AND "__load_kept")
FROM "__load_changed";

-- touchSQL: the touches, in place
UPDATE "locations" AS t
SET "last_seen_at" = n."last_seen_at",
  "response_id" = n."response_id"
FROM "__load_changed" AS n
WHERE t."locode" = n."locode" AND n."__load_touch" AND n."__load_kept" = false;

-- touchSQL: the touches that change Kept columns too
UPDATE "locations" AS t
SET "last_seen_at" = n."last_seen_at",
  "response_id" = n."response_id",
  "name_kept" = n."name_kept",
  "state_kept" = n."state_kept",
  "country_kept" = n."country_kept",
  "country_code_kept" = n."country_code_kept",
  "lat_kept" = n."lat_kept",
  "lng_kept" = n."lng_kept",
  "timezone_kept" = n."timezone_kept"
FROM "__load_changed" AS n
WHERE t."locode" = n."locode" AND n."__load_touch" AND n."__load_kept" = true;

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "locations" AS t USING "__load_changed" AS n
WHERE t."locode" = n."locode" AND n."__load_old" IS NOT NULL AND NOT n."__load_touch";

-- insertSQL: the changed rows that are not touches
INSERT INTO "locations" ("locode", "name", "state", "country", "country_code", "lat", "lng", "timezone", "first_seen_at", "last_seen_at", "response_id", "first_seen_date", "name_kept", "state_kept", "country_kept", "country_code_kept", "lat_kept", "lng_kept", "timezone_kept")
SELECT "locode",
  "name",
  "state",
  "country",
  "country_code",
  "lat",
  "lng",
  "timezone",
  "first_seen_at",
  "last_seen_at",
  "response_id",
  "first_seen_date",
  "name_kept",
  "state_kept",
  "country_kept",
  "country_code_kept",
  "lat_kept",
  "lng_kept",
  "timezone_kept"
FROM "__load_changed" AS n
WHERE NOT n."__load_touch";

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'locations',
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
  WHERE table_name = 'locations' AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT 'locations',
  CAST("locode" AS VARCHAR)
FROM "__load_changed"
WHERE CAST("locode" AS VARCHAR) NOT IN (SELECT key
  FROM pending_keys
  WHERE table_name = 'locations');

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "locode",
    "name",
    "state",
    "country",
    "country_code",
    "lat",
    "lng",
    "timezone",
    "first_seen_at",
    "last_seen_at",
    "response_id",
    "name_kept",
    "state_kept",
    "country_kept",
    "country_code_kept",
    "lat_kept",
    "lng_kept",
    "timezone_kept"
  FROM "locations"
  WHERE "first_seen_date" = DATE '2026-01-05'
  ORDER BY "locode") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
