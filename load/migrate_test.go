package load_test

import (
	"database/sql"
	"errors"
	"fmt"
	"github.com/etalake/etalake/load/loadtest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	views "github.com/etalake/etalake/sql"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
)

// TestMigrationsCreateTheContract: a fresh warehouse has every table of
// package schema with exactly its columns, types and nullability, in order.
func TestMigrationsCreateTheContract(t *testing.T) {
	w := openWarehouse(t, t.TempDir()) // created here: the test is of creation
	duckType := map[schema.Type]string{
		schema.Varchar: "VARCHAR", schema.BigInt: "BIGINT", schema.Integer: "INTEGER", schema.Double: "DOUBLE",
		schema.Boolean: "BOOLEAN", schema.Timestamp: "TIMESTAMP WITH TIME ZONE", schema.Date: "DATE",
		schema.Blob: "BLOB", schema.JSON: "JSON", schema.Seen: "STRUCT(seen_at TIMESTAMP WITH TIME ZONE, response_id VARCHAR)",
	}
	var want []string
	for _, tbl := range schema.Tables {
		for i, c := range tbl.Columns {
			want = append(want, fmt.Sprintf("%s %03d %s %s %v", tbl.Name, i+1, c.Name, duckType[c.Type], c.Nullable))
		}
	}
	// The contract tables, less the loader's own and those package sql
	// materialises for its views.
	internal := []string{"'schema_migrations'", "'parquet_pending'", "'pending_keys'", "'analytics_pending'", "'raw_derived'", "'sql_views'", "'raw_segments'", "'analytics_months_changed'"}
	vs, err := views.Views()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Table != "" {
			internal = append(internal, "'"+v.Table+"'")
		}
	}
	got := query(t, w.DB(), `SELECT format('{} {:03d} {} {} {}', table_name, ordinal_position, column_name, data_type, is_nullable = 'YES')
		FROM information_schema.columns
		WHERE table_schema = 'main' AND table_name NOT IN (`+strings.Join(internal, ", ")+`)
		AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')`)
	equal(t, "columns", got, sorted(want...))

	ms, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, m := range ms {
		recorded = append(recorded, fmt.Sprintf("%d %s %s %s", m.Version, m.Name, m.Checksum(), clock().Format("2006-01-02 15:04:05")))
	}
	equal(t, "schema_migrations", query(t, w.DB(),
		`SELECT format('{} {} {} {}', version, name, checksum, strftime(applied_at, '%Y-%m-%d %H:%M:%S')) FROM schema_migrations`), recorded)
}

// TestReopenAppliesNothing: a second Open finds every migration applied.
func TestReopenAppliesNothing(t *testing.T) {
	dir := t.TempDir()
	w, err := load.Open(t.Context(), dir, load.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	before := query(t, w.DB(), `SELECT format('{} {}', version, applied_at) FROM schema_migrations`)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	later := func() time.Time { return clock().AddDate(0, 1, 0) }
	w, err = load.Open(t.Context(), dir, load.Options{Now: later})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	equal(t, "schema_migrations", query(t, w.DB(), `SELECT format('{} {}', version, applied_at) FROM schema_migrations`), before)
}

// TestMigrationsAreForwardOnly: a warehouse whose recorded migration
// differs from the embedded one, or that knows a migration this binary does
// not, is refused, and the refusal leaves the warehouse unlocked.
func TestMigrationsAreForwardOnly(t *testing.T) {
	slowtest.Long(t)
	for _, c := range []struct{ name, tamper string }{
		{"checksum differs", `UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1`},
		{"newer warehouse", `INSERT INTO schema_migrations VALUES (99, '0099_future', 'x', now())`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := load.Open(t.Context(), dir, load.Options{Now: clock})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.DB().ExecContext(t.Context(), c.tamper); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = load.Open(t.Context(), dir, load.Options{Now: clock})
			if !errors.Is(err, load.ErrMigration) {
				t.Fatalf("Open: %v, want ErrMigration", err)
			}
			t.Log(err)
			db, err := load.OpenReadOnly(t.Context(), dir, load.DefaultOptions())
			if err != nil {
				t.Fatalf("the refused Open kept the warehouse: %v", err)
			}
			db.Close()
		})
	}
}

// TestMigrationTwoKeepsEveryBody: a warehouse made by an etalake that knew
// only migration 1 is upgraded on Open: raw_responses is rebuilt with its
// bodies stored uncompressed (zstd already; DuckDB's analysis of them at
// every checkpoint cost more memory than anything else in a large import),
// every response reads back as it was landed, and the table and columns
// keep their comments. A fresh warehouse stores bodies the same way.
func TestMigrationTwoKeepsEveryBody(t *testing.T) {
	slowtest.Long(t)
	ms, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	// The responses, landed by this binary in a warehouse of its own.
	src := t.TempDir()
	w, err := load.Open(t.Context(), src, load.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	var rs []response.Landed
	for i := range 300 {
		// Alike bodies, which DuckDB would compress if it were let to.
		rs = append(rs, fetched(t0.Add(time.Duration(i)*time.Minute), fmt.Sprintf(`{"port":"NLRTM","n":%d}`, i%3)))
	}
	land(t, w, rs...)
	wantRows, wantIDs := all(t, w, load.RawFilter{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	// The same responses in a warehouse at migration 1.
	old := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(old, "etalake.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		ms[0].SQL,
		`CREATE TABLE schema_migrations (version INTEGER NOT NULL, name VARCHAR NOT NULL, checksum VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
		fmt.Sprintf(`INSERT INTO schema_migrations VALUES (1, %s, %s, TIMESTAMPTZ '2024-01-01 00:00:00+00')`, schema.Literal(ms[0].Name), schema.Literal(ms[0].Checksum())),
		// The writer's database: the published one is views.
		fmt.Sprintf(`ATTACH %s AS src (READ_ONLY)`, schema.Literal(loadtest.WriterWithBodies(t, src))),
		// Only the columns migration 1 had: later ones are added by Open.
		`INSERT INTO raw_responses SELECT * EXCLUDE (next_page, broken, paging_stop, body_file, segment) FROM src.raw_responses`,
		`DETACH src`,
	} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	for name, dir := range map[string]string{"upgraded": old, "fresh": src} {
		t.Run(name, func(t *testing.T) {
			w := openWarehouse(t, dir)
			gotRows, gotIDs := all(t, w, load.RawFilter{})
			equal(t, "response ids", gotIDs, wantIDs)
			for i := range wantRows {
				if fmt.Sprint(gotRows[i]) != fmt.Sprint(wantRows[i]) {
					t.Fatalf("response %d reads back as\n%+v\nwant\n%+v", i, gotRows[i], wantRows[i])
				}
			}
			var wantMigrations []string
			for _, m := range ms {
				wantMigrations = append(wantMigrations, fmt.Sprintf("%d %s", m.Version, m.Name))
			}
			equal(t, "migrations", query(t, w.DB(), `SELECT format('{} {}', version, name) FROM schema_migrations ORDER BY version`), wantMigrations)
			equal(t, "comments", query(t, w.DB(), `SELECT coalesce(comment, '') FROM duckdb_columns() WHERE table_name = 'raw_responses' AND column_name IN ('body', 'response_id') ORDER BY column_name`),
				[]string{"content-derived id: the same response landed twice is one row", "the body, zstd-compressed; NULL when it is kept in body_file"})
			if n := queryInt(t, w.DB(), `SELECT count(*) FROM duckdb_tables() WHERE table_name = 'raw_responses' AND comment LIKE 'Every HTTP response%'`); n != 1 {
				t.Errorf("raw_responses has lost its comment")
			}
			if _, err := w.DB().ExecContext(t.Context(), "CHECKPOINT"); err != nil {
				t.Fatal(err)
			}
			equal(t, "compression of body", query(t, w.DB(), `SELECT DISTINCT compression FROM pragma_storage_info('raw_responses') WHERE column_name = 'body' AND segment_type <> 'VALIDITY'`),
				[]string{"Uncompressed"})
		})
	}
}

// TestMigrationThreeKeepsDimensionRows: a warehouse made by an etalake that
// knew migrations 1 and 2, whose dimension rows each hold the values of
// their latest observation, is upgraded on Open: every row is kept, each
// attribute it holds is from that observation (none kept from an earlier
// one; an empty string is no value), the tables and columns are documented as in a
// fresh warehouse, the Parquet mirror is written again with the new
// columns (a glob over files of both shapes would not read), and a later,
// poorer observation keeps what the row held.
func TestMigrationThreeKeepsDimensionRows(t *testing.T) {
	slowtest.Long(t)
	ms, err := schema.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	t1, t2, t3 := "2024-01-01T08:00:00Z", "2024-01-02T08:00:00Z", "2024-01-05T08:00:00Z"
	rotterdam := place("NLRTM", t1, "r1", row{"name": "Rotterdam", "state": "Zuid-Holland", "country": "Netherlands",
		"country_code": "NL", "lat": 51.95, "lng": 4.14, "timezone": "Europe/Amsterdam"})
	rotterdam["last_seen_at"], rotterdam["response_id"] = t2, "r2"
	hamburg := place("DEHAM", t2, "r2", row{"name": "Hamburg", "state": ""})
	terminal := row{"facility_key": "NLRTM:ECT", "name": "ECT Delta", "locode": "NLRTM", "smdg_code": "ECT",
		"first_seen_at": t1, "last_seen_at": t1, "response_id": "r1", "first_seen_date": t1[:10]}
	ship := vessel(9321483, "MSC ELOISE", t2, "r2")

	dir := t.TempDir()
	db, err := sql.Open("duckdb", filepath.Join(dir, "etalake.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	qs := []string{ms[0].SQL, ms[1].SQL,
		`CREATE TABLE schema_migrations (version INTEGER NOT NULL, name VARCHAR NOT NULL, checksum VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`}
	for _, m := range ms[:2] {
		qs = append(qs, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, %s, %s, TIMESTAMPTZ '2024-01-01 00:00:00+00')`,
			m.Version, schema.Literal(m.Name), schema.Literal(m.Checksum())))
	}
	for tbl, rs := range map[*schema.Table][]row{schema.Locations: {rotterdam, hamburg}, schema.Facilities: {terminal}, schema.Vessels: {ship}} {
		for _, r := range rs {
			qs = append(qs, insertAsOf2(tbl, r))
		}
		// Its mirror as that etalake wrote it: without the new columns.
		days := map[string]bool{}
		for _, r := range rs {
			days[r[tbl.Partition].(string)] = true
		}
		for d := range days {
			part := filepath.Join(dir, "parquet", tbl.Name, tbl.Partition+"="+d)
			if err := os.MkdirAll(part, 0o755); err != nil {
				t.Fatal(err)
			}
			qs = append(qs, fmt.Sprintf("COPY (SELECT * EXCLUDE (%[1]s) FROM %[2]s WHERE %[1]s = DATE '%[3]s') TO '%[4]s' (FORMAT parquet)",
				tbl.Partition, tbl.Name, d, filepath.Join(part, "data.parquet")))
		}
	}
	for _, q := range qs {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	w := openWarehouse(t, dir)
	duck, pq := stores[0], stores[1]
	for tbl, rs := range map[*schema.Table][]row{schema.Locations: {rotterdam, hamburg}, schema.Facilities: {terminal}, schema.Vessels: {ship}} {
		var want []row
		for _, r := range rs {
			want = append(want, observedOnce(tbl, r))
		}
		equal(t, tbl.Name, duck.rows(t, w, tbl), lines(tbl, want...))
		equal(t, tbl.Name+" in Parquet", pq.rows(t, w, tbl), lines(tbl, want...))
	}

	fresh := openWarehouse(t, t.TempDir()) // created here: the test is of creation
	for _, q := range []string{
		`SELECT table_name || ': ' || comment FROM duckdb_tables() WHERE table_name IN ('locations', 'facilities', 'vessels')`,
		`SELECT table_name || '.' || column_name || ': ' || comment FROM duckdb_columns() WHERE table_name IN ('locations', 'facilities', 'vessels')`,
	} {
		equal(t, "comments", query(t, w.DB(), q), query(t, fresh.DB(), q))
	}
	if got := query(t, w.DB(), `SELECT comment FROM duckdb_tables() WHERE table_name = 'locations'`); len(got) != 1 || !strings.Contains(got[0], "a response that leaves one out (null or empty) keeps the one known") {
		t.Errorf("locations does not tell its merge: %q", got)
	}

	mem := checkedMem(t)
	load1(t, w, mem, schema.Locations, place("NLRTM", t3, "r3", row{"name": "ROTTERDAM"}))
	want := holds(schema.Locations, row{"locode": "NLRTM"}, t1, t3, "r3", map[string]gave{
		"name": {"ROTTERDAM", t3, "r3"}, "state": {"Zuid-Holland", t2, "r2"}, "country": {"Netherlands", t2, "r2"},
		"country_code": {"NL", t2, "r2"}, "lat": {51.95, t2, "r2"}, "lng": {4.14, t2, "r2"},
		"timezone": {"Europe/Amsterdam", t2, "r2"},
	})
	equal(t, "after a poorer observation", duck.rows(t, w, schema.Locations), lines(schema.Locations, want, observedOnce(schema.Locations, hamburg)))
}

// insertAsOf2 is the INSERT of r into tbl as of migration 2: the columns
// of the first two migrations.
func insertAsOf2(tbl *schema.Table, r row) string {
	var cols, vals []string
	for _, c := range tbl.Columns {
		if c.Since > 2 {
			continue
		}
		cols = append(cols, schema.Ident(c.Name))
		switch v := r[c.Name].(type) {
		case nil:
			vals = append(vals, "NULL")
		case string:
			vals = append(vals, schema.Literal(v))
		default:
			vals = append(vals, fmt.Sprint(v))
		}
	}
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", tbl.Name, strings.Join(cols, ", "), strings.Join(vals, ", "))
}
