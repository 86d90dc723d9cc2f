-- The SQL the loader emits for vessels (kind dimension), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "imo" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT * EXCLUDE ("t.name_kept", "t.call_sign_kept", "t.mmsi_kept", "t.flag_kept") REPLACE (CASE WHEN "__load_touch" THEN NULL ELSE "name" END AS "name", CASE WHEN "__load_touch" THEN NULL ELSE "call_sign" END AS "call_sign", CASE WHEN "__load_touch" THEN NULL ELSE "mmsi" END AS "mmsi", CASE WHEN "__load_touch" THEN NULL ELSE "flag" END AS "flag"),
  coalesce("name_kept" IS DISTINCT FROM "t.name_kept" OR "call_sign_kept" IS DISTINCT FROM "t.call_sign_kept" OR "mmsi_kept" IS DISTINCT FROM "t.mmsi_kept" OR "flag_kept" IS DISTINCT FROM "t.flag_kept", false) AS "__load_kept"
FROM (SELECT "s.imo" AS "imo",
    CASE WHEN "__load_given.name" THEN "s.name" ELSE "t.name" END AS "name",
    CASE WHEN "__load_given.call_sign" THEN "s.call_sign" ELSE "t.call_sign" END AS "call_sign",
    CASE WHEN "__load_given.mmsi" THEN "s.mmsi" ELSE "t.mmsi" END AS "mmsi",
    CASE WHEN "__load_given.flag" THEN "s.flag" ELSE "t.flag" END AS "flag",
    CASE WHEN "__load_older" THEN "s.first_seen_at" ELSE "t.first_seen_at" END AS "first_seen_at",
    CASE WHEN "__load_latest" THEN "s.last_seen_at" ELSE "t.last_seen_at" END AS "last_seen_at",
    CASE WHEN "__load_latest" THEN "s.response_id" ELSE "t.response_id" END AS "response_id",
    CASE WHEN "__load_older" THEN "s.first_seen_date" ELSE "t.first_seen_date" END AS "first_seen_date",
    CASE WHEN "__load_given.name" AND "__load_latest" THEN NULL WHEN "__load_given.name" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.name" IS NOT NULL THEN coalesce("t.name_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.name_kept" END AS "name_kept",
    CASE WHEN "__load_given.call_sign" AND "__load_latest" THEN NULL WHEN "__load_given.call_sign" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.call_sign" IS NOT NULL THEN coalesce("t.call_sign_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.call_sign_kept" END AS "call_sign_kept",
    CASE WHEN "__load_given.mmsi" AND "__load_latest" THEN NULL WHEN "__load_given.mmsi" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.mmsi" IS NOT NULL THEN coalesce("t.mmsi_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.mmsi_kept" END AS "mmsi_kept",
    CASE WHEN "__load_given.flag" AND "__load_latest" THEN NULL WHEN "__load_given.flag" THEN coalesce(NULL, {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.flag" IS NOT NULL THEN coalesce("t.flag_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.flag_kept" END AS "flag_kept",
    coalesce("__load_hit" AND NOT "__load_older" AND (NOT "__load_given.name" OR "s.name" IS NOT DISTINCT FROM "t.name") AND (NOT "__load_given.call_sign" OR "s.call_sign" IS NOT DISTINCT FROM "t.call_sign") AND (NOT "__load_given.mmsi" OR "s.mmsi" IS NOT DISTINCT FROM "t.mmsi") AND (NOT "__load_given.flag" OR "s.flag" IS NOT DISTINCT FROM "t.flag"), false) AS "__load_touch",
    "t.first_seen_date" AS "__load_old",
    "t.name_kept",
    "t.call_sign_kept",
    "t.mmsi_kept",
    "t.flag_kept"
FROM (SELECT s."imo" AS "s.imo",
      s."name" AS "s.name",
      s."call_sign" AS "s.call_sign",
      s."mmsi" AS "s.mmsi",
      s."flag" AS "s.flag",
      s."first_seen_at" AS "s.first_seen_at",
      s."last_seen_at" AS "s.last_seen_at",
      s."response_id" AS "s.response_id",
      s."first_seen_date" AS "s.first_seen_date",
      t."imo" AS "t.imo",
      t."name" AS "t.name",
      t."call_sign" AS "t.call_sign",
      t."mmsi" AS "t.mmsi",
      t."flag" AS "t.flag",
      t."first_seen_at" AS "t.first_seen_at",
      t."last_seen_at" AS "t.last_seen_at",
      t."response_id" AS "t.response_id",
      t."first_seen_date" AS "t.first_seen_date",
      t."name_kept" AS "t.name_kept",
      t."call_sign_kept" AS "t.call_sign_kept",
      t."mmsi_kept" AS "t.mmsi_kept",
      t."flag_kept" AS "t.flag_kept",
      t."__load_hit" IS NULL OR s."last_seen_at" > t."last_seen_at" OR (s."last_seen_at" = t."last_seen_at" AND s."response_id" > t."response_id") AS "__load_latest",
      t."__load_hit" IS NULL OR s."first_seen_at" < t."first_seen_at" AS "__load_older",
      t."__load_hit" AS "__load_hit",
      s."name" IS NOT NULL AND (t."name" IS NULL OR s."last_seen_at" > coalesce(t."name_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."name_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."name_kept"."response_id", t."response_id"))) AS "__load_given.name",
      s."call_sign" IS NOT NULL AND (t."call_sign" IS NULL OR s."last_seen_at" > coalesce(t."call_sign_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."call_sign_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."call_sign_kept"."response_id", t."response_id"))) AS "__load_given.call_sign",
      s."mmsi" IS NOT NULL AND (t."mmsi" IS NULL OR s."last_seen_at" > coalesce(t."mmsi_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."mmsi_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."mmsi_kept"."response_id", t."response_id"))) AS "__load_given.mmsi",
      s."flag" IS NOT NULL AND (t."flag" IS NULL OR s."last_seen_at" > coalesce(t."flag_kept"."seen_at", t."last_seen_at") OR (s."last_seen_at" = coalesce(t."flag_kept"."seen_at", t."last_seen_at") AND s."response_id" > coalesce(t."flag_kept"."response_id", t."response_id"))) AS "__load_given.flag"
FROM (SELECT "imo",
        nullif("name", '') AS "name",
        nullif("call_sign", '') AS "call_sign",
        "mmsi",
        nullif("flag", '') AS "flag",
        "first_seen_at",
        "last_seen_at",
        "response_id",
        "first_seen_date"
      FROM "__load_in") AS s
    LEFT JOIN (SELECT *,
        true AS "__load_hit"
      FROM "vessels") AS t ON t."imo" = s."imo")
WHERE "__load_latest" OR "__load_older" OR "__load_given.name" OR "__load_given.call_sign" OR "__load_given.mmsi" OR "__load_given.flag");

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT * EXCLUDE ("t.name_kept", "t.call_sign_kept", "t.mmsi_kept", "t.flag_kept") REPLACE (CASE WHEN "__load_touch" THEN NULL ELSE "name" END AS "name", CASE WHEN "__load_touch" THEN NULL ELSE "call_sign" END AS "call_sign", CASE WHEN "__load_touch" THEN NULL ELSE "mmsi" END AS "mmsi", CASE WHEN "__load_touch" THEN NULL ELSE "flag" END AS "flag"),
  coalesce("name_kept" IS DISTINCT FROM "t.name_kept" OR "call_sign_kept" IS DISTINCT FROM "t.call_sign_kept" OR "mmsi_kept" IS DISTINCT FROM "t.mmsi_kept" OR "flag_kept" IS DISTINCT FROM "t.flag_kept", false) AS "__load_kept"
FROM (SELECT "s.imo" AS "imo",
    CASE WHEN "__load_given.name" THEN "s.name" ELSE "t.name" END AS "name",
    CASE WHEN "__load_given.call_sign" THEN "s.call_sign" ELSE "t.call_sign" END AS "call_sign",
    CASE WHEN "__load_given.mmsi" THEN "s.mmsi" ELSE "t.mmsi" END AS "mmsi",
    CASE WHEN "__load_given.flag" THEN "s.flag" ELSE "t.flag" END AS "flag",
    CASE WHEN "__load_older" THEN "s.first_seen_at" ELSE "t.first_seen_at" END AS "first_seen_at",
    CASE WHEN "__load_latest" THEN "s.last_seen_at" ELSE "t.last_seen_at" END AS "last_seen_at",
    CASE WHEN "__load_latest" THEN "s.response_id" ELSE "t.response_id" END AS "response_id",
    CASE WHEN "__load_older" THEN "s.first_seen_date" ELSE "t.first_seen_date" END AS "first_seen_date",
    CASE WHEN "__load_given.name" AND "__load_latest" THEN "s.name_kept" WHEN "__load_given.name" THEN coalesce("s.name_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.name" IS NOT NULL THEN coalesce("t.name_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.name_kept" END AS "name_kept",
    CASE WHEN "__load_given.call_sign" AND "__load_latest" THEN "s.call_sign_kept" WHEN "__load_given.call_sign" THEN coalesce("s.call_sign_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.call_sign" IS NOT NULL THEN coalesce("t.call_sign_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.call_sign_kept" END AS "call_sign_kept",
    CASE WHEN "__load_given.mmsi" AND "__load_latest" THEN "s.mmsi_kept" WHEN "__load_given.mmsi" THEN coalesce("s.mmsi_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.mmsi" IS NOT NULL THEN coalesce("t.mmsi_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.mmsi_kept" END AS "mmsi_kept",
    CASE WHEN "__load_given.flag" AND "__load_latest" THEN "s.flag_kept" WHEN "__load_given.flag" THEN coalesce("s.flag_kept", {'seen_at': "s.last_seen_at", 'response_id': "s.response_id"}) WHEN "__load_latest" AND "t.flag" IS NOT NULL THEN coalesce("t.flag_kept", {'seen_at': "t.last_seen_at", 'response_id': "t.response_id"}) ELSE "t.flag_kept" END AS "flag_kept",
    coalesce("__load_hit" AND NOT "__load_older" AND (NOT "__load_given.name" OR "s.name" IS NOT DISTINCT FROM "t.name") AND (NOT "__load_given.call_sign" OR "s.call_sign" IS NOT DISTINCT FROM "t.call_sign") AND (NOT "__load_given.mmsi" OR "s.mmsi" IS NOT DISTINCT FROM "t.mmsi") AND (NOT "__load_given.flag" OR "s.flag" IS NOT DISTINCT FROM "t.flag"), false) AS "__load_touch",
    "t.first_seen_date" AS "__load_old",
    "t.name_kept",
    "t.call_sign_kept",
    "t.mmsi_kept",
    "t.flag_kept"
FROM (SELECT s."imo" AS "s.imo",
      s."name" AS "s.name",
      s."call_sign" AS "s.call_sign",
      s."mmsi" AS "s.mmsi",
      s."flag" AS "s.flag",
      s."first_seen_at" AS "s.first_seen_at",
      s."last_seen_at" AS "s.last_seen_at",
      s."response_id" AS "s.response_id",
      s."first_seen_date" AS "s.first_seen_date",
      s."name_kept" AS "s.name_kept",
      s."call_sign_kept" AS "s.call_sign_kept",
      s."mmsi_kept" AS "s.mmsi_kept",
      s."flag_kept" AS "s.flag_kept",
      t."imo" AS "t.imo",
      t."name" AS "t.name",
      t."call_sign" AS "t.call_sign",
      t."mmsi" AS "t.mmsi",
      t."flag" AS "t.flag",
      t."first_seen_at" AS "t.first_seen_at",
      t."last_seen_at" AS "t.last_seen_at",
      t."response_id" AS "t.response_id",
      t."first_seen_date" AS "t.first_seen_date",
      t."name_kept" AS "t.name_kept",
      t."call_sign_kept" AS "t.call_sign_kept",
      t."mmsi_kept" AS "t.mmsi_kept",
      t."flag_kept" AS "t.flag_kept",
      t."__load_hit" IS NULL OR s."last_seen_at" > t."last_seen_at" OR (s."last_seen_at" = t."last_seen_at" AND s."response_id" > t."response_id") AS "__load_latest",
      t."__load_hit" IS NULL OR s."first_seen_at" < t."first_seen_at" AS "__load_older",
      t."__load_hit" AS "__load_hit",
      s."name" IS NOT NULL AND (t."name" IS NULL OR coalesce(s."name_kept"."seen_at", s."last_seen_at") > coalesce(t."name_kept"."seen_at", t."last_seen_at") OR (coalesce(s."name_kept"."seen_at", s."last_seen_at") = coalesce(t."name_kept"."seen_at", t."last_seen_at") AND coalesce(s."name_kept"."response_id", s."response_id") > coalesce(t."name_kept"."response_id", t."response_id"))) AS "__load_given.name",
      s."call_sign" IS NOT NULL AND (t."call_sign" IS NULL OR coalesce(s."call_sign_kept"."seen_at", s."last_seen_at") > coalesce(t."call_sign_kept"."seen_at", t."last_seen_at") OR (coalesce(s."call_sign_kept"."seen_at", s."last_seen_at") = coalesce(t."call_sign_kept"."seen_at", t."last_seen_at") AND coalesce(s."call_sign_kept"."response_id", s."response_id") > coalesce(t."call_sign_kept"."response_id", t."response_id"))) AS "__load_given.call_sign",
      s."mmsi" IS NOT NULL AND (t."mmsi" IS NULL OR coalesce(s."mmsi_kept"."seen_at", s."last_seen_at") > coalesce(t."mmsi_kept"."seen_at", t."last_seen_at") OR (coalesce(s."mmsi_kept"."seen_at", s."last_seen_at") = coalesce(t."mmsi_kept"."seen_at", t."last_seen_at") AND coalesce(s."mmsi_kept"."response_id", s."response_id") > coalesce(t."mmsi_kept"."response_id", t."response_id"))) AS "__load_given.mmsi",
      s."flag" IS NOT NULL AND (t."flag" IS NULL OR coalesce(s."flag_kept"."seen_at", s."last_seen_at") > coalesce(t."flag_kept"."seen_at", t."last_seen_at") OR (coalesce(s."flag_kept"."seen_at", s."last_seen_at") = coalesce(t."flag_kept"."seen_at", t."last_seen_at") AND coalesce(s."flag_kept"."response_id", s."response_id") > coalesce(t."flag_kept"."response_id", t."response_id"))) AS "__load_given.flag"
FROM (SELECT "imo" AS "imo",
        arg_max("name", "name_kept") AS "name",
        arg_max("call_sign", "call_sign_kept") AS "call_sign",
        arg_max("mmsi", "mmsi_kept") AS "mmsi",
        arg_max("flag", "flag_kept") AS "flag",
        min("first_seen_at") AS "first_seen_at",
        max("last_seen_at") AS "last_seen_at",
        arg_max("response_id", "__load_obs") AS "response_id",
        arg_min("first_seen_date", "first_seen_at") AS "first_seen_date",
        CASE WHEN max("name_kept") = max("__load_obs") THEN NULL ELSE max("name_kept") END AS "name_kept",
        CASE WHEN max("call_sign_kept") = max("__load_obs") THEN NULL ELSE max("call_sign_kept") END AS "call_sign_kept",
        CASE WHEN max("mmsi_kept") = max("__load_obs") THEN NULL ELSE max("mmsi_kept") END AS "mmsi_kept",
        CASE WHEN max("flag_kept") = max("__load_obs") THEN NULL ELSE max("flag_kept") END AS "flag_kept"
      FROM (SELECT *,
          CASE WHEN "name" IS NOT NULL THEN "__load_obs" END AS "name_kept",
          CASE WHEN "call_sign" IS NOT NULL THEN "__load_obs" END AS "call_sign_kept",
          CASE WHEN "mmsi" IS NOT NULL THEN "__load_obs" END AS "mmsi_kept",
          CASE WHEN "flag" IS NOT NULL THEN "__load_obs" END AS "flag_kept"
        FROM (SELECT *,
            {'seen_at': "last_seen_at",
            'response_id': "response_id"} AS "__load_obs"
          FROM (SELECT "imo",
              nullif("name", '') AS "name",
              nullif("call_sign", '') AS "call_sign",
              "mmsi",
              nullif("flag", '') AS "flag",
              "first_seen_at",
              "last_seen_at",
              "response_id",
              "first_seen_date"
            FROM "__load_in")))
      GROUP BY "imo") AS s
    LEFT JOIN (SELECT *,
        true AS "__load_hit"
      FROM "vessels") AS t ON t."imo" = s."imo")
WHERE "__load_latest" OR "__load_older" OR "__load_given.name" OR "__load_given.call_sign" OR "__load_given.mmsi" OR "__load_given.flag");

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE NOT "__load_changed"."__load_touch"),
  count(*) FILTER (WHERE "__load_touch"),
  count(*) FILTER (WHERE "__load_touch" AND "__load_kept")
FROM "__load_changed";

-- touchSQL: the touches, in place
UPDATE "vessels" AS t
SET "last_seen_at" = n."last_seen_at",
  "response_id" = n."response_id"
FROM "__load_changed" AS n
WHERE t."imo" = n."imo" AND n."__load_touch" AND n."__load_kept" = false;

-- touchSQL: the touches that change Kept columns too
UPDATE "vessels" AS t
SET "last_seen_at" = n."last_seen_at",
  "response_id" = n."response_id",
  "name_kept" = n."name_kept",
  "call_sign_kept" = n."call_sign_kept",
  "mmsi_kept" = n."mmsi_kept",
  "flag_kept" = n."flag_kept"
FROM "__load_changed" AS n
WHERE t."imo" = n."imo" AND n."__load_touch" AND n."__load_kept" = true;

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "vessels" AS t USING "__load_changed" AS n
WHERE t."imo" = n."imo" AND n."__load_old" IS NOT NULL AND NOT n."__load_touch";

-- insertSQL: the changed rows that are not touches
INSERT INTO "vessels" ("imo", "name", "call_sign", "mmsi", "flag", "first_seen_at", "last_seen_at", "response_id", "first_seen_date", "name_kept", "call_sign_kept", "mmsi_kept", "flag_kept")
SELECT "imo",
  "name",
  "call_sign",
  "mmsi",
  "flag",
  "first_seen_at",
  "last_seen_at",
  "response_id",
  "first_seen_date",
  "name_kept",
  "call_sign_kept",
  "mmsi_kept",
  "flag_kept"
FROM "__load_changed" AS n
WHERE NOT n."__load_touch";

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'vessels',
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
  WHERE table_name = 'vessels' AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT 'vessels',
  CAST("imo" AS VARCHAR)
FROM "__load_changed"
WHERE CAST("imo" AS VARCHAR) NOT IN (SELECT key
  FROM pending_keys
  WHERE table_name = 'vessels');

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "imo",
    "name",
    "call_sign",
    "mmsi",
    "flag",
    "first_seen_at",
    "last_seen_at",
    "response_id",
    "name_kept",
    "call_sign_kept",
    "mmsi_kept",
    "flag_kept"
  FROM "vessels"
  WHERE "first_seen_date" = DATE '2026-01-05'
  ORDER BY "imo") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
