-- The SQL the loader emits for containers (kind latest), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "shipment_number",
    "container_number" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT s."shipment_number" AS "shipment_number",
  s."container_number" AS "container_number",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."shipment_type" ELSE t."shipment_type" END AS "shipment_type",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."iso_code" ELSE t."iso_code" END AS "iso_code",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."status" ELSE t."status" END AS "status",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_at" ELSE t."first_observed_at" END AS "first_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."last_observed_at" ELSE t."last_observed_at" END AS "last_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."response_id" ELSE t."response_id" END AS "response_id",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_date" ELSE t."first_observed_date" END AS "first_observed_date",
  coalesce(t."__load_hit" AND NOT s."first_observed_at" < t."first_observed_at" AND row(s."shipment_type", s."iso_code", s."status") IS NOT DISTINCT FROM row(t."shipment_type", t."iso_code", t."status"), false) AS "__load_touch",
  t."first_observed_date" AS "__load_old"
FROM (SELECT "shipment_number",
    "container_number",
    "shipment_type",
    "iso_code",
    "status",
    "first_observed_at",
    "last_observed_at",
    "response_id",
    "first_observed_date"
  FROM "__load_in") AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "containers") AS t ON t."shipment_number" = s."shipment_number" AND t."container_number" = s."container_number"
WHERE t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) OR s."first_observed_at" < t."first_observed_at";

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT s."shipment_number" AS "shipment_number",
  s."container_number" AS "container_number",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."shipment_type" ELSE t."shipment_type" END AS "shipment_type",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."iso_code" ELSE t."iso_code" END AS "iso_code",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."status" ELSE t."status" END AS "status",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_at" ELSE t."first_observed_at" END AS "first_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."last_observed_at" ELSE t."last_observed_at" END AS "last_observed_at",
  CASE WHEN t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) THEN s."response_id" ELSE t."response_id" END AS "response_id",
  CASE WHEN t."__load_hit" IS NULL OR s."first_observed_at" < t."first_observed_at" THEN s."first_observed_date" ELSE t."first_observed_date" END AS "first_observed_date",
  coalesce(t."__load_hit" AND NOT s."first_observed_at" < t."first_observed_at" AND row(s."shipment_type", s."iso_code", s."status") IS NOT DISTINCT FROM row(t."shipment_type", t."iso_code", t."status"), false) AS "__load_touch",
  t."first_observed_date" AS "__load_old"
FROM (SELECT "shipment_number",
    "container_number",
    "shipment_type",
    "iso_code",
    "status",
    min("first_observed_at") OVER w AS "first_observed_at",
    "last_observed_at",
    "response_id",
    arg_min("first_observed_date", "first_observed_at") OVER w AS "first_observed_date"
  FROM "__load_in"
  WINDOW w AS (PARTITION BY "shipment_number", "container_number")
  QUALIFY row_number() OVER (PARTITION BY "shipment_number", "container_number" ORDER BY "last_observed_at" DESC, "response_id" DESC) = 1) AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "containers") AS t ON t."shipment_number" = s."shipment_number" AND t."container_number" = s."container_number"
WHERE t."__load_hit" IS NULL OR (s."last_observed_at" > t."last_observed_at" OR (s."last_observed_at" = t."last_observed_at" AND s."response_id" > t."response_id")) OR s."first_observed_at" < t."first_observed_at";

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE NOT "__load_changed"."__load_touch"),
  count(*) FILTER (WHERE "__load_touch"),
  0::BIGINT
FROM "__load_changed";

-- touchSQL: the touches, in place
UPDATE "containers" AS t
SET "last_observed_at" = n."last_observed_at",
  "response_id" = n."response_id"
FROM "__load_changed" AS n
WHERE t."shipment_number" = n."shipment_number" AND t."container_number" = n."container_number" AND n."__load_touch";

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "containers" AS t USING "__load_changed" AS n
WHERE t."shipment_number" = n."shipment_number" AND t."container_number" = n."container_number" AND n."__load_old" IS NOT NULL AND NOT n."__load_touch";

-- insertSQL: the changed rows that are not touches
INSERT INTO "containers" ("shipment_number", "container_number", "shipment_type", "iso_code", "status", "first_observed_at", "last_observed_at", "response_id", "first_observed_date")
SELECT "shipment_number",
  "container_number",
  "shipment_type",
  "iso_code",
  "status",
  "first_observed_at",
  "last_observed_at",
  "response_id",
  "first_observed_date"
FROM "__load_changed" AS n
WHERE NOT n."__load_touch";

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'containers',
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
  WHERE table_name = 'containers' AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT 'containers',
  CAST("shipment_number" AS VARCHAR)
FROM "__load_changed"
WHERE CAST("shipment_number" AS VARCHAR) NOT IN (SELECT key
  FROM pending_keys
  WHERE table_name = 'containers');
INSERT INTO analytics_pending
SELECT DISTINCT shipment_number
FROM "__load_changed";

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "shipment_number",
    "container_number",
    "shipment_type",
    "iso_code",
    "status",
    "first_observed_at",
    "last_observed_at",
    "response_id"
  FROM "containers"
  WHERE "first_observed_date" = DATE '2026-01-05'
  ORDER BY "shipment_number",
    "container_number") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
