package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/etalake/etalake/load/loadtest"
	"path/filepath"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/wire"
)

// A DCSA port schedule at Amsterdam: King of the Seas' plan with a
// lower-case classifier and its actual arrival with a lower-case type;
// CMA CGM Jacques Saadé's plan without an offset.
const migration4Body = `[{"location":{"UNLocationCode":"NLAMS"},"vesselSchedules":[
 {"servicePartners":[{"carrierCode":"MAEU","carrierImportVoyageNumber":"2103S","carrierExportVoyageNumber":"2103N"}],
  "vessel":{"vesselIMONumber":"9321483","name":"King of the Seas"},"isDummyVessel":false,"timestamps":[
  {"eventTypeCode":"ARRI","eventClassifierCode":"pln","eventDateTime":"2025-01-14T09:21:00+01:00"},
  {"eventTypeCode":"arri","eventClassifierCode":"ACT","eventDateTime":"2025-01-14T10:02:00+01:00"}]},
 {"servicePartners":[{"carrierCode":"CMDU","carrierImportVoyageNumber":"0FAL5W1MA"}],
  "vessel":{"vesselIMONumber":"9839179"},"isDummyVessel":false,"timestamps":[
  {"eventTypeCode":"ARRI","eventClassifierCode":"PLN","eventDateTime":"2025-01-15T06:00:00"}]}]}]`

var migration4Night = time.Date(2025, 1, 13, 6, 0, 0, 0, time.UTC)

// TestMigrationFourDerivesTheSchedulesAgain: a warehouse an etalake before
// migration 4 built holds the plan as classifier 'pln' (which no view
// counts), the actual arrival dead-lettered for its code 'arri', and the
// plan without an offset dead-lettered with its whole vessel schedule.
// Opening it applies migration 4, which deletes what the schedules derived
// and forgets them as derived; the next run derives them again before it
// fetches: three calls with their codes upper case, the naive plan read
// in Amsterdam time, no dead letter, the reliability view judging the
// call, the Parquet mirror rewritten, and the tables equal to what a
// replay of the raw landing gives.
func TestMigrationFourDerivesTheSchedulesAgain(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	dir := t.TempDir()
	buildBeforeMigration4(t, dir, landSchedulesOnTheirOwn(t))

	b := newBench(t, 10, 10)
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	db := wh.DB()
	if got := queryInts(t, db, `SELECT (SELECT count(*) FROM port_calls), (SELECT count(*) FROM dead_letters),
		(SELECT count(*) FROM raw_derived), (SELECT count(*) FROM parquet_pending WHERE table_name IN ('port_calls', 'dead_letters'))`); got != "0 0 0 2" {
		t.Fatalf("after migration 4: port calls, dead letters, derived, pending partitions = %s; want 0 0 0 2", got)
	}

	res, err := jobs.RunJob(ctx, b.client(t, 10, 10, 0), wh, jobs.RunOptions{Job: "run", Track: true,
		LogicalDate: migration4Night.Add(24 * time.Hour), Now: func() time.Time { return migration4Night.Add(24 * time.Hour) }})
	if err != nil || res.Run.Requests != 0 {
		t.Fatalf("run: %v, %d requests; want the catch-up alone", err, res.Run.Requests)
	}
	if got := queryInts(t, db, `SELECT (SELECT count(*) FROM port_calls), (SELECT count(*) FROM port_calls WHERE classifier = 'PLN'),
		(SELECT count(*) FROM port_calls WHERE event_at_zone_assumed = 'Europe/Amsterdam'), (SELECT count(*) FROM dead_letters),
		(SELECT count(*) FROM port_call_reliability WHERE outcome = 'on_time')`); got != "3 2 1 0 1" {
		t.Errorf("port calls, plans, read in Amsterdam time, dead letters, on time = %s; want 3 2 1 0 1", got)
	}
	after := snapshot(t, db)
	mirrorEqualsTables(t, wh, dir, after)
	if old := filepath.Join(dir, "parquet", "dead_letters", "at_date=2025-01-13"); exists(old) {
		t.Errorf("%s, the old dead letters' partition, is still in the mirror", old)
	}

	if _, err := jobs.Replay(ctx, wh, jobs.ReplayOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := compare(after, snapshot(t, db)); diff != "" {
		t.Errorf("a replay differs from the catch-up after migration 4: %s", diff)
	}
}

// landSchedulesOnTheirOwn lands the schedule with this binary, in a
// warehouse buildBeforeMigration4 copies it from.
func landSchedulesOnTheirOwn(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	wh, err := load.Open(context.Background(), dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wh.Land(context.Background(), &response.Landed{RunID: "old", Resource: "port:NLAMS", ObservedAt: migration4Night, Source: load.SourceFetch,
		Received: response.Received{Product: wire.ProductSchedule, Endpoint: wire.EndpointPortSchedule, Request: wire.ScheduleBasePath + "/schedule/NLAMS",
			Status: 200, FetchedAt: migration4Night, Attempt: 1, Body: []byte(migration4Body)}}); err != nil {
		t.Fatal(err)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	return loadtest.WriterWithBodies(t, dir) // the writer's, bodies in it: the published one is views
}

// buildBeforeMigration4 makes in dir the warehouse an etalake of migration
// 3 would have made of the schedule landed in src: the tables of
// migrations 1 to 3, the answer, what that etalake derived from it (the
// plan as sent, two dead letters) and their Parquet mirror.
func buildBeforeMigration4(t *testing.T, dir, src string) {
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
	stmts := []string{
		`CREATE TABLE schema_migrations (version INTEGER NOT NULL, name VARCHAR NOT NULL, checksum VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
		`CREATE TABLE parquet_pending (table_name VARCHAR NOT NULL, partition_date DATE NOT NULL)`,
		`CREATE TABLE raw_derived (response_id VARCHAR NOT NULL, derived_at TIMESTAMPTZ NOT NULL)`,
	}
	for _, m := range ms[:3] {
		stmts = append(stmts, m.SQL, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, %s, %s, TIMESTAMPTZ '2025-01-01 00:00:00+00')`,
			m.Version, schema.Literal(m.Name), schema.Literal(m.Checksum())))
	}
	stmts = append(stmts,
		fmt.Sprintf(`ATTACH %s AS src (READ_ONLY)`, schema.Literal(src)),
		`INSERT INTO raw_responses SELECT * EXCLUDE (paging_stop, body_file, segment) FROM src.raw_responses`,
		`DETACH src`,
		`INSERT INTO raw_derived SELECT response_id, observed_at FROM raw_responses`,
		// The plan, its classifier as sent; the actual refused for its
		// type, and the other vessel's schedule for its date.
		`INSERT INTO port_calls BY NAME SELECT 'PORT' AS query, 'NLAMS' AS port_locode, 9321483 AS vessel_imo, '2103S' AS voyage,
			'ARRI' AS event_type_code, 'pln' AS classifier, observed_at, 'MAEU' AS carrier, 'King of the Seas' AS vessel_name,
			'2103S' AS import_voyage, '2103N' AS export_voyage, TIMESTAMPTZ '2025-01-14 08:21:00+00' AS event_at, response_id,
			CAST(observed_at AS DATE) AS observed_date FROM raw_responses`,
		`INSERT INTO dead_letters SELECT response_id, '[0].vesselSchedules[0].timestamps[1]', 'timestamp with eventTypeCode "arri": want ARRI or DEPA',
			'schedule_port', observed_at, CAST(observed_at AS DATE) FROM raw_responses`,
		`INSERT INTO dead_letters SELECT response_id, '[0].vesselSchedules[1]', '"2025-01-15T06:00:00" is not an RFC 3339 date-time with an offset (as 2025-01-14T09:21:00+01:00)',
			'schedule_port', observed_at, CAST(observed_at AS DATE) FROM raw_responses`,
	)
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	writeMirror(t, db, dir, 3, schema.PortCalls, schema.DeadLetters)
}
