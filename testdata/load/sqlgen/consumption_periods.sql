-- The SQL the loader emits for consumption_periods (kind append), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "product",
    "period_start",
    "observed_at" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT s."product" AS "product",
  s."period_start" AS "period_start",
  s."period_end" AS "period_end",
  s."credits_initial" AS "credits_initial",
  s."credits" AS "credits",
  s."expired" AS "expired",
  s."observed_at" AS "observed_at",
  s."response_id" AS "response_id",
  s."observed_date" AS "observed_date",
  t."observed_date" AS "__load_old"
FROM (SELECT "product",
    "period_start",
    "period_end",
    "credits_initial",
    "credits",
    "expired",
    "observed_at",
    "response_id",
    "observed_date"
  FROM "__load_in") AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "consumption_periods") AS t ON t."product" = s."product" AND t."period_start" = s."period_start" AND t."observed_at" = s."observed_at" AND t."observed_date" IN (DATE '2026-01-05', DATE '2026-01-06')
WHERE t."__load_hit" IS NULL OR s."response_id" < t."response_id";

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT s."product" AS "product",
  s."period_start" AS "period_start",
  s."period_end" AS "period_end",
  s."credits_initial" AS "credits_initial",
  s."credits" AS "credits",
  s."expired" AS "expired",
  s."observed_at" AS "observed_at",
  s."response_id" AS "response_id",
  s."observed_date" AS "observed_date",
  t."observed_date" AS "__load_old"
FROM (SELECT "product",
    "period_start",
    "period_end",
    "credits_initial",
    "credits",
    "expired",
    "observed_at",
    "response_id",
    "observed_date"
  FROM "__load_in"
  QUALIFY row_number() OVER (PARTITION BY "product", "period_start", "observed_at" ORDER BY "response_id") = 1) AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "consumption_periods") AS t ON t."product" = s."product" AND t."period_start" = s."period_start" AND t."observed_at" = s."observed_at" AND t."observed_date" IN (DATE '2026-01-05', DATE '2026-01-06')
WHERE t."__load_hit" IS NULL OR s."response_id" < t."response_id";

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE true),
  0::BIGINT,
  0::BIGINT
FROM "__load_changed";

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "consumption_periods" AS t USING "__load_changed" AS n
WHERE t."product" = n."product" AND t."period_start" = n."period_start" AND t."observed_at" = n."observed_at" AND n."__load_old" IS NOT NULL AND true AND t."observed_date" IN (DATE '2026-01-05', DATE '2026-01-06');

-- insertSQL: the changed rows that are not touches
INSERT INTO "consumption_periods" ("product", "period_start", "period_end", "credits_initial", "credits", "expired", "observed_at", "response_id", "observed_date")
SELECT "product",
  "period_start",
  "period_end",
  "credits_initial",
  "credits",
  "expired",
  "observed_at",
  "response_id",
  "observed_date"
FROM "__load_changed" AS n
WHERE true;

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'consumption_periods',
  x.d,
  NULL
FROM (SELECT "observed_date"
  FROM "__load_changed"
  UNION
  SELECT "__load_old"
  FROM "__load_changed"
  WHERE "__load_old" IS NOT NULL AND "__load_old" <> "observed_date") AS x(d)
WHERE x.d NOT IN (SELECT partition_date
  FROM parquet_pending
  WHERE table_name = 'consumption_periods' AND keyed IS NULL);

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "product",
    "period_start",
    "period_end",
    "credits_initial",
    "credits",
    "expired",
    "observed_at",
    "response_id"
  FROM "consumption_periods"
  WHERE "observed_date" = DATE '2026-01-05'
  ORDER BY "product",
    "period_start",
    "observed_at") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
