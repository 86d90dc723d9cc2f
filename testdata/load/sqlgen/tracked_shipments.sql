-- The SQL the loader emits for tracked_shipments (kind ledger), generated from its
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
  s."sealine" AS "sealine",
  s."added_at" AS "added_at",
  s."added_by" AS "added_by",
  s."removed_at" AS "removed_at",
  s."added_date" AS "added_date",
  s."next_due_date" AS "next_due_date",
  s."due_reason" AS "due_reason",
  s."deferred_since" AS "deferred_since",
  s."due_as_of" AS "due_as_of",
  t."added_date" AS "__load_old"
FROM (SELECT "shipment_number",
    "shipment_type",
    "sealine",
    "added_at",
    "added_by",
    "removed_at",
    "added_date",
    "next_due_date",
    "due_reason",
    "deferred_since",
    "due_as_of"
  FROM "__load_in") AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "tracked_shipments") AS t ON t."shipment_number" = s."shipment_number" AND t."shipment_type" = s."shipment_type"
WHERE t."__load_hit" IS NULL OR row(t."sealine", t."added_at", t."added_by", t."removed_at", t."added_date", t."next_due_date", t."due_reason", t."deferred_since", t."due_as_of") IS DISTINCT
FROM row(s."sealine", s."added_at", s."added_by", s."removed_at", s."added_date", s."next_due_date", s."due_reason", s."deferred_since", s."due_as_of");

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE true),
  0::BIGINT,
  0::BIGINT
FROM "__load_changed";

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "tracked_shipments" AS t USING "__load_changed" AS n
WHERE t."shipment_number" = n."shipment_number" AND t."shipment_type" = n."shipment_type" AND n."__load_old" IS NOT NULL AND true;

-- insertSQL: the changed rows that are not touches
INSERT INTO "tracked_shipments" ("shipment_number", "shipment_type", "sealine", "added_at", "added_by", "removed_at", "added_date", "next_due_date", "due_reason", "deferred_since", "due_as_of")
SELECT "shipment_number",
  "shipment_type",
  "sealine",
  "added_at",
  "added_by",
  "removed_at",
  "added_date",
  "next_due_date",
  "due_reason",
  "deferred_since",
  "due_as_of"
FROM "__load_changed" AS n
WHERE true;

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'tracked_shipments',
  x.d,
  true
FROM (SELECT "added_date"
  FROM "__load_changed"
  UNION
  SELECT "__load_old"
  FROM "__load_changed"
  WHERE "__load_old" IS NOT NULL AND "__load_old" <> "added_date") AS x(d)
WHERE x.d NOT IN (SELECT partition_date
  FROM parquet_pending
  WHERE table_name = 'tracked_shipments' AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT 'tracked_shipments',
  CAST("shipment_number" AS VARCHAR)
FROM "__load_changed"
WHERE CAST("shipment_number" AS VARCHAR) NOT IN (SELECT key
  FROM pending_keys
  WHERE table_name = 'tracked_shipments');

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "shipment_number",
    "shipment_type",
    "sealine",
    "added_at",
    "added_by",
    "removed_at",
    "next_due_date",
    "due_reason",
    "deferred_since",
    "due_as_of"
  FROM "tracked_shipments"
  WHERE "added_date" = DATE '2026-01-05'
  ORDER BY "shipment_number",
    "shipment_type") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
