-- Migration 1, derived from the table definitions in schema/tables.go.
-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update

CREATE TABLE raw_responses (
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
    "body" BLOB NOT NULL,
    "observed_date" DATE NOT NULL
);
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

CREATE TABLE dead_letters (
    "response_id" VARCHAR NOT NULL,
    "record" VARCHAR NOT NULL,
    "reason" VARCHAR NOT NULL,
    "endpoint" VARCHAR NOT NULL,
    "at" TIMESTAMPTZ NOT NULL,
    "at_date" DATE NOT NULL
);
COMMENT ON TABLE dead_letters IS 'Bodies and records that failed to decode or validate; their raw response is kept. Key (response_id, record, reason), append.';
COMMENT ON COLUMN dead_letters."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN dead_letters."record" IS 'where in the body: empty for the whole body, else a path such as containers[0].events[3]';
COMMENT ON COLUMN dead_letters."reason" IS 'what was wrong';
COMMENT ON COLUMN dead_letters."endpoint" IS 'endpoint of the response';
COMMENT ON COLUMN dead_letters."at" IS 'observed_at of the response';
COMMENT ON COLUMN dead_letters."at_date" IS 'UTC date of at (partition)';

CREATE TABLE etl_runs (
    "run_id" VARCHAR NOT NULL,
    "job" VARCHAR NOT NULL,
    "logical_date" DATE,
    "started_at" TIMESTAMPTZ NOT NULL,
    "ended_at" TIMESTAMPTZ,
    "status" VARCHAR NOT NULL,
    "exit_code" INTEGER,
    "stop_reason" VARCHAR,
    "requests" BIGINT NOT NULL,
    "requests_by_status" JSON,
    "credits_spent_schedule" BIGINT NOT NULL,
    "credits_uncertain_schedule" BIGINT NOT NULL,
    "calls_tracking" BIGINT NOT NULL,
    "calls_uncertain_tracking" BIGINT NOT NULL,
    "balance_schedule_before" BIGINT,
    "balance_schedule_after" BIGINT,
    "balance_tracking_before" BIGINT,
    "balance_tracking_after" BIGINT,
    "drift_schedule" BIGINT,
    "drift_tracking" BIGINT,
    "rows_loaded" JSON,
    "duration_seconds" DOUBLE,
    "args" JSON,
    "error" VARCHAR,
    "version" VARCHAR NOT NULL,
    "started_date" DATE NOT NULL
);
COMMENT ON TABLE etl_runs IS 'One row per run: what it asked, spent, loaded, and how it ended. Key (run_id), ledger.';
COMMENT ON COLUMN etl_runs."run_id" IS 'unique id of the run';
COMMENT ON COLUMN etl_runs."job" IS 'run, backfill, replay, import, demo';
COMMENT ON COLUMN etl_runs."logical_date" IS 'the date the run is for';
COMMENT ON COLUMN etl_runs."started_at" IS 'wall clock at start';
COMMENT ON COLUMN etl_runs."ended_at" IS 'wall clock at the end; null while running or after a crash';
COMMENT ON COLUMN etl_runs."status" IS 'running, ok, partial, failed';
COMMENT ON COLUMN etl_runs."exit_code" IS 'the process exit code';
COMMENT ON COLUMN etl_runs."stop_reason" IS 'why the run stopped early (cap, quota, error), if it did';
COMMENT ON COLUMN etl_runs."requests" IS 'HTTP requests sent, retries included';
COMMENT ON COLUMN etl_runs."requests_by_status" IS '{"200": n, "404": n, …}';
COMMENT ON COLUMN etl_runs."credits_spent_schedule" IS 'schedule credits charged, by our count';
COMMENT ON COLUMN etl_runs."credits_uncertain_schedule" IS 'schedule requests that timed out: possibly charged';
COMMENT ON COLUMN etl_runs."calls_tracking" IS 'tracking calls charged, by our count';
COMMENT ON COLUMN etl_runs."calls_uncertain_tracking" IS 'tracking calls that timed out: possibly charged';
COMMENT ON COLUMN etl_runs."balance_schedule_before" IS 'schedule credits the server reported before the run';
COMMENT ON COLUMN etl_runs."balance_schedule_after" IS '… and after';
COMMENT ON COLUMN etl_runs."balance_tracking_before" IS 'tracking credits the server reported before the run';
COMMENT ON COLUMN etl_runs."balance_tracking_after" IS '… and after';
COMMENT ON COLUMN etl_runs."drift_schedule" IS '(before − after) − our count: credits the server charged that we did not count';
COMMENT ON COLUMN etl_runs."drift_tracking" IS 'the same for tracking';
COMMENT ON COLUMN etl_runs."rows_loaded" IS 'rows loaded per table, {"eta_observations": n, …}';
COMMENT ON COLUMN etl_runs."duration_seconds" IS 'ended_at − started_at';
COMMENT ON COLUMN etl_runs."args" IS 'the selection the run was given';
COMMENT ON COLUMN etl_runs."error" IS 'the error that ended the run, if any';
COMMENT ON COLUMN etl_runs."version" IS 'etalake version';
COMMENT ON COLUMN etl_runs."started_date" IS 'UTC date of started_at (partition)';

CREATE TABLE tracked_shipments (
    "shipment_number" VARCHAR NOT NULL,
    "shipment_type" VARCHAR NOT NULL,
    "sealine" VARCHAR,
    "added_at" TIMESTAMPTZ NOT NULL,
    "added_by" VARCHAR NOT NULL,
    "removed_at" TIMESTAMPTZ,
    "added_date" DATE NOT NULL
);
COMMENT ON TABLE tracked_shipments IS 'The shipments the nightly run refreshes until they are finished (etalake track, run --shipments). Key (shipment_number, shipment_type), ledger.';
COMMENT ON COLUMN tracked_shipments."shipment_number" IS 'container, bill of lading or booking number';
COMMENT ON COLUMN tracked_shipments."shipment_type" IS 'CT, BL or BK';
COMMENT ON COLUMN tracked_shipments."sealine" IS 'SCAC given when it was added';
COMMENT ON COLUMN tracked_shipments."added_at" IS 'when it was first added';
COMMENT ON COLUMN tracked_shipments."added_by" IS 'the run that added it, or track add';
COMMENT ON COLUMN tracked_shipments."removed_at" IS 'when it was removed (etalake track rm); null while tracked';
COMMENT ON COLUMN tracked_shipments."added_date" IS 'UTC date of added_at (partition)';

CREATE TABLE consumption_periods (
    "product" VARCHAR NOT NULL,
    "period_start" TIMESTAMPTZ NOT NULL,
    "period_end" TIMESTAMPTZ,
    "credits_initial" BIGINT,
    "credits" BIGINT,
    "expired" BOOLEAN,
    "observed_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "observed_date" DATE NOT NULL
);
COMMENT ON TABLE consumption_periods IS 'Credit periods of each product as the service reported them over time. Key (product, period_start, observed_at), append.';
COMMENT ON COLUMN consumption_periods."product" IS 'schedule or tracking';
COMMENT ON COLUMN consumption_periods."period_start" IS 'start of the period';
COMMENT ON COLUMN consumption_periods."period_end" IS 'end of the period';
COMMENT ON COLUMN consumption_periods."credits_initial" IS 'credits allocated at the start';
COMMENT ON COLUMN consumption_periods."credits" IS 'credits remaining';
COMMENT ON COLUMN consumption_periods."expired" IS 'whether the period had expired';
COMMENT ON COLUMN consumption_periods."observed_at" IS 'when the answer was true: the response''s Date header, else receipt time';
COMMENT ON COLUMN consumption_periods."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN consumption_periods."observed_date" IS 'UTC date of observed_at (partition)';

CREATE TABLE locations (
    "locode" VARCHAR NOT NULL,
    "name" VARCHAR,
    "state" VARCHAR,
    "country" VARCHAR,
    "country_code" VARCHAR,
    "lat" DOUBLE,
    "lng" DOUBLE,
    "timezone" VARCHAR,
    "first_seen_at" TIMESTAMPTZ NOT NULL,
    "last_seen_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "first_seen_date" DATE NOT NULL
);
COMMENT ON TABLE locations IS 'Places (UN/LOCODE) named by any response. Key (locode), dimension.';
COMMENT ON COLUMN locations."locode" IS 'UN/LOCODE';
COMMENT ON COLUMN locations."name" IS 'name';
COMMENT ON COLUMN locations."state" IS 'region or state';
COMMENT ON COLUMN locations."country" IS 'country name';
COMMENT ON COLUMN locations."country_code" IS 'ISO 3166 alpha-2';
COMMENT ON COLUMN locations."lat" IS 'latitude';
COMMENT ON COLUMN locations."lng" IS 'longitude';
COMMENT ON COLUMN locations."timezone" IS 'IANA time zone';
COMMENT ON COLUMN locations."first_seen_at" IS 'earliest response naming it';
COMMENT ON COLUMN locations."last_seen_at" IS 'latest response naming it; its values are from then';
COMMENT ON COLUMN locations."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN locations."first_seen_date" IS 'UTC date of first_seen_at (partition)';

CREATE TABLE facilities (
    "facility_key" VARCHAR NOT NULL,
    "name" VARCHAR,
    "country_code" VARCHAR,
    "locode" VARCHAR,
    "bic_code" VARCHAR,
    "smdg_code" VARCHAR,
    "lat" DOUBLE,
    "lng" DOUBLE,
    "first_seen_at" TIMESTAMPTZ NOT NULL,
    "last_seen_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "first_seen_date" DATE NOT NULL
);
COMMENT ON TABLE facilities IS 'Terminals and depots named by any response. Key (facility_key), dimension.';
COMMENT ON COLUMN facilities."facility_key" IS 'LOCODE:SMDG, else LOCODE:BIC, else LOCODE-or-country:NAME';
COMMENT ON COLUMN facilities."name" IS 'name';
COMMENT ON COLUMN facilities."country_code" IS 'ISO 3166 alpha-2';
COMMENT ON COLUMN facilities."locode" IS 'UN/LOCODE of the place';
COMMENT ON COLUMN facilities."bic_code" IS 'BIC facility code';
COMMENT ON COLUMN facilities."smdg_code" IS 'SMDG terminal code';
COMMENT ON COLUMN facilities."lat" IS 'latitude';
COMMENT ON COLUMN facilities."lng" IS 'longitude';
COMMENT ON COLUMN facilities."first_seen_at" IS 'earliest response naming it';
COMMENT ON COLUMN facilities."last_seen_at" IS 'latest response naming it; its values are from then';
COMMENT ON COLUMN facilities."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN facilities."first_seen_date" IS 'UTC date of first_seen_at (partition)';

CREATE TABLE vessels (
    "imo" BIGINT NOT NULL,
    "name" VARCHAR,
    "call_sign" VARCHAR,
    "mmsi" BIGINT,
    "flag" VARCHAR,
    "first_seen_at" TIMESTAMPTZ NOT NULL,
    "last_seen_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "first_seen_date" DATE NOT NULL
);
COMMENT ON TABLE vessels IS 'Vessels named by any response, by IMO number. Key (imo), dimension.';
COMMENT ON COLUMN vessels."imo" IS 'IMO number';
COMMENT ON COLUMN vessels."name" IS 'name';
COMMENT ON COLUMN vessels."call_sign" IS 'call sign';
COMMENT ON COLUMN vessels."mmsi" IS 'MMSI';
COMMENT ON COLUMN vessels."flag" IS 'flag state, ISO 3166 alpha-2';
COMMENT ON COLUMN vessels."first_seen_at" IS 'earliest response naming it';
COMMENT ON COLUMN vessels."last_seen_at" IS 'latest response naming it; its values are from then';
COMMENT ON COLUMN vessels."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN vessels."first_seen_date" IS 'UTC date of first_seen_at (partition)';

CREATE TABLE shipments (
    "shipment_number" VARCHAR NOT NULL,
    "shipment_type" VARCHAR NOT NULL,
    "sealine" VARCHAR,
    "sealine_name" VARCHAR,
    "shipping_status" VARCHAR,
    "prepol_locode" VARCHAR,
    "prepol_date" TIMESTAMPTZ,
    "prepol_actual" BOOLEAN,
    "pol_locode" VARCHAR,
    "pol_date" TIMESTAMPTZ,
    "pol_actual" BOOLEAN,
    "pod_locode" VARCHAR,
    "pod_date" TIMESTAMPTZ,
    "pod_actual" BOOLEAN,
    "pod_predictive_eta" TIMESTAMPTZ,
    "postpod_locode" VARCHAR,
    "postpod_date" TIMESTAMPTZ,
    "postpod_actual" BOOLEAN,
    "container_count" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ,
    "first_observed_at" TIMESTAMPTZ NOT NULL,
    "last_observed_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "first_observed_date" DATE NOT NULL
);
COMMENT ON TABLE shipments IS 'Tracked shipments, latest state. Key (shipment_number, shipment_type), latest.';
COMMENT ON COLUMN shipments."shipment_number" IS 'container, bill of lading or booking number';
COMMENT ON COLUMN shipments."shipment_type" IS 'CT, BL or BK';
COMMENT ON COLUMN shipments."sealine" IS 'SCAC of the shipping line';
COMMENT ON COLUMN shipments."sealine_name" IS 'name of the shipping line';
COMMENT ON COLUMN shipments."shipping_status" IS 'the service''s status of the shipment';
COMMENT ON COLUMN shipments."prepol_locode" IS 'place of receipt before the port of loading';
COMMENT ON COLUMN shipments."prepol_date" IS 'date at prepol';
COMMENT ON COLUMN shipments."prepol_actual" IS 'prepol_date is actual';
COMMENT ON COLUMN shipments."pol_locode" IS 'port of loading';
COMMENT ON COLUMN shipments."pol_date" IS 'date at the port of loading';
COMMENT ON COLUMN shipments."pol_actual" IS 'pol_date is actual';
COMMENT ON COLUMN shipments."pod_locode" IS 'port of discharge';
COMMENT ON COLUMN shipments."pod_date" IS 'arrival at the port of discharge: the carrier''s ETA, or the actual';
COMMENT ON COLUMN shipments."pod_actual" IS 'pod_date is actual';
COMMENT ON COLUMN shipments."pod_predictive_eta" IS 'the service''s predictive ETA (only within 3 days of arrival)';
COMMENT ON COLUMN shipments."postpod_locode" IS 'final destination';
COMMENT ON COLUMN shipments."postpod_date" IS 'arrival at the final destination';
COMMENT ON COLUMN shipments."postpod_actual" IS 'postpod_date is actual';
COMMENT ON COLUMN shipments."container_count" IS 'containers in the response';
COMMENT ON COLUMN shipments."updated_at" IS 'the service''s metadata.updatedAt';
COMMENT ON COLUMN shipments."first_observed_at" IS 'earliest observation of this row';
COMMENT ON COLUMN shipments."last_observed_at" IS 'latest observation of this row; its values are from then';
COMMENT ON COLUMN shipments."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN shipments."first_observed_date" IS 'UTC date of first_observed_at (partition)';

CREATE TABLE eta_observations (
    "shipment_number" VARCHAR NOT NULL,
    "shipment_type" VARCHAR NOT NULL,
    "target" VARCHAR NOT NULL,
    "source" VARCHAR NOT NULL,
    "observed_at" TIMESTAMPTZ NOT NULL,
    "locode" VARCHAR,
    "eta" TIMESTAMPTZ NOT NULL,
    "is_actual" BOOLEAN NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "observed_date" DATE NOT NULL
);
COMMENT ON TABLE eta_observations IS 'Every ETA as it was observed: the history the accuracy views are built on. Key (shipment_number, shipment_type, target, source, observed_at), append.';
COMMENT ON COLUMN eta_observations."shipment_number" IS 'shipment';
COMMENT ON COLUMN eta_observations."shipment_type" IS 'CT, BL or BK';
COMMENT ON COLUMN eta_observations."target" IS 'PREPOL, POL, POD or POSTPOD';
COMMENT ON COLUMN eta_observations."source" IS 'CARRIER (the route date) or PREDICTIVE (the service''s predictiveEta)';
COMMENT ON COLUMN eta_observations."observed_at" IS 'when the answer was true: the response''s Date header, else receipt time';
COMMENT ON COLUMN eta_observations."locode" IS 'the place of the target';
COMMENT ON COLUMN eta_observations."eta" IS 'the estimated (or actual) time';
COMMENT ON COLUMN eta_observations."is_actual" IS 'eta is the actual time';
COMMENT ON COLUMN eta_observations."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN eta_observations."observed_date" IS 'UTC date of observed_at (partition)';

CREATE TABLE containers (
    "shipment_number" VARCHAR NOT NULL,
    "container_number" VARCHAR NOT NULL,
    "shipment_type" VARCHAR NOT NULL,
    "iso_code" VARCHAR,
    "status" VARCHAR,
    "first_observed_at" TIMESTAMPTZ NOT NULL,
    "last_observed_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "first_observed_date" DATE NOT NULL
);
COMMENT ON TABLE containers IS 'Containers of tracked shipments, latest state. Key (shipment_number, container_number), latest.';
COMMENT ON COLUMN containers."shipment_number" IS 'shipment';
COMMENT ON COLUMN containers."container_number" IS 'ISO 6346 container number';
COMMENT ON COLUMN containers."shipment_type" IS 'CT, BL or BK';
COMMENT ON COLUMN containers."iso_code" IS 'ISO 6346 size and type code';
COMMENT ON COLUMN containers."status" IS 'the service''s container status';
COMMENT ON COLUMN containers."first_observed_at" IS 'earliest observation of this row';
COMMENT ON COLUMN containers."last_observed_at" IS 'latest observation of this row; its values are from then';
COMMENT ON COLUMN containers."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN containers."first_observed_date" IS 'UTC date of first_observed_at (partition)';

CREATE TABLE container_events (
    "shipment_number" VARCHAR NOT NULL,
    "container_number" VARCHAR NOT NULL,
    "event_key" VARCHAR NOT NULL,
    "shipment_type" VARCHAR NOT NULL,
    "event_type" VARCHAR NOT NULL,
    "event_code" VARCHAR NOT NULL,
    "status" VARCHAR,
    "description" VARCHAR,
    "locode" VARCHAR,
    "facility_key" VARCHAR,
    "event_at" TIMESTAMPTZ,
    "is_actual" BOOLEAN NOT NULL,
    "is_additional_event" BOOLEAN NOT NULL,
    "route_type" VARCHAR,
    "transport_type" VARCHAR,
    "vessel_imo" BIGINT,
    "vessel_name" VARCHAR,
    "voyage" VARCHAR,
    "occurrence" INTEGER NOT NULL,
    "first_observed_at" TIMESTAMPTZ NOT NULL,
    "last_observed_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "first_observed_date" DATE NOT NULL
);
COMMENT ON TABLE container_events IS 'Container events, latest version of each (estimated until actual). Key (shipment_number, container_number, event_key), latest.';
COMMENT ON COLUMN container_events."shipment_number" IS 'shipment';
COMMENT ON COLUMN container_events."container_number" IS 'container';
COMMENT ON COLUMN container_events."event_key" IS 'stable identity of the event: container, type, code, status, place, vessel, voyage, occurrence; never its date';
COMMENT ON COLUMN container_events."shipment_type" IS 'CT, BL or BK';
COMMENT ON COLUMN container_events."event_type" IS 'EQUIPMENT, TRANSPORT, …';
COMMENT ON COLUMN container_events."event_code" IS 'DCSA code: GTOT, GTIN, LOAD, DEPA, ARRI, DISC, …';
COMMENT ON COLUMN container_events."status" IS 'the service''s short status code';
COMMENT ON COLUMN container_events."description" IS 'human-readable label';
COMMENT ON COLUMN container_events."locode" IS 'place of the event';
COMMENT ON COLUMN container_events."facility_key" IS 'facility of the event (facilities)';
COMMENT ON COLUMN container_events."event_at" IS 'when it happened, or is estimated to';
COMMENT ON COLUMN container_events."is_actual" IS 'event_at is actual';
COMMENT ON COLUMN container_events."is_additional_event" IS 'flagged additional by the service';
COMMENT ON COLUMN container_events."route_type" IS 'LAND or SEA';
COMMENT ON COLUMN container_events."transport_type" IS 'VESSEL, TRUCK, RAIL, …';
COMMENT ON COLUMN container_events."vessel_imo" IS 'vessel (vessels)';
COMMENT ON COLUMN container_events."vessel_name" IS 'vessel name as given';
COMMENT ON COLUMN container_events."voyage" IS 'voyage number';
COMMENT ON COLUMN container_events."occurrence" IS '0 for the first event of this identity in the container, 1 for a second, …';
COMMENT ON COLUMN container_events."first_observed_at" IS 'earliest observation of this row';
COMMENT ON COLUMN container_events."last_observed_at" IS 'latest observation of this row; its values are from then';
COMMENT ON COLUMN container_events."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN container_events."first_observed_date" IS 'UTC date of first_observed_at (partition)';

CREATE TABLE event_observations (
    "event_key" VARCHAR NOT NULL,
    "observed_at" TIMESTAMPTZ NOT NULL,
    "shipment_number" VARCHAR NOT NULL,
    "container_number" VARCHAR NOT NULL,
    "event_at" TIMESTAMPTZ,
    "is_actual" BOOLEAN NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "observed_date" DATE NOT NULL
);
COMMENT ON TABLE event_observations IS 'Every container event date as it was observed. Key (event_key, observed_at), append.';
COMMENT ON COLUMN event_observations."event_key" IS 'the event (container_events); it names the container''s event, so one container tracked under two shipment numbers and observed at the same instant is one row';
COMMENT ON COLUMN event_observations."observed_at" IS 'when the answer was true: the response''s Date header, else receipt time';
COMMENT ON COLUMN event_observations."shipment_number" IS 'shipment';
COMMENT ON COLUMN event_observations."container_number" IS 'container';
COMMENT ON COLUMN event_observations."event_at" IS 'the date then';
COMMENT ON COLUMN event_observations."is_actual" IS 'event_at was actual then';
COMMENT ON COLUMN event_observations."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN event_observations."observed_date" IS 'UTC date of observed_at (partition)';

CREATE TABLE port_calls (
    "query" VARCHAR NOT NULL,
    "port_locode" VARCHAR NOT NULL,
    "vessel_imo" BIGINT NOT NULL,
    "voyage" VARCHAR NOT NULL,
    "event_type_code" VARCHAR NOT NULL,
    "classifier" VARCHAR NOT NULL,
    "observed_at" TIMESTAMPTZ NOT NULL,
    "carrier" VARCHAR NOT NULL,
    "service_code" VARCHAR,
    "service_name" VARCHAR,
    "vessel_name" VARCHAR,
    "import_voyage" VARCHAR,
    "export_voyage" VARCHAR,
    "facility_key" VARCHAR,
    "event_at" TIMESTAMPTZ NOT NULL,
    "response_id" VARCHAR NOT NULL,
    "observed_date" DATE NOT NULL
);
COMMENT ON TABLE port_calls IS 'Every schedule timestamp as observed, from by-port, port-to-port and by-vessel queries. Key (query, port_locode, vessel_imo, voyage, event_type_code, classifier, observed_at), append.';
COMMENT ON COLUMN port_calls."query" IS 'PORT, P2P or VESSEL';
COMMENT ON COLUMN port_calls."port_locode" IS 'the port called';
COMMENT ON COLUMN port_calls."vessel_imo" IS 'the vessel';
COMMENT ON COLUMN port_calls."voyage" IS 'the voyage of the timestamp: import voyage for ARRI, export voyage for DEPA; empty when not given';
COMMENT ON COLUMN port_calls."event_type_code" IS 'ARRI or DEPA';
COMMENT ON COLUMN port_calls."classifier" IS 'PLN, EST or ACT';
COMMENT ON COLUMN port_calls."observed_at" IS 'when the answer was true: the response''s Date header, else receipt time';
COMMENT ON COLUMN port_calls."carrier" IS 'SCAC of the carrier';
COMMENT ON COLUMN port_calls."service_code" IS 'carrier service code';
COMMENT ON COLUMN port_calls."service_name" IS 'carrier service name';
COMMENT ON COLUMN port_calls."vessel_name" IS 'vessel name as given';
COMMENT ON COLUMN port_calls."import_voyage" IS 'import voyage number';
COMMENT ON COLUMN port_calls."export_voyage" IS 'export voyage number';
COMMENT ON COLUMN port_calls."facility_key" IS 'terminal (facilities)';
COMMENT ON COLUMN port_calls."event_at" IS 'the timestamp';
COMMENT ON COLUMN port_calls."response_id" IS 'the landed response the row was derived from (raw_responses)';
COMMENT ON COLUMN port_calls."observed_date" IS 'UTC date of observed_at (partition)';

