package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/etalake/etalake/load/loadtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/wire"
)

// Three nightly answers about container EGHU1234569: its load at Singapore
// estimated without a vessel, then actual with one, then (the third) in a
// provider's shape an etalake before migration 3 refused whole: a date
// without an offset and a lower-case code.
var migration3Bodies = []string{
	`{"route":{"pod":{"location":{"locode":"NLRTM","timezone":"Europe/Amsterdam"},"date":"2026-03-20T06:00:00Z","actual":false}},
	  "containers":[{"number":"EGHU1234569","events":[{"location":{"locode":"SGSIN","timezone":"Asia/Singapore"},"eventType":"EQUIPMENT",
	  "eventCode":"LOAD","status":"CLT","date":"2026-03-03T00:00:00Z","isActual":false,"vessel":null,"voyage":null}]}]}`,
	`{"route":{"pod":{"location":{"locode":"NLRTM","timezone":"Europe/Amsterdam"},"date":"2026-03-21T06:00:00Z","actual":false}},
	  "containers":[{"number":"EGHU1234569","events":[{"location":{"locode":"SGSIN","timezone":"Asia/Singapore"},"eventType":"EQUIPMENT",
	  "eventCode":"LOAD","status":"CLT","date":"2026-03-02T18:00:00Z","isActual":true,"vessel":{"name":"MSC ANNA","imo":9839179},"voyage":"FL512W"}]}]}`,
	`{"route":{"pod":{"location":{"locode":"NLRTM","timezone":"Europe/Amsterdam"},"date":"2026-03-21 08:00:00","actual":false}},
	  "containers":[{"number":"EGHU1234569","events":[{"location":{"locode":"SGSIN","timezone":"Asia/Singapore"},"eventType":"equipment",
	  "eventCode":"load","status":"CLT","date":"2026-03-03T02:00:00","isActual":true,"vessel":{"name":"MSC ANNA","imo":"9839179"},"voyage":"FL512W"}]}]}`,
}

// migration3Day is the night of answer i.
func migration3Day(i int) time.Time { return time.Date(2026, 3, 1+i, 2, 0, 0, 0, time.UTC) }

// TestMigrationThreeDerivesTheEventsAgain: a warehouse an etalake before
// migration 3 built holds the load at Singapore as two events (the
// estimate's key, and the actual's, its vessel in the key), and the third
// answer as a dead letter of its whole body. Opening it applies migration
// 3, which deletes what the tracking answers derived and forgets them as
// derived; the next run derives them again before it fetches: one event
// with three observations, the third answer's rows loaded and its dead
// letter gone, the Parquet mirror rewritten (the actual's old partition
// too), and the tables equal to what a replay of the raw landing gives.
func TestMigrationThreeDerivesTheEventsAgain(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	ids := landInAWarehouseOfItsOwn(t)
	dir := t.TempDir()
	buildBeforeMigration3(t, dir, ids)

	b := newBench(t, 10, 10)
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	db := wh.DB()
	if got := queryInts(t, db, `SELECT (SELECT count(*) FROM container_events), (SELECT count(*) FROM dead_letters),
		(SELECT count(*) FROM raw_derived), (SELECT count(*) FROM parquet_pending WHERE table_name = 'container_events')`); got != "0 0 0 2" {
		t.Fatalf("after migration 3: events, dead letters, derived, pending event partitions = %s; want 0 0 0 2", got)
	}

	res, err := jobs.RunJob(ctx, b.client(t, 10, 10, 0), wh, jobs.RunOptions{Job: "run", Track: true,
		LogicalDate: migration3Day(3), Now: func() time.Time { return migration3Day(3) }})
	if err != nil || res.Run.Requests != 0 {
		t.Fatalf("run: %v, %d requests; want the catch-up alone", err, res.Run.Requests)
	}
	if got := queryInts(t, db, `SELECT count(*), count(DISTINCT event_key) FROM event_observations`); got != "3 1" {
		t.Errorf("event_observations: %s rows and keys, want 3 observations of one event", got)
	}
	var event string
	if err := db.QueryRow(`SELECT format('{} {} {} {} {} {}', event_code, locode, is_actual, vessel_imo, occurrence, first_observed_at)
		FROM container_events`).Scan(&event); err != nil || event != "LOAD SGSIN true 9839179 0 2026-03-01 02:00:00+00" {
		t.Errorf("container_events: %q, %v; want the one load, actual with its vessel, first seen the first night", event, err)
	}
	if got := queryInts(t, db, `SELECT (SELECT count(*) FROM dead_letters), (SELECT count(*) FROM eta_observations),
		(SELECT count(*) FROM eta_observations WHERE eta_zone_assumed = 'Europe/Amsterdam'), (SELECT count(*) FROM raw_derived)`); got != "0 3 1 3" {
		t.Errorf("dead letters, ETAs, ETAs read in Amsterdam time, derived = %s; want 0 3 1 3", got)
	}
	after := snapshot(t, db)
	mirrorEqualsTables(t, wh, dir, after)
	if old := filepath.Join(dir, "parquet", "container_events", "first_observed_date=2026-03-02"); exists(old) {
		t.Errorf("%s, the old actual's partition, is still in the mirror", old)
	}

	if _, err := jobs.Replay(ctx, wh, jobs.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := compare(after, snapshot(t, db)); diff != "" {
		t.Errorf("a replay differs from the catch-up after migration 3: %s", diff)
	}
}

// A writer that derives nothing itself (track add, track rm) catches up
// first, so that what it publishes after migration 3 is whole.
func TestAfterMigrationThreeEveryWriterPublishesWholeTables(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	ids := landInAWarehouseOfItsOwn(t)
	dir := t.TempDir()
	buildBeforeMigration3(t, dir, ids)
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	res, err := jobs.Track(ctx, wh, nil, jobs.TrackOptions{})
	if err != nil || res.Run.Status != load.StatusOK || res.Run.Rows["event_observations"] != 3 {
		t.Fatalf("track: %s, rows %v, %v; want ok and the 3 tracking answers derived", res.Run.Status, res.Run.Rows, err)
	}
	if got := queryInts(t, wh.DB(), `SELECT (SELECT count(*) FROM container_events), (SELECT count(*) FROM event_observations)`); got != "1 3" {
		t.Errorf("events, observations = %s; want 1 3", got)
	}
	if res, err := jobs.Track(ctx, wh, nil, jobs.TrackOptions{}); err != nil || len(res.Run.Rows) != 0 {
		t.Errorf("a second track derived %v, %v; want nothing", res.Run.Rows, err)
	}
	db, err := load.OpenReadOnly(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := queryInts(t, db, `SELECT (SELECT count(*) FROM container_events), (SELECT count(*) FROM event_observations)`); got != "1 3" {
		t.Errorf("readers see events, observations = %s; want 1 3", got)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// queryInts renders a query's one row of numbers as space-separated text.
func queryInts(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	vals := make([]int64, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if !rows.Next() {
		t.Fatalf("%s: no row", q)
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	return strings.Trim(fmt.Sprint(vals), "[]")
}

// landInAWarehouseOfItsOwn lands the three answers with this binary, in a
// warehouse buildBeforeMigration3 copies them from, and returns their ids.
func landInAWarehouseOfItsOwn(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	wh, err := load.Open(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range migration3Bodies {
		day := migration3Day(i)
		if _, err := wh.Land(context.Background(), &response.Landed{RunID: fmt.Sprintf("old-%d", i), Resource: "shipment:CT:EGHU1234569",
			ObservedAt: day, Source: load.SourceFetch, Received: response.Received{Product: wire.ProductTracking, Endpoint: wire.EndpointShipment,
				Request: wire.TrackingBasePath + "/shipment?" + wire.ShipmentQuery("EGHU1234569", "CT", "").Encode(),
				Status:  200, FetchedAt: day, Attempt: 1, Body: []byte(body)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	return loadtest.WriterWithBodies(t, dir) // the writer's, bodies in it: the published one is views
}

// buildBeforeMigration3 makes in dir the warehouse an etalake of migration
// 2 would have made of the answers landed in src: the tables of migrations
// 1 and 2, the answers, the rows that etalake derived (its event keys, the
// third answer dead-lettered whole) and their Parquet mirror.
func buildBeforeMigration3(t *testing.T, dir, src string) {
	t.Helper()
	ms, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, "etalake.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{ms[0].SQL, ms[1].SQL,
		`CREATE TABLE schema_migrations (version INTEGER NOT NULL, name VARCHAR NOT NULL, checksum VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
		`CREATE TABLE parquet_pending (table_name VARCHAR NOT NULL, partition_date DATE NOT NULL)`,
		`CREATE TABLE raw_derived (response_id VARCHAR NOT NULL, derived_at TIMESTAMPTZ NOT NULL)`,
	}
	for _, m := range ms[:2] {
		stmts = append(stmts, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, %s, %s, TIMESTAMPTZ '2026-01-01 00:00:00+00')`,
			m.Version, schema.Literal(m.Name), schema.Literal(m.Checksum())))
	}
	stmts = append(stmts,
		fmt.Sprintf(`ATTACH %s AS src (READ_ONLY)`, schema.Literal(src)),
		`INSERT INTO raw_responses SELECT * EXCLUDE (next_page, broken, paging_stop, body_file, segment) FROM src.raw_responses`,
		`DETACH src`,
		`CREATE TEMP TABLE night AS SELECT response_id AS rid, observed_at AS seen, row_number() OVER (ORDER BY observed_at) AS n FROM raw_responses`,
		`INSERT INTO raw_derived SELECT rid, seen FROM night`,
		// What the first two answers gave: the shipment, its ETAs, the
		// container, and the load as two events (the old key held the
		// vessel and the voyage), each observed once.
		`INSERT INTO shipments BY NAME SELECT 'EGHU1234569' AS shipment_number, 'CT' AS shipment_type, 'NLRTM' AS pod_locode,
			TIMESTAMPTZ '2026-03-21 06:00:00+00' AS pod_date, false AS pod_actual, 1 AS container_count,
			(SELECT seen FROM night WHERE n = 1) AS first_observed_at, seen AS last_observed_at, rid AS response_id,
			(SELECT CAST(seen AS DATE) FROM night WHERE n = 1) AS first_observed_date FROM night WHERE n = 2`,
		`INSERT INTO eta_observations BY NAME SELECT 'EGHU1234569' AS shipment_number, 'CT' AS shipment_type, 'POD' AS target,
			'CARRIER' AS source, seen AS observed_at, 'NLRTM' AS locode,
			CASE n WHEN 1 THEN TIMESTAMPTZ '2026-03-20 06:00:00+00' ELSE TIMESTAMPTZ '2026-03-21 06:00:00+00' END AS eta,
			false AS is_actual, rid AS response_id, CAST(seen AS DATE) AS observed_date FROM night WHERE n <= 2`,
		`INSERT INTO containers BY NAME SELECT 'EGHU1234569' AS shipment_number, 'EGHU1234569' AS container_number, 'CT' AS shipment_type,
			(SELECT seen FROM night WHERE n = 1) AS first_observed_at, seen AS last_observed_at, rid AS response_id,
			(SELECT CAST(seen AS DATE) FROM night WHERE n = 1) AS first_observed_date FROM night WHERE n = 2`,
		`INSERT INTO container_events BY NAME SELECT 'EGHU1234569' AS shipment_number, 'EGHU1234569' AS container_number,
			'old-key-' || n AS event_key, 'CT' AS shipment_type, 'EQUIPMENT' AS event_type, 'LOAD' AS event_code, 'CLT' AS status,
			'SGSIN' AS locode, CASE n WHEN 1 THEN TIMESTAMPTZ '2026-03-03 00:00:00+00' ELSE TIMESTAMPTZ '2026-03-02 18:00:00+00' END AS event_at,
			n = 2 AS is_actual, false AS is_additional_event, CASE n WHEN 2 THEN 9839179 END AS vessel_imo,
			CASE n WHEN 2 THEN 'FL512W' END AS voyage, 0 AS occurrence, seen AS first_observed_at, seen AS last_observed_at,
			rid AS response_id, CAST(seen AS DATE) AS first_observed_date FROM night WHERE n <= 2`,
		`INSERT INTO event_observations BY NAME SELECT 'old-key-' || n AS event_key, seen AS observed_at, 'EGHU1234569' AS shipment_number,
			'EGHU1234569' AS container_number, n = 2 AS is_actual, rid AS response_id, CAST(seen AS DATE) AS observed_date FROM night WHERE n <= 2`,
		// The third answer, refused whole.
		`INSERT INTO dead_letters SELECT rid, '', 'decode shipment: parsing time "\"2026-03-21 08:00:00\"" as "\"2006-01-02T15:04:05Z07:00\"": cannot parse " 08:00:00\"" as "T"',
			'shipment', seen, CAST(seen AS DATE) FROM night WHERE n = 3`,
	)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	// The mirror of those rows, one file per partition, as SyncParquet
	// writes it.
	writeMirror(t, db, dir, 2, schema.Shipments, schema.ETAObservations, schema.Containers,
		schema.ContainerEvents, schema.EventObservations, schema.DeadLetters)
}

// writeMirror writes in dir the Parquet mirror of the tables' rows in db,
// one file per partition, as SyncParquet writes it, with the columns the
// tables had as of migration version.
func writeMirror(t *testing.T, db *sql.DB, dir string, version int, tables ...*schema.Table) {
	t.Helper()
	for _, tbl := range tables {
		var cols []string
		for _, c := range tbl.Columns {
			if c.Since <= version && c.Name != tbl.Partition {
				cols = append(cols, schema.Ident(c.Name))
			}
		}
		rows, err := db.Query(fmt.Sprintf(`SELECT DISTINCT CAST(%s AS VARCHAR) FROM %s`, schema.Ident(tbl.Partition), tbl.Name))
		if err != nil {
			t.Fatal(err)
		}
		var days []string
		for rows.Next() {
			var d string
			if err := rows.Scan(&d); err != nil {
				t.Fatal(err)
			}
			days = append(days, d)
		}
		rows.Close()
		for _, d := range days {
			part := filepath.Join(dir, "parquet", tbl.Name, tbl.Partition+"="+d)
			if err := os.MkdirAll(part, 0o755); err != nil {
				t.Fatal(err)
			}
			q := fmt.Sprintf(`COPY (SELECT %s FROM %s WHERE %s = DATE '%s') TO %s (FORMAT parquet)`, strings.Join(cols, ", "), tbl.Name,
				schema.Ident(tbl.Partition), d, schema.Literal(filepath.Join(part, "data.parquet")))
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
}
