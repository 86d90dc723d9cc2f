-- The SQL the loader emits for port_calls (kind append), generated from its
-- definition in package schema by load/sqlgen.go. Golden file of
-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update
-- Laid out for reading: a line per clause and per item of a SELECT or SET
-- list, where the SQL sent has one space; nothing else differs.

-- dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)
SELECT count(*)
FROM (SELECT 1
  FROM "__load_in"
  GROUP BY "query",
    "port_locode",
    "vessel_imo",
    "voyage",
    "event_type_code",
    "classifier",
    "observed_at" HAVING count(*) > 1);

-- changedSQL: the rows a merge inserts or changes, a batch of distinct keys
CREATE TEMP TABLE "__load_changed" AS
SELECT s."query" AS "query",
  s."port_locode" AS "port_locode",
  s."vessel_imo" AS "vessel_imo",
  s."voyage" AS "voyage",
  s."event_type_code" AS "event_type_code",
  s."classifier" AS "classifier",
  s."observed_at" AS "observed_at",
  s."carrier" AS "carrier",
  s."service_code" AS "service_code",
  s."service_name" AS "service_name",
  s."vessel_name" AS "vessel_name",
  s."import_voyage" AS "import_voyage",
  s."export_voyage" AS "export_voyage",
  s."facility_key" AS "facility_key",
  s."event_at" AS "event_at",
  s."response_id" AS "response_id",
  s."observed_date" AS "observed_date",
  s."event_at_zone_assumed" AS "event_at_zone_assumed",
  t."observed_date" AS "__load_old"
FROM (SELECT "query",
    "port_locode",
    "vessel_imo",
    "voyage",
    "event_type_code",
    "classifier",
    "observed_at",
    "carrier",
    "service_code",
    "service_name",
    "vessel_name",
    "import_voyage",
    "export_voyage",
    "facility_key",
    "event_at",
    "response_id",
    "observed_date",
    "event_at_zone_assumed"
  FROM "__load_in") AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "port_calls") AS t ON t."query" = s."query" AND t."port_locode" = s."port_locode" AND t."vessel_imo" = s."vessel_imo" AND t."voyage" = s."voyage" AND t."event_type_code" = s."event_type_code" AND t."classifier" = s."classifier" AND t."observed_at" = s."observed_at" AND t."observed_date" IN (DATE '2026-01-05', DATE '2026-01-06')
WHERE t."__load_hit" IS NULL OR s."response_id" < t."response_id";

-- changedSQL: the same, a batch that holds a key more than once (deduplicated first)
CREATE TEMP TABLE "__load_changed" AS
SELECT s."query" AS "query",
  s."port_locode" AS "port_locode",
  s."vessel_imo" AS "vessel_imo",
  s."voyage" AS "voyage",
  s."event_type_code" AS "event_type_code",
  s."classifier" AS "classifier",
  s."observed_at" AS "observed_at",
  s."carrier" AS "carrier",
  s."service_code" AS "service_code",
  s."service_name" AS "service_name",
  s."vessel_name" AS "vessel_name",
  s."import_voyage" AS "import_voyage",
  s."export_voyage" AS "export_voyage",
  s."facility_key" AS "facility_key",
  s."event_at" AS "event_at",
  s."response_id" AS "response_id",
  s."observed_date" AS "observed_date",
  s."event_at_zone_assumed" AS "event_at_zone_assumed",
  t."observed_date" AS "__load_old"
FROM (SELECT "query",
    "port_locode",
    "vessel_imo",
    "voyage",
    "event_type_code",
    "classifier",
    "observed_at",
    "carrier",
    "service_code",
    "service_name",
    "vessel_name",
    "import_voyage",
    "export_voyage",
    "facility_key",
    "event_at",
    "response_id",
    "observed_date",
    "event_at_zone_assumed"
  FROM "__load_in"
  QUALIFY row_number() OVER (PARTITION BY "query", "port_locode", "vessel_imo", "voyage", "event_type_code", "classifier", "observed_at" ORDER BY "response_id") = 1) AS s
LEFT JOIN (SELECT *,
    true AS "__load_hit"
  FROM "port_calls") AS t ON t."query" = s."query" AND t."port_locode" = s."port_locode" AND t."vessel_imo" = s."vessel_imo" AND t."voyage" = s."voyage" AND t."event_type_code" = s."event_type_code" AND t."classifier" = s."classifier" AND t."observed_at" = s."observed_at" AND t."observed_date" IN (DATE '2026-01-05', DATE '2026-01-06')
WHERE t."__load_hit" IS NULL OR s."response_id" < t."response_id";

-- countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns
SELECT count(*),
  count("__load_old") FILTER (WHERE true),
  0::BIGINT,
  0::BIGINT
FROM "__load_changed";

-- deleteSQL: the rows the changed rows replace
DELETE
FROM "port_calls" AS t USING "__load_changed" AS n
WHERE t."query" = n."query" AND t."port_locode" = n."port_locode" AND t."vessel_imo" = n."vessel_imo" AND t."voyage" = n."voyage" AND t."event_type_code" = n."event_type_code" AND t."classifier" = n."classifier" AND t."observed_at" = n."observed_at" AND n."__load_old" IS NOT NULL AND true AND t."observed_date" IN (DATE '2026-01-05', DATE '2026-01-06');

-- insertSQL: the changed rows that are not touches
INSERT INTO "port_calls" ("query", "port_locode", "vessel_imo", "voyage", "event_type_code", "classifier", "observed_at", "carrier", "service_code", "service_name", "vessel_name", "import_voyage", "export_voyage", "facility_key", "event_at", "response_id", "observed_date", "event_at_zone_assumed")
SELECT "query",
  "port_locode",
  "vessel_imo",
  "voyage",
  "event_type_code",
  "classifier",
  "observed_at",
  "carrier",
  "service_code",
  "service_name",
  "vessel_name",
  "import_voyage",
  "export_voyage",
  "facility_key",
  "event_at",
  "response_id",
  "observed_date",
  "event_at_zone_assumed"
FROM "__load_changed" AS n
WHERE true;

-- mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables
INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT 'port_calls',
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
  WHERE table_name = 'port_calls' AND keyed IS NULL);

-- exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)
COPY (SELECT "query",
    "port_locode",
    "vessel_imo",
    "voyage",
    "event_type_code",
    "classifier",
    "observed_at",
    "carrier",
    "service_code",
    "service_name",
    "vessel_name",
    "import_voyage",
    "export_voyage",
    "facility_key",
    "event_at",
    "response_id",
    "event_at_zone_assumed"
  FROM "port_calls"
  WHERE "observed_date" = DATE '2026-01-05'
  ORDER BY "query",
    "port_locode",
    "vessel_imo",
    "voyage",
    "event_type_code",
    "classifier",
    "observed_at") TO 'part.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880);
