package load_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/schema"
)

// selectOf is a query producing rows as the table's columns, each value
// cast to its column's DuckDB type.
func selectOf(tbl *schema.Table, rows ...row) string {
	one := func(r row) string {
		cols := make([]string, len(tbl.Columns))
		for i, c := range tbl.Columns {
			v := "NULL"
			switch x := r[c.Name].(type) {
			case nil:
			case string:
				v = "'" + strings.ReplaceAll(x, "'", "''") + "'"
			default:
				v = fmt.Sprint(x)
			}
			cols[i] = fmt.Sprintf("CAST(%s AS %s) AS %q", v, c.Type.DuckDB(), c.Name)
		}
		return "SELECT " + strings.Join(cols, ", ")
	}
	if len(rows) == 0 {
		return one(row{}) + " WHERE false"
	}
	parts := make([]string, len(rows))
	for i, r := range rows {
		parts[i] = one(r)
	}
	return strings.Join(parts, " UNION ALL ")
}

// TestLoadFromMatchesLoad loads the same batches through Load and through
// LoadFrom, each into its own warehouse, and expects the same counts, the
// same rows and the same Parquet mirror after every batch.
func TestLoadFromMatchesLoad(t *testing.T) {
	cases := []struct {
		tbl     *schema.Table
		batches [][]row
	}{
		{schema.ETAObservations, [][]row{
			{ // a key twice in one batch: the smaller response_id
				etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r2"),
				etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-08T00:00:00Z", "r1"),
				etaObs("S2", "2024-01-02T10:00:00Z", "2024-01-08T00:00:00Z", "r3"),
			},
			{ // across batches, and the same rows again
				etaObs("S2", "2024-01-02T10:00:00Z", "2024-01-07T00:00:00Z", "r0"),
				etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-08T00:00:00Z", "r1"),
			},
			{},
		}},
		{schema.Containers, [][]row{
			{
				container("C1", "LOADED", "2024-01-02T08:00:00Z", "r2"),
				container("C1", "DISCHARGED", "2024-01-05T08:00:00Z", "r3"),
				container("C2", "GATE_OUT", "2024-01-02T09:00:00Z", "r2"),
			},
			{container("C1", "GATE_OUT", "2024-01-01T08:00:00Z", "r1")}, // moves C1 to an earlier partition
			{container("C2", "GATE_OUT", "2024-01-02T09:00:00Z", "r2")}, // nothing changes
		}},
		{schema.Vessels, [][]row{
			{vessel(9321483, "OLD NAME", "2024-01-01T00:00:00Z", "r1"), vessel(9321483, "NEW NAME", "2024-02-01T00:00:00Z", "r2")},
			{vessel(9321483, "TIE LOSES", "2024-02-01T00:00:00Z", "r0")},
		}},
		{schema.ETLRuns, [][]row{
			{run("run-1", "running", "2024-01-01T02:00:00Z", 0), run("run-2", "running", "2024-01-02T02:00:00Z", 0)},
			{run("run-1", "ok", "2024-01-01T02:00:00Z", 42)},
		}},
	}
	for _, c := range cases {
		t.Run(c.tbl.Name, func(t *testing.T) {
			mem := checkedMem(t)
			viaLoad, viaQuery := openWarehouse(t, t.TempDir()), openWarehouse(t, t.TempDir())
			for i, b := range c.batches {
				want := load1(t, viaLoad, mem, c.tbl, b...).Rows[c.tbl.Name]
				got, err := viaQuery.LoadFrom(t.Context(), c.tbl, selectOf(c.tbl, b...))
				if err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
				if got != want {
					t.Errorf("batch %d: LoadFrom changed %d rows, Load %d", i, got, want)
				}
				for _, st := range stores {
					equal(t, fmt.Sprintf("batch %d, %s", i, st.name), st.rows(t, viaQuery, c.tbl), st.rows(t, viaLoad, c.tbl))
				}
				equal(t, fmt.Sprintf("batch %d, files", i), parquetFiles(t, viaQuery, c.tbl), parquetFiles(t, viaLoad, c.tbl))
			}
		})
	}
}

func TestLoadFromRefuses(t *testing.T) {
	w := openWarehouse(t, t.TempDir())
	good := etaObs("S1", "2024-01-01T10:00:00Z", "2024-01-09T00:00:00Z", "r1")
	q := selectOf(schema.ETAObservations, good)
	for _, c := range []struct {
		name, query string
		invalid     bool
	}{
		{"columns out of order", "SELECT observed_at, * EXCLUDE (observed_at) FROM (" + q + ")", true},
		{"a column of another type", "SELECT * REPLACE (CAST(observed_at AS TIMESTAMP) AS observed_at) FROM (" + q + ")", true},
		{"a column missing", "SELECT * EXCLUDE (locode) FROM (" + q + ")", true},
		{"a statement that fails", "SELECT * FROM no_such_table", false},
		{"a null the table does not take", "SELECT * REPLACE (CAST(NULL AS VARCHAR) AS target) FROM (" + q + ")", false},
	} {
		_, err := w.LoadFrom(t.Context(), schema.ETAObservations, c.query)
		if err == nil || errors.Is(err, load.ErrInvalid) != c.invalid {
			t.Errorf("%s: %v, want an error (ErrInvalid: %v)", c.name, err, c.invalid)
		}
	}
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM eta_observations") + queryInt(t, w.DB(), "SELECT count(*) FROM parquet_pending"); n != 0 {
		t.Fatalf("refused loads left %d rows", n)
	}
	r := run("run-1", "running", "2024-01-01T02:00:00Z", 0)
	if _, err := w.LoadFrom(t.Context(), schema.ETLRuns, selectOf(schema.ETLRuns, r, r)); !errors.Is(err, load.ErrInvalid) {
		t.Errorf("a ledger key twice: %v, want ErrInvalid", err)
	}
	// The temporary table of a refused load is gone with its transaction.
	if n, err := w.LoadFrom(t.Context(), schema.ETAObservations, q); err != nil || n != 1 {
		t.Fatalf("LoadFrom after the refusals: %d rows, %v", n, err)
	}
}

// TestLoadFromRaw lands raw responses from a query, as Land does: one row
// per response_id, nothing pending for the mirror.
func TestLoadFromRaw(t *testing.T) {
	w := openWarehouse(t, t.TempDir())
	q := `SELECT 'id' || i AS response_id, 'run' AS run_id, 'tracking' AS product, 'shipment' AS endpoint,
	'shipment:CT:S' || i AS resource, '/shipment' AS request, 200 AS status,
	TIMESTAMPTZ '2024-01-01 10:00:00+00' AS fetched_at, TIMESTAMPTZ '2024-01-01 10:00:00+00' AS observed_at,
	CAST(NULL AS TIMESTAMPTZ) AS date_header, 1 AS attempt, 'import' AS source, CAST(NULL AS DATE) AS logical_date,
	CAST(2 AS BIGINT) AS body_bytes, sha256('{}') AS body_sha256, CAST('{}' AS BLOB) AS body, DATE '2024-01-01' AS observed_date
	FROM range(3) AS r(i)`
	for i, want := range []int64{3, 0} {
		n, err := w.LoadFrom(t.Context(), schema.RawResponses, q)
		if err != nil || n != want {
			t.Fatalf("landing %d: %d rows, %v; want %d", i, n, err, want)
		}
	}
	if n := queryInt(t, w.DB(), "SELECT count(*) FROM parquet_pending"); n != 0 {
		t.Errorf("%d partitions pending for raw_responses, which is not mirrored", n)
	}
}
