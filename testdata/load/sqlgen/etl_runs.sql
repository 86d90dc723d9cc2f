-- The SQL the loader emits for etl_runs (kind ledger), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "run_id" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT s."run_id" AS "run_id",
  s."job" AS "job",
  s."logical_date" AS "logical_date",
  s."started_at" AS "started_at",
  s."ended_at" AS "ended_at",
  s."status" AS "status",
  s."exit_code" AS "exit_code",
  s."stop_reason" AS "stop_reason",
  s."requests" AS "requests",
  s."requests_by_status" AS "requests_by_status",
  s."credits_spent_schedule" AS "credits_spent_schedule",
  s."credits_uncertain_schedule" AS "credits_uncertain_schedule",
  s."calls_tracking" AS "calls_tracking",
  s."calls_uncertain_tracking" AS "calls_uncertain_tracking",
  s."balance_schedule_before" AS "balance_schedule_before",
  s."balance_schedule_after" AS "balance_schedule_after",
  s."balance_tracking_before" AS "balance_tracking_before",
  s."balance_tracking_after" AS "balance_tracking_after",
  s."drift_schedule" AS "drift_schedule",
  s."drift_tracking" AS "drift_tracking",
  s."rows_loaded" AS "rows_loaded",
  s."duration_seconds" AS "duration_seconds",
  s."args" AS "args",
  s."error" AS "error",
  s."version" AS "version",
  s."started_date" AS "started_date",
  s."shortfalls" AS "shortfalls",
  s."given_up" AS "given_up",
  s."shard" AS "shard",
  t."started_date" AS "__load_old"
FROM (SELECT "run_id",
    "job",
    "logical_date",
    "started_at",
    "ended_at",
    "status",
    "exit_code",
    "stop_reason",
    "requests",
    "requests_by_status",
    "credits_spent_schedule",
    "credits_uncertain_schedule",
    "calls_tracking",
    "calls_uncertain_tracking",
    "balance_schedule_before",
    "balance_schedule_after",
    "balance_tracking_before",
    "balance_tracking_after",
    "drift_schedule",
    "drift_tracking",
    "rows_loaded",
    "duration_seconds",
    "args",
    "error",
    "version",
    "started_date",
    "shortfalls",
    "given_up",
    "shard"
  FROM "__load_in") AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "etl_runs") AS t ON t."run_id" = s."run_id"
WHERE t."__load_hit" IS NULL OR row(t."job", t."logical_date", t."started_at", t."ended_at", t."status", t."exit_code", t."stop_reason", t."requests", t."requests_by_status", t."credits_spent_schedule", t."credits_uncertain_schedule", t."calls_tracking", t."calls_uncertain_tracking", t."balance_schedule_before", t."balance_schedule_after", t."balance_tracking_before", t."balance_tracking_after", t."drift_schedule", t."drift_tracking", t."rows_loaded", t."duration_seconds", t."args", t."error", t."version", t."started_date", t."shortfalls", t."given_up", t."shard") IS DISTINCT
FROM row(s."job", s."logical_date", s."started_at", s."ended_at", s."status", s."exit_code", s."stop_reason", s."requests", s."requests_by_status", s."credits_spent_schedule", s."credits_uncertain_schedule", s."calls_tracking", s."calls_uncertain_tracking", s."balance_schedule_before", s."balance_schedule_after", s."balance_tracking_before", s."balance_tracking_after", s."drift_schedule", s."drift_tracking", s."rows_loaded", s."duration_seconds", s."args", s."error", s."version", s."started_date", s."shortfalls", s."given_up", s."shard");

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE true),
  0::BIGINT,
  0::BIGINT
FROM "__load_changed";

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "etl_runs" AS t USING "__load_changed" AS n
WHERE t."run_id" = n."run_id" AND n."__load_old" IS NOT NULL AND true;

-- insertSQL: the changed rows that are not touches
INSERT INTO "etl_runs" ("run_id", "job", "logical_date", "started_at", "ended_at", "status", "exit_code", "stop_reason", "requests", "requests_by_status", "credits_spent_schedule", "credits_uncertain_schedule", "calls_tracking", "calls_uncertain_tracking", "balance_schedule_before", "balance_schedule_after", "balance_tracking_before", "balance_tracking_after", "drift_schedule", "drift_tracking", "rows_loaded", "duration_seconds", "args", "error", "version", "started_date", "shortfalls", "given_up", "shard")
SELECT "run_id",
  "job",
  "logical_date",
  "started_at",
  "ended_at",
  "status",
  "exit_code",
  "stop_reason",
  "requests",
  "requests_by_status",
  "credits_spent_schedule",
  "credits_uncertain_schedule",
  "calls_tracking",
  "calls_uncertain_tracking",
  "balance_schedule_before",
  "balance_schedule_after",
  "balance_tracking_before",
  "balance_tracking_after",
  "drift_schedule",
  "drift_tracking",
  "rows_loaded",
  "duration_seconds",
  "args",
  "error",
  "version",
  "started_date",
  "shortfalls",
  "given_up",
  "shard"
FROM "__load_changed" AS n
WHERE true;

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'etl_runs',
  x.d,
  true
FROM (SELECT "started_date"
  FROM "__load_changed"
  UNION
  SELECT "__load_old"
  FROM "__load_changed"
  WHERE "__load_old" IS NOT NULL AND "__load_old" <> "started_date") AS x(d)
WHERE x.d NOT IN (SELECT partition_date
  FROM parquet_pending
  WHERE table_name = 'etl_runs' AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT 'etl_runs',
  CAST("run_id" AS VARCHAR)
FROM "__load_changed"
WHERE CAST("run_id" AS VARCHAR) NOT IN (SELECT key
  FROM pending_keys
  WHERE table_name = 'etl_runs');

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "run_id",
    "job",
    "logical_date",
    "started_at",
    "ended_at",
    "status",
    "exit_code",
    "stop_reason",
    "requests",
    CAST("requests_by_status" AS VARCHAR) AS "requests_by_status",
    "credits_spent_schedule",
    "credits_uncertain_schedule",
    "calls_tracking",
    "calls_uncertain_tracking",
    "balance_schedule_before",
    "balance_schedule_after",
    "balance_tracking_before",
    "balance_tracking_after",
    "drift_schedule",
    "drift_tracking",
    CAST("rows_loaded" AS VARCHAR) AS "rows_loaded",
    "duration_seconds",
    CAST("args" AS VARCHAR) AS "args",
    "error",
    "version",
    CAST("shortfalls" AS VARCHAR) AS "shortfalls",
    CAST("given_up" AS VARCHAR) AS "given_up",
    "shard"
  FROM "etl_runs"
  WHERE "started_date" = DATE '2026-01-05'
  ORDER BY "run_id") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
