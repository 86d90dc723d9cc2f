package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// The DuckDB path: the same warehouse, filled by DuckDB's own JSON reader
// and SQL. For each file, in one connection:
//
//  1. e2e_resp: every line's text as read_json_objects returns it (the
//     bytes etalake lands) joined to its parse by read_json, both numbered
//     in file order, and what jobs.Import records of it: the shipment
//     (metadata, else the first container as CT), the request it answers
//     (transform.Identify), a content-derived response_id;
//  2. raw_responses ← e2e_resp (LoadFrom), the body stored as an
//     uncompressed BLOB: SQL cannot zstd a value;
//  3. e2e_ev: UNNEST of containers and events, with the transform's rules:
//     facility_key, the event identity and its SHA-256 event_key, exact
//     duplicates within a response dropped, occurrences numbered;
//  4. each derived table ← a SELECT over e2e_resp and e2e_ev, merged by
//     LoadFrom (the merge of Load). Dimensions are reduced to one row per
//     key and file first, as the transform's batch reduces them.
//
// SyncParquet writes the mirror at the end, as the importer does.

// duckdbMemoryLimit is the memory_limit of DuckDB's path.
const duckdbMemoryLimit = "256MB"

// readModes are the ways read_json may learn the shape of the lines, by
// -duckdb-read name: the source of e2e_resp, rows of (body, metadata,
// route, containers). (Parsing the text of read_json_objects with
// from_json instead, one read of the file, runs out of memory under the
// warehouse's memory_limit.)
var readModes = map[string]string{
	// columns gives read_json the members used, with their types.
	"columns": readJSONSource(", columns = " + columnsParam()),
	// sample lets read_json infer the shape from its default sample (20 480
	// lines, more than a file of the benchmark holds).
	"sample": readJSONSource(""),
	// full lets read_json infer the shape from every line.
	"full": readJSONSource(", sample_size = -1"),
}

// shape is a JSON member's type: a DuckDB scalar type name, a struct of
// members ([]member) or a list (list).
type shape any

type member struct {
	name string
	shape
}

type list struct{ of shape }

// The members of a tracking response the transform reads, and nothing
// else.
var (
	coordinates   = []member{{"lat", "DOUBLE"}, {"lng", "DOUBLE"}}
	locationShape = []member{{"name", "VARCHAR"}, {"state", "VARCHAR"}, {"country", "VARCHAR"}, {"countryCode", "VARCHAR"},
		{"locode", "VARCHAR"}, {"coordinates", coordinates}, {"timezone", "VARCHAR"}}
	facilityShape = []member{{"name", "VARCHAR"}, {"countryCode", "VARCHAR"}, {"locode", "VARCHAR"}, {"bicCode", "VARCHAR"},
		{"smdgCode", "VARCHAR"}, {"coordinates", coordinates}}
	vesselShape = []member{{"name", "VARCHAR"}, {"imo", "BIGINT"}, {"callSign", "VARCHAR"}, {"mmsi", "BIGINT"}, {"flag", "VARCHAR"}}
	pointShape  = []member{{"location", locationShape}, {"date", "TIMESTAMPTZ"}, {"actual", "BOOLEAN"}}
	podShape    = append(pointShape[:len(pointShape):len(pointShape)], member{"predictiveEta", "TIMESTAMPTZ"})
	eventShape  = []member{{"location", locationShape}, {"facility", facilityShape}, {"description", "VARCHAR"},
		{"eventType", "VARCHAR"}, {"eventCode", "VARCHAR"}, {"status", "VARCHAR"}, {"date", "TIMESTAMPTZ"},
		{"isActual", "BOOLEAN"}, {"isAdditionalEvent", "BOOLEAN"}, {"routeType", "VARCHAR"}, {"transportType", "VARCHAR"},
		{"vessel", vesselShape}, {"voyage", "VARCHAR"}}
	responseShape = []member{
		{"metadata", []member{{"shipmentType", "VARCHAR"}, {"shipmentNumber", "VARCHAR"}, {"sealine", "VARCHAR"},
			{"sealineName", "VARCHAR"}, {"shippingStatus", "VARCHAR"}, {"updatedAt", "TIMESTAMPTZ"}}},
		{"route", []member{{"prepol", pointShape}, {"pol", pointShape}, {"pod", podShape}, {"postpod", pointShape}}},
		{"containers", list{[]member{{"number", "VARCHAR"}, {"isoCode", "VARCHAR"}, {"status", "VARCHAR"}, {"events", list{eventShape}}}}},
	}
)

// duckType renders a shape as a DuckDB type.
func duckType(s shape) string {
	switch s := s.(type) {
	case string:
		return s
	case list:
		return duckType(s.of) + "[]"
	case []member:
		parts := make([]string, len(s))
		for i, m := range s {
			parts[i] = ident(m.name) + " " + duckType(m.shape)
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	}
	panic(fmt.Sprintf("e2ebench: shape %T", s))
}

// columnsParam is read_json's columns = {…} of the response's members.
func columnsParam() string {
	parts := make([]string, len(responseShape))
	for i, m := range responseShape {
		parts[i] = m.name + ": " + sqlString(duckType(m.shape))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// readJSONSource parses the file with read_json and joins each line to
// its text in e2e_body by their numbers in file order.
func readJSONSource(args string) string {
	return `SELECT b.body, p.metadata, p.route, p.containers FROM (
    SELECT row_number() OVER () AS line, metadata, route, containers
    FROM read_json({file}, format = 'newline_delimited'` + args + `)) AS p
JOIN e2e_body AS b USING (line)`
}

// macros are the transform's rules that SQL needs more than once, as
// temporary macros of the loading connection.
const macros = `
-- appendField of transform/eventkey.go: the length as a uvarint, then the
-- bytes. One length byte is enough below 128 bytes, which every identity
-- field of the input is; a longer one stops the path rather than give
-- another key.
CREATE OR REPLACE TEMP MACRO e2e_field(s) AS
    CASE WHEN strlen(s) < 128 THEN chr(CAST(strlen(s) AS INTEGER)) || s
         ELSE error('e2ebench: an event identity field of 128 bytes or more: ' || s) END;
-- the occurrence as a uvarint (one byte below 128).
CREATE OR REPLACE TEMP MACRO e2e_occurrence(n) AS
    CASE WHEN n < 128 THEN chr(CAST(n AS INTEGER))
         ELSE error('e2ebench: an event occurring 128 times in one response') END;
-- normalName of transform/dims.go: upper case, white space collapsed.
CREATE OR REPLACE TEMP MACRO e2e_name(s) AS
    trim(regexp_replace(upper(coalesce(s, '')), '[[:space:]]+', ' ', 'g'));
-- facilityKey of transform/dims.go.
CREATE OR REPLACE TEMP MACRO e2e_facility_key(f) AS
    CASE
        WHEN f IS NULL THEN ''
        WHEN coalesce(f.locode, '') <> '' AND coalesce(f.smdgCode, '') <> '' THEN f.locode || ':' || f.smdgCode
        WHEN coalesce(f.bicCode, '') <> '' THEN coalesce(nullif(f.locode, ''), f.countryCode, '') || ':' || f.bicCode
        WHEN e2e_name(f.name) <> '' THEN coalesce(nullif(f.locode, ''), f.countryCode, '') || ':' || e2e_name(f.name)
        WHEN coalesce(f.smdgCode, '') <> '' THEN coalesce(nullif(f.locode, ''), f.countryCode, '') || ':' || f.smdgCode
        ELSE ''
    END;
`

// duckPath loads NDJSON files into a warehouse the DuckDB way.
type duckPath struct {
	wh    *load.Warehouse
	db    *sql.DB
	resp  string // the statement of e2e_resp
	run   string // run_id of the landed responses
	stats childStats
}

// runDuckDB is the child of mode duckdb.
func runDuckDB(ctx context.Context, input, warehouse, readMode string) (childStats, error) {
	mode, ok := readModes[readMode]
	if !ok {
		return childStats{}, fmt.Errorf("-duckdb-read %q: want columns, sample or full", readMode)
	}
	files, err := filepath.Glob(filepath.Join(input, "*.ndjson"))
	if err != nil || len(files) == 0 {
		return childStats{}, fmt.Errorf("%s: no *.ndjson files (%v)", input, err)
	}
	// read_json of one day's file runs out of memory under the writer's
	// default 128 MB; DuckDB's path gets the 256 MB it needs (ours keeps
	// the default).
	opt := load.DefaultOptions()
	opt.MemoryLimit = duckdbMemoryLimit
	wh, err := load.Open(ctx, warehouse, opt)
	if err != nil {
		return childStats{}, err
	}
	defer wh.Close()
	// One connection: the staging tables and macros are temporary, and
	// LoadFrom's query must see them.
	wh.DB().SetMaxOpenConns(1)
	p := &duckPath{wh: wh, db: wh.DB(), resp: strings.ReplaceAll(respSQL, "{source}", mode), run: "e2ebench-duckdb-" + time.Now().UTC().Format("20060102T150405Z"),
		stats: childStats{Rows: map[string]int64{}, Phases: map[string]float64{}}}
	if _, err := p.db.ExecContext(ctx, macros); err != nil {
		return childStats{}, fmt.Errorf("macros: %w", err)
	}
	for _, f := range files {
		if err := p.file(ctx, f); err != nil {
			return childStats{}, fmt.Errorf("%s: %w", f, err)
		}
	}
	start := time.Now()
	if _, err := wh.SyncParquet(ctx); err != nil {
		return childStats{}, err
	}
	p.time("parquet", start)
	start = time.Now()
	err = wh.Close()
	p.time("close", start)
	return p.stats, err
}

// file loads one NDJSON file, observed at its modification time.
func (p *duckPath) file(ctx context.Context, path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	obs := st.ModTime().UTC().Truncate(time.Microsecond)
	v := map[string]string{
		"file": sqlString(path),
		"obs":  "TIMESTAMPTZ '" + obs.Format("2006-01-02 15:04:05.999999") + "+00'",
		"day":  "DATE '" + obs.Format(time.DateOnly) + "'",
		"run":  sqlString(p.run),
	}
	if err := p.exec(ctx, "read bodies", expand(bodySQL, v)); err != nil {
		return err
	}
	if err := p.exec(ctx, "read_json", expand(p.resp, v)+"; DROP TABLE e2e_body"); err != nil {
		return err
	}
	if err := p.check(ctx); err != nil {
		return err
	}
	if err := p.load(ctx, schema.RawResponses, expand(rawSQL, v)); err != nil {
		return err
	}
	if err := p.exec(ctx, "unnest", expand(eventSQL, v)); err != nil {
		return err
	}
	for _, t := range schema.Tables {
		q, ok := derivedSQL[t]
		if !ok {
			continue
		}
		if err := p.load(ctx, t, expand(q, v)); err != nil {
			return err
		}
	}
	return p.exec(ctx, "unnest", "DROP TABLE e2e_resp; DROP TABLE e2e_ev")
}

// exec runs statements of a phase and adds their time to it.
func (p *duckPath) exec(ctx context.Context, phase, q string) error {
	defer p.time(phase, time.Now())
	_, err := p.db.ExecContext(ctx, q)
	return err
}

// time adds the time since start to a phase.
func (p *duckPath) time(phase string, start time.Time) {
	p.stats.Phases[phase] += time.Since(start).Seconds()
}

// check counts the file's bodies and events, and refuses what would be a
// dead letter in etalake: this path does not write dead_letters.
func (p *duckPath) check(ctx context.Context) error {
	defer p.time("check", time.Now())
	var bodies, events, unnamed, noNumber, noCode int64
	err := p.db.QueryRowContext(ctx, checkSQL).Scan(&bodies, &events, &unnamed, &noNumber, &noCode)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if unnamed+noNumber+noCode > 0 {
		return fmt.Errorf("%d bodies without a shipment number, %d containers without a number, %d events without codes: "+
			"etalake would write dead letters, which this path does not", unnamed, noNumber, noCode)
	}
	p.stats.Bodies += bodies
	p.stats.Events += events
	return nil
}

func (p *duckPath) load(ctx context.Context, t *schema.Table, q string) error {
	defer p.time("merge "+t.Name, time.Now())
	n, err := p.wh.LoadFrom(ctx, t, q)
	p.stats.Rows[t.Name] += n
	return err
}

// expand replaces {name} in q by v[name].
func expand(q string, v map[string]string) string {
	for k, s := range v {
		q = strings.ReplaceAll(q, "{"+k+"}", s)
	}
	return q
}

// bodySQL numbers the lines' text in file order: read_json_objects
// returns each line as it is in the file.
const bodySQL = `CREATE OR REPLACE TEMP TABLE e2e_body AS
SELECT row_number() OVER () AS line, CAST(json AS VARCHAR) AS body
FROM read_json_objects({file}, format = 'newline_delimited')`

// respSQL names each response of {source} as jobs.Import does: the
// shipment from metadata (else the first container, as CT), the request
// the body answers (transform.Identify), and a response_id over the same
// fields as load.ResponseID, the body by its SHA-256.
const respSQL = `CREATE OR REPLACE TEMP TABLE e2e_resp AS
WITH p AS ({source}), n AS (
    SELECT *, sha256(body) AS body_sha256, strlen(body) AS body_bytes,
        coalesce(nullif(metadata.shipmentNumber, ''),
                 list_filter(containers, c -> coalesce(c.number, '') <> '')[1].number) AS shipment_number,
        CASE WHEN coalesce(metadata.shipmentNumber, '') = '' THEN 'CT'
             ELSE coalesce(nullif(metadata.shipmentType, ''), 'CT') END AS shipment_type,
        nullif(metadata.sealine, '') AS sealine
    FROM p
), r AS (
    SELECT *, '/container-tracking/api/v2/shipment?ais=false&route=true'
            || CASE WHEN sealine IS NULL THEN '' ELSE '&sealine=' || url_encode(sealine) END
            || '&shipmentNumber=' || url_encode(shipment_number) || '&shipmentType=' || url_encode(shipment_type) AS request
    FROM n
)
SELECT *, left(sha256(concat_ws('|', 'tracking', 'shipment', request, '200', epoch_us({obs}), body_sha256)), 32) AS rid
FROM r`

// rawSQL is the raw_responses rows of the file.
const rawSQL = `SELECT rid AS response_id, {run} AS run_id, 'tracking' AS product, 'shipment' AS endpoint,
    'shipment:' || upper(trim(shipment_type)) || ':' || upper(trim(shipment_number)) AS resource,
    request, 200 AS status, CAST(now() AS TIMESTAMPTZ) AS fetched_at, {obs} AS observed_at,
    CAST(NULL AS TIMESTAMPTZ) AS date_header, 1 AS attempt, 'import' AS source, CAST(NULL AS DATE) AS logical_date,
    CAST(body_bytes AS BIGINT) AS body_bytes, body_sha256, encode(body) AS body, {day} AS observed_date
FROM e2e_resp`

// eventSQL flattens the container events of the file's responses: those
// with codes in containers with a number (the others would be dead
// letters, which check refuses), with their place in the response (pos)
// and the columns of their location, facility and vessel. kept marks the
// first of each exact duplicate (same identity and signature,
// transform/events.go); the kept events of one identity are numbered 0,
// 1, … (occurrence) and keyed by SHA-256 over the identity and the
// occurrence (transform/eventkey.go).
const eventSQL = `CREATE OR REPLACE TEMP TABLE e2e_ev AS
WITH c AS (
    SELECT rid, shipment_number, shipment_type, unnest(containers) AS c, generate_subscripts(containers, 1) AS ci
    FROM e2e_resp
), ce AS (
    SELECT rid, shipment_number, shipment_type, c.number AS container_number, ci,
        unnest(c.events) AS e, generate_subscripts(c.events, 1) AS ei
    FROM c WHERE coalesce(c.number, '') <> ''
), e AS (
    SELECT rid, shipment_number, shipment_type, container_number, ci * 1000000 + ei AS pos, e
    FROM ce WHERE coalesce(e.eventType, '') <> '' AND coalesce(e.eventCode, '') <> ''
), f AS (
    SELECT rid, shipment_number, shipment_type, container_number, pos,
        e.eventType AS event_type, e.eventCode AS event_code, coalesce(e.status, '') AS status,
        coalesce(e.location.locode, '') AS locode, e.location.name AS loc_name, e.location.state AS loc_state,
        e.location.country AS loc_country, e.location.countryCode AS loc_country_code,
        e.location.coordinates.lat AS loc_lat, e.location.coordinates.lng AS loc_lng, e.location.timezone AS loc_timezone,
        e2e_facility_key(e.facility) AS facility_key, e.facility.name AS fac_name, e.facility.countryCode AS fac_country_code,
        e.facility.locode AS fac_locode, e.facility.bicCode AS fac_bic_code, e.facility.smdgCode AS fac_smdg_code,
        e.facility.coordinates.lat AS fac_lat, e.facility.coordinates.lng AS fac_lng,
        CASE WHEN e.vessel.imo > 0 THEN e.vessel.imo END AS imo, coalesce(e.vessel.name, '') AS vessel_name,
        e.vessel.callSign AS vessel_call_sign, e.vessel.mmsi AS vessel_mmsi, e.vessel.flag AS vessel_flag,
        coalesce(e.voyage, '') AS voyage, CAST(e.date AS TIMESTAMPTZ) AS event_at,
        coalesce(e.isActual, false) AS is_actual, coalesce(e.isAdditionalEvent, false) AS is_additional_event,
        coalesce(e.description, '') AS description, coalesce(e.transportType, '') AS transport_type,
        coalesce(e.routeType, '') AS route_type
    FROM e
), i AS (
    SELECT *, e2e_field(container_number) || e2e_field(event_type) || e2e_field(event_code) || e2e_field(status)
            || e2e_field(locode) || e2e_field(coalesce(CAST(imo AS VARCHAR), '')) || e2e_field(voyage) AS ident
    FROM f
), d AS (
    SELECT *, row_number() OVER (PARTITION BY rid, ident, event_at, is_actual, is_additional_event, description,
                                 facility_key, transport_type, route_type ORDER BY pos) = 1 AS kept
    FROM i
), o AS (
    SELECT *, sum(CAST(kept AS INTEGER)) OVER (PARTITION BY rid, ident ORDER BY pos ROWS UNBOUNDED PRECEDING) - 1 AS occurrence
    FROM d
)
SELECT * EXCLUDE (ident), CASE WHEN kept THEN left(sha256(ident || e2e_occurrence(occurrence)), 32) END AS event_key
FROM o`

// checkSQL counts the bodies and events of e2e_resp, and what etalake
// would turn into dead letters.
const checkSQL = `SELECT count(*),
    coalesce(sum(list_sum(list_transform(containers, c -> len(c.events)))), 0),
    count(*) FILTER (WHERE shipment_number IS NULL),
    coalesce(sum(len(list_filter(containers, c -> coalesce(c.number, '') = ''))), 0),
    coalesce(sum(list_sum(list_transform(containers, c -> len(list_filter(c.events,
        e -> coalesce(e.eventType, '') = '' OR coalesce(e.eventCode, '') = ''))))), 0)
FROM e2e_resp`

// routePoints are the members of a route, in the order the transform
// reads them.
var routePoints = []string{"prepol", "pol", "pod", "postpod"}

// routeLocations are the locations of the routes, as rows of (rid, pos,
// locode, name, state, country, country_code, lat, lng, timezone); they
// come before every event of their response.
func routeLocations() string {
	parts := make([]string, len(routePoints))
	for i, p := range routePoints {
		l := "route." + p + ".location"
		parts[i] = fmt.Sprintf("SELECT rid, %d AS pos, %[2]s.locode AS locode, %[2]s.name AS name, %[2]s.state AS state, "+
			"%[2]s.country AS country, %[2]s.countryCode AS country_code, %[2]s.coordinates.lat AS lat, "+
			"%[2]s.coordinates.lng AS lng, %[2]s.timezone AS timezone FROM e2e_resp", i, l)
	}
	return strings.Join(parts, "\n    UNION ALL ")
}

// dimensionSQL is the rows of a dimension: per key and response, the
// first non-null value of each column in response order (the transform's
// coalesce; arg_min ignores nulls), then per key the row of the newest
// response (every response of a file is observed at once, so the
// greatest response_id, as Load's merge would choose).
func dimensionSQL(from, key string, cols ...string) string {
	aggs := make([]string, len(cols))
	names := make([]string, len(cols))
	for i, c := range cols {
		name, expr, _ := strings.Cut(c, "=")
		aggs[i] = fmt.Sprintf("arg_min(%s, pos) AS %s", expr, name)
		names[i] = name
	}
	return fmt.Sprintf(`WITH g AS (
    SELECT %[1]s, rid, %[2]s
    FROM (%[3]s) WHERE %[1]s IS NOT NULL AND CAST(%[1]s AS VARCHAR) <> ''
    GROUP BY %[1]s, rid
)
SELECT %[1]s, %[4]s, {obs} AS first_seen_at, {obs} AS last_seen_at, rid AS response_id, {day} AS first_seen_date
FROM g QUALIFY row_number() OVER (PARTITION BY %[1]s ORDER BY rid DESC) = 1`, key, strings.Join(aggs, ", "), from, strings.Join(names, ", "))
}

// derivedSQL is, per derived table, the SELECT of its rows from the
// staging tables, columns in the table's order.
var derivedSQL = map[*schema.Table]string{
	schema.Locations: dimensionSQL(routeLocations()+`
    UNION ALL SELECT rid, pos, locode, loc_name, loc_state, loc_country, loc_country_code, loc_lat, loc_lng, loc_timezone FROM e2e_ev`,
		"locode", "name=nullif(name, '')", "state=nullif(state, '')", "country=nullif(country, '')",
		"country_code=nullif(country_code, '')", "lat=lat", "lng=lng", "timezone=nullif(timezone, '')"),

	schema.Facilities: dimensionSQL("SELECT * FROM e2e_ev", "facility_key",
		"name=nullif(fac_name, '')", "country_code=nullif(fac_country_code, '')", "locode=nullif(fac_locode, '')",
		"bic_code=nullif(fac_bic_code, '')", "smdg_code=nullif(fac_smdg_code, '')", "lat=fac_lat", "lng=fac_lng"),

	schema.Vessels: dimensionSQL("SELECT * FROM e2e_ev", "imo",
		"name=nullif(vessel_name, '')", "call_sign=nullif(vessel_call_sign, '')", "mmsi=vessel_mmsi",
		"flag=nullif(vessel_flag, '')"),

	schema.Shipments: `SELECT shipment_number, shipment_type, sealine,
    nullif(metadata.sealineName, '') AS sealine_name, nullif(metadata.shippingStatus, '') AS shipping_status,
    nullif(route.prepol.location.locode, '') AS prepol_locode, CAST(route.prepol.date AS TIMESTAMPTZ) AS prepol_date, route.prepol.actual AS prepol_actual,
    nullif(route.pol.location.locode, '') AS pol_locode, CAST(route.pol.date AS TIMESTAMPTZ) AS pol_date, route.pol.actual AS pol_actual,
    nullif(route.pod.location.locode, '') AS pod_locode, CAST(route.pod.date AS TIMESTAMPTZ) AS pod_date, route.pod.actual AS pod_actual,
    CAST(route.pod.predictiveEta AS TIMESTAMPTZ) AS pod_predictive_eta,
    nullif(route.postpod.location.locode, '') AS postpod_locode, CAST(route.postpod.date AS TIMESTAMPTZ) AS postpod_date, route.postpod.actual AS postpod_actual,
    CAST(coalesce(len(containers), 0) AS INTEGER) AS container_count, CAST(metadata.updatedAt AS TIMESTAMPTZ) AS updated_at,
    {obs} AS first_observed_at, {obs} AS last_observed_at, rid AS response_id, {day} AS first_observed_date
FROM e2e_resp`,

	schema.ETAObservations: `WITH t AS (
    SELECT rid, shipment_number, shipment_type, 'PREPOL' AS target, 'CARRIER' AS source, route.prepol.location.locode AS locode,
        route.prepol.date AS eta, coalesce(route.prepol.actual, false) AS is_actual FROM e2e_resp
    UNION ALL SELECT rid, shipment_number, shipment_type, 'POL', 'CARRIER', route.pol.location.locode,
        route.pol.date, coalesce(route.pol.actual, false) FROM e2e_resp
    UNION ALL SELECT rid, shipment_number, shipment_type, 'POD', 'CARRIER', route.pod.location.locode,
        route.pod.date, coalesce(route.pod.actual, false) FROM e2e_resp
    UNION ALL SELECT rid, shipment_number, shipment_type, 'POD', 'PREDICTIVE', route.pod.location.locode,
        route.pod.predictiveEta, false FROM e2e_resp
    UNION ALL SELECT rid, shipment_number, shipment_type, 'POSTPOD', 'CARRIER', route.postpod.location.locode,
        route.postpod.date, coalesce(route.postpod.actual, false) FROM e2e_resp
)
SELECT shipment_number, shipment_type, target, source, {obs} AS observed_at, nullif(locode, '') AS locode,
    CAST(eta AS TIMESTAMPTZ) AS eta, is_actual, rid AS response_id, {day} AS observed_date
FROM t WHERE eta IS NOT NULL`,

	schema.Containers: `SELECT shipment_number, c.number AS container_number, shipment_type,
    nullif(c.isoCode, '') AS iso_code, nullif(c.status, '') AS status,
    {obs} AS first_observed_at, {obs} AS last_observed_at, rid AS response_id, {day} AS first_observed_date
FROM (SELECT rid, shipment_number, shipment_type,
          unnest(list_transform(containers, c -> {'number': c.number, 'isoCode': c.isoCode, 'status': c.status})) AS c,
          generate_subscripts(containers, 1) AS ci
      FROM e2e_resp)
WHERE coalesce(c.number, '') <> ''
QUALIFY row_number() OVER (PARTITION BY rid, c.number ORDER BY ci) = 1`,

	schema.ContainerEvents: `SELECT shipment_number, container_number, event_key, shipment_type, event_type, event_code,
    nullif(status, '') AS status, nullif(description, '') AS description, nullif(locode, '') AS locode,
    nullif(facility_key, '') AS facility_key, event_at, is_actual, is_additional_event,
    nullif(route_type, '') AS route_type, nullif(transport_type, '') AS transport_type, imo AS vessel_imo,
    nullif(vessel_name, '') AS vessel_name, nullif(voyage, '') AS voyage, CAST(occurrence AS INTEGER) AS occurrence,
    {obs} AS first_observed_at, {obs} AS last_observed_at, rid AS response_id, {day} AS first_observed_date
FROM e2e_ev WHERE kept`,

	schema.EventObservations: `SELECT event_key, {obs} AS observed_at, shipment_number, container_number, event_at, is_actual,
    rid AS response_id, {day} AS observed_date
FROM e2e_ev WHERE kept`,
}
