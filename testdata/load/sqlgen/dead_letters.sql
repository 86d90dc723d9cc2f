-- The SQL the loader emits for dead_letters (kind append), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "response_id",
    "record",
    "reason" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT s."response_id" AS "response_id",
  s."record" AS "record",
  s."reason" AS "reason",
  s."endpoint" AS "endpoint",
  s."at" AS "at",
  s."at_date" AS "at_date",
  t."at_date" AS "__load_old"
FROM (SELECT "response_id",
    "record",
    "reason",
    "endpoint",
    "at",
    "at_date"
  FROM "__load_in") AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "dead_letters") AS t ON t."response_id" = s."response_id" AND t."record" = s."record" AND t."reason" = s."reason" AND t."at_date" IN (DATE '2026-01-05', DATE '2026-01-06')
WHERE t."__load_hit" IS NULL OR s."response_id" < t."response_id";

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT s."response_id" AS "response_id",
  s."record" AS "record",
  s."reason" AS "reason",
  s."endpoint" AS "endpoint",
  s."at" AS "at",
  s."at_date" AS "at_date",
  t."at_date" AS "__load_old"
FROM (SELECT "response_id",
    "record",
    "reason",
    "endpoint",
    "at",
    "at_date"
  FROM "__load_in"
  QUALIFY row_number() OVER (PARTITION BY "response_id", "record", "reason" ORDER BY "response_id") = 1) AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "dead_letters") AS t ON t."response_id" = s."response_id" AND t."record" = s."record" AND t."reason" = s."reason" AND t."at_date" IN (DATE '2026-01-05', DATE '2026-01-06')
WHERE t."__load_hit" IS NULL OR s."response_id" < t."response_id";

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE true),
  0::BIGINT,
  0::BIGINT
FROM "__load_changed";

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "dead_letters" AS t USING "__load_changed" AS n
WHERE t."response_id" = n."response_id" AND t."record" = n."record" AND t."reason" = n."reason" AND n."__load_old" IS NOT NULL AND true AND t."at_date" IN (DATE '2026-01-05', DATE '2026-01-06');

-- insertSQL: the changed rows that are not touches
INSERT INTO "dead_letters" ("response_id", "record", "reason", "endpoint", "at", "at_date")
SELECT "response_id",
  "record",
  "reason",
  "endpoint",
  "at",
  "at_date"
FROM "__load_changed" AS n
WHERE true;

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'dead_letters',
  x.d,
  NULL
FROM (SELECT "at_date"
  FROM "__load_changed"
  UNION
  SELECT "__load_old"
  FROM "__load_changed"
  WHERE "__load_old" IS NOT NULL AND "__load_old" <> "at_date") AS x(d)
WHERE x.d NOT IN (SELECT partition_date
  FROM parquet_pending
  WHERE table_name = 'dead_letters' AND keyed IS NULL);

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "response_id",
    "record",
    "reason",
    "endpoint",
    "at"
  FROM "dead_letters"
  WHERE "at_date" = DATE '2026-01-05'
  ORDER BY "response_id",
    "record",
    "reason") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
