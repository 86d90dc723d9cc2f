-- Migration 2, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

CREATE TABLE raw_responses__rebuild (
    "response_id" VARCHAR NOT NULL,
    "run_id" VARCHAR NOT NULL,
    "product" VARCHAR NOT NULL,
    "endpoint" VARCHAR NOT NULL,
    "resource" VARCHAR NOT NULL,
    "request" VARCHAR NOT NULL,
    "status" INTEGER NOT NULL,
    "fetched_at" TIMESTAMPTZ NOT NULL,
    "observed_at" TIMESTAMPTZ NOT NULL,
    "date_header" TIMESTAMPTZ,
    "attempt" INTEGER NOT NULL,
    "source" VARCHAR NOT NULL,
    "logical_date" DATE,
    "body_bytes" BIGINT NOT NULL,
    "body_sha256" VARCHAR NOT NULL,
    "body" BLOB USING COMPRESSION uncompressed NOT NULL,
    "observed_date" DATE NOT NULL
);
INSERT INTO raw_responses__rebuild ("response_id", "run_id", "product", "endpoint", "resource", "request", "status", "fetched_at", "observed_at", "date_header", "attempt", "source", "logical_date", "body_bytes", "body_sha256", "body", "observed_date") SELECT "response_id", "run_id", "product", "endpoint", "resource", "request", "status", "fetched_at", "observed_at", "date_header", "attempt", "source", "logical_date", "body_bytes", "body_sha256", "body", "observed_date" FROM raw_responses;
DROP TABLE raw_responses;
ALTER TABLE raw_responses__rebuild RENAME TO raw_responses;
COMMENT ON TABLE raw_responses IS 'Every HTTP response as it arrived, before any parsing: the checkpoint and the replay source. Key (response_id), append.';
COMMENT ON COLUMN raw_responses."response_id" IS 'content-derived id: the same response landed twice is one row';
COMMENT ON COLUMN raw_responses."run_id" IS 'the run that landed it first';
COMMENT ON COLUMN raw_responses."product" IS 'schedule or tracking';
COMMENT ON COLUMN raw_responses."endpoint" IS 'schedule_port, schedule_p2p, schedule_vessel, shipment, consumption_current_period, consumption_periods';
COMMENT ON COLUMN raw_responses."resource" IS 'what the response is about: port:NLRTM, p2p:CNSHA-NLRTM, vessel:9321483, shipment:CT:MSCU1234566, consumption:schedule, …';
COMMENT ON COLUMN raw_responses."request" IS 'path and query of the request; never the key';
COMMENT ON COLUMN raw_responses."status" IS 'HTTP status';
COMMENT ON COLUMN raw_responses."fetched_at" IS 'our clock when the body was read (import: when imported)';
COMMENT ON COLUMN raw_responses."observed_at" IS 'when the answer was true: the response''s Date header, else receipt time';
COMMENT ON COLUMN raw_responses."date_header" IS 'the response''s HTTP Date header';
COMMENT ON COLUMN raw_responses."attempt" IS '1 for a first attempt, more for a retry';
COMMENT ON COLUMN raw_responses."source" IS 'fetch or import';
COMMENT ON COLUMN raw_responses."logical_date" IS 'the logical date of the run that fetched it';
COMMENT ON COLUMN raw_responses."body_bytes" IS 'size of the body before compression';
COMMENT ON COLUMN raw_responses."body_sha256" IS 'SHA-256 of the body, hex';
COMMENT ON COLUMN raw_responses."body" IS 'the body, zstd-compressed';
COMMENT ON COLUMN raw_responses."observed_date" IS 'UTC date of observed_at (partition)';
