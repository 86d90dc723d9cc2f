-- The SQL the loader emits for shipments (kind latest), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "shipment_number",
    "shipment_type" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT s."shipment_number" AS "shipment_number",
  s."shipment_type" AS "shipment_type",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."sealine" ELSE t."sealine" END AS "sealine",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."sealine_name" ELSE t."sealine_name" END AS "sealine_name",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."shipping_status" ELSE t."shipping_status" END AS "shipping_status",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."prepol_locode" ELSE t."prepol_locode" END AS "prepol_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."prepol_date" ELSE t."prepol_date" END AS "prepol_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."prepol_actual" ELSE t."prepol_actual" END AS "prepol_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pol_locode" ELSE t."pol_locode" END AS "pol_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pol_date" ELSE t."pol_date" END AS "pol_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pol_actual" ELSE t."pol_actual" END AS "pol_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_locode" ELSE t."pod_locode" END AS "pod_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_date" ELSE t."pod_date" END AS "pod_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_actual" ELSE t."pod_actual" END AS "pod_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_predictive_eta" ELSE t."pod_predictive_eta" END AS "pod_predictive_eta",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."postpod_locode" ELSE t."postpod_locode" END AS "postpod_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."postpod_date" ELSE t."postpod_date" END AS "postpod_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."postpod_actual" ELSE t."postpod_actual" END AS "postpod_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."container_count" ELSE t."container_count" END AS "container_count",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."updated_at" ELSE t."updated_at" END AS "updated_at",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_at" ELSE t."first_observed_at" END AS "first_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."last_observed_at" ELSE t."last_observed_at" END AS "last_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."response_id" ELSE t."response_id" END AS "response_id",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_date" ELSE t."first_observed_date" END AS "first_observed_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."updated_at_zone_assumed" ELSE t."updated_at_zone_assumed" END AS "updated_at_zone_assumed",
  coalesce(t."__load_hit" AND NOT s."first_observed_at" < t."first_observed_at" AND row(s."sealine", s."sealine_name", s."shipping_status", s."prepol_locode", s."prepol_date", s."prepol_actual", s."pol_locode", s."pol_date", s."pol_actual", s."pod_locode", s."pod_date", s."pod_actual", s."pod_predictive_eta", s."postpod_locode", s."postpod_date", s."postpod_actual", s."container_count", s."updated_at", s."updated_at_zone_assumed") IS NOT DISTINCT FROM row(t."sealine", t."sealine_name", t."shipping_status", t."prepol_locode", t."prepol_date", t."prepol_actual", t."pol_locode", t."pol_date", t."pol_actual", t."pod_locode", t."pod_date", t."pod_actual", t."pod_predictive_eta", t."postpod_locode", t."postpod_date", t."postpod_actual", t."container_count", t."updated_at", t."updated_at_zone_assumed"), false) AS "__load_touch",
  t."first_observed_date" AS "__load_old"
FROM (SELECT "shipment_number",
    "shipment_type",
    "sealine",
    "sealine_name",
    "shipping_status",
    "prepol_locode",
    "prepol_date",
    "prepol_actual",
    "pol_locode",
    "pol_date",
    "pol_actual",
    "pod_locode",
    "pod_date",
    "pod_actual",
    "pod_predictive_eta",
    "postpod_locode",
    "postpod_date",
    "postpod_actual",
    "container_count",
    "updated_at",
    "first_observed_at",
    "last_observed_at",
    "response_id",
    "first_observed_date",
    "updated_at_zone_assumed"
  FROM "__load_in") AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "shipments") AS t ON t."shipment_number" = s."shipment_number" AND t."shipment_type" = s."shipment_type"
WHERE t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) OR s."first_observed_at" < t."first_observed_at";

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT s."shipment_number" AS "shipment_number",
  s."shipment_type" AS "shipment_type",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."sealine" ELSE t."sealine" END AS "sealine",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."sealine_name" ELSE t."sealine_name" END AS "sealine_name",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."shipping_status" ELSE t."shipping_status" END AS "shipping_status",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."prepol_locode" ELSE t."prepol_locode" END AS "prepol_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."prepol_date" ELSE t."prepol_date" END AS "prepol_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."prepol_actual" ELSE t."prepol_actual" END AS "prepol_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pol_locode" ELSE t."pol_locode" END AS "pol_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pol_date" ELSE t."pol_date" END AS "pol_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pol_actual" ELSE t."pol_actual" END AS "pol_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_locode" ELSE t."pod_locode" END AS "pod_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_date" ELSE t."pod_date" END AS "pod_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_actual" ELSE t."pod_actual" END AS "pod_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."pod_predictive_eta" ELSE t."pod_predictive_eta" END AS "pod_predictive_eta",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."postpod_locode" ELSE t."postpod_locode" END AS "postpod_locode",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."postpod_date" ELSE t."postpod_date" END AS "postpod_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."postpod_actual" ELSE t."postpod_actual" END AS "postpod_actual",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."container_count" ELSE t."container_count" END AS "container_count",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."updated_at" ELSE t."updated_at" END AS "updated_at",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_at" ELSE t."first_observed_at" END AS "first_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."last_observed_at" ELSE t."last_observed_at" END AS "last_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."response_id" ELSE t."response_id" END AS "response_id",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_date" ELSE t."first_observed_date" END AS "first_observed_date",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."updated_at_zone_assumed" ELSE t."updated_at_zone_assumed" END AS "updated_at_zone_assumed",
  coalesce(t."__load_hit" AND NOT s."first_observed_at" < t."first_observed_at" AND row(s."sealine", s."sealine_name", s."shipping_status", s."prepol_locode", s."prepol_date", s."prepol_actual", s."pol_locode", s."pol_date", s."pol_actual", s."pod_locode", s."pod_date", s."pod_actual", s."pod_predictive_eta", s."postpod_locode", s."postpod_date", s."postpod_actual", s."container_count", s."updated_at", s."updated_at_zone_assumed") IS NOT DISTINCT FROM row(t."sealine", t."sealine_name", t."shipping_status", t."prepol_locode", t."prepol_date", t."prepol_actual", t."pol_locode", t."pol_date", t."pol_actual", t."pod_locode", t."pod_date", t."pod_actual", t."pod_predictive_eta", t."postpod_locode", t."postpod_date", t."postpod_actual", t."container_count", t."updated_at", t."updated_at_zone_assumed"), false) AS "__load_touch",
  t."first_observed_date" AS "__load_old"
FROM (SELECT "shipment_number",
    "shipment_type",
    "sealine",
    "sealine_name",
    "shipping_status",
    "prepol_locode",
    "prepol_date",
    "prepol_actual",
    "pol_locode",
    "pol_date",
    "pol_actual",
    "pod_locode",
    "pod_date",
    "pod_actual",
    "pod_predictive_eta",
    "postpod_locode",
    "postpod_date",
    "postpod_actual",
    "container_count",
    "updated_at",
    min("first_observed_at") OVER w AS "first_observed_at",
    "last_observed_at",
    "response_id",
    arg_min("first_observed_date", "first_observed_at") OVER w AS "first_observed_date",
    "updated_at_zone_assumed"
  FROM "__load_in"
  WINDOW w AS (PARTITION BY "shipment_number", "shipment_type")
  QUALIFY row_number() OVER (PARTITION BY "shipment_number", "shipment_type" ORDER BY "last_observed_at" DESC, "response_id" DESC) = 1) AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "shipments") AS t ON t."shipment_number" = s."shipment_number" AND t."shipment_type" = s."shipment_type"
WHERE t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) OR s."first_observed_at" < t."first_observed_at";

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE NOT "__load_changed"."__load_touch"),
  count(*) FILTER (WHERE "__load_touch"),
  0::BIGINT
FROM "__load_changed";

-- touchSQL: the touches, in place
UPDATE "shipments" AS t
SET "last_observed_at" = n."last_observed_at",
  "response_id" = n."response_id"
FROM "__load_changed" AS n
WHERE t."shipment_number" = n."shipment_number" AND t."shipment_type" = n."shipment_type" AND n."__load_touch";

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "shipments" AS t USING "__load_changed" AS n
WHERE t."shipment_number" = n."shipment_number" AND t."shipment_type" = n."shipment_type" AND n."__load_old" IS NOT NULL AND NOT n."__load_touch";

-- insertSQL: the changed rows that are not touches
INSERT INTO "shipments" ("shipment_number", "shipment_type", "sealine", "sealine_name", "shipping_status", "prepol_locode", "prepol_date", "prepol_actual", "pol_locode", "pol_date", "pol_actual", "pod_locode", "pod_date", "pod_actual", "pod_predictive_eta", "postpod_locode", "postpod_date", "postpod_actual", "container_count", "updated_at", "first_observed_at", "last_observed_at", "response_id", "first_observed_date", "updated_at_zone_assumed")
SELECT "shipment_number",
  "shipment_type",
  "sealine",
  "sealine_name",
  "shipping_status",
  "prepol_locode",
  "prepol_date",
  "prepol_actual",
  "pol_locode",
  "pol_date",
  "pol_actual",
  "pod_locode",
  "pod_date",
  "pod_actual",
  "pod_predictive_eta",
  "postpod_locode",
  "postpod_date",
  "postpod_actual",
  "container_count",
  "updated_at",
  "first_observed_at",
  "last_observed_at",
  "response_id",
  "first_observed_date",
  "updated_at_zone_assumed"
FROM "__load_changed" AS n
WHERE NOT n."__load_touch";

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'shipments',
  x.d,
  true
FROM (SELECT "first_observed_date"
  FROM "__load_changed"
  UNION
  SELECT "__load_old"
  FROM "__load_changed"
  WHERE "__load_old" IS NOT NULL AND "__load_old" <> "first_observed_date") AS x(d)
WHERE x.d NOT IN (SELECT partition_date
  FROM parquet_pending
  WHERE table_name = 'shipments' AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT 'shipments',
  CAST("shipment_number" AS VARCHAR)
FROM "__load_changed"
WHERE CAST("shipment_number" AS VARCHAR) NOT IN (SELECT key
  FROM pending_keys
  WHERE table_name = 'shipments');
INSERT INTO analytics_pending
SELECT DISTINCT shipment_number
FROM "__load_changed";

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "shipment_number",
    "shipment_type",
    "sealine",
    "sealine_name",
    "shipping_status",
    "prepol_locode",
    "prepol_date",
    "prepol_actual",
    "pol_locode",
    "pol_date",
    "pol_actual",
    "pod_locode",
    "pod_date",
    "pod_actual",
    "pod_predictive_eta",
    "postpod_locode",
    "postpod_date",
    "postpod_actual",
    "container_count",
    "updated_at",
    "first_observed_at",
    "last_observed_at",
    "response_id",
    "updated_at_zone_assumed"
  FROM "shipments"
  WHERE "first_observed_date" = DATE '2026-01-05'
  ORDER BY "shipment_number",
    "shipment_type") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
