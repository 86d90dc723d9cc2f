package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the comparison's own DuckDB

	"github.com/etalake/etalake/schema"
)

// legitimately different columns: the paths name a response differently
// (etalake hashes the body, DuckDB the body's SHA-256), land it in another
// run at another time, and store the body compressed (etalake) or not.
var (
	derivedExcept = []string{"response_id"}
	rawExcept     = []string{"response_id", "run_id", "fetched_at", "body"}
)

// compare checks that two warehouses hold the same rows, in DuckDB and in
// the Parquet mirror: every derived table but for derivedExcept, and
// raw_responses but for rawExcept. It also checks, in each, that every
// derived row names a landed response about its shipment, and that
// DuckDB's landed bodies hash to their body_sha256. events is the
// container events of the input. It writes what it compared to w and
// returns an error naming every difference.
func compare(ctx context.Context, w io.Writer, ours, duck string, events int64) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for name, dir := range map[string]string{"a": ours, "b": duck} {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", sqlString(filepath.Join(dir, "etalake.duckdb")), name)); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, "SET TimeZone = 'UTC'"); err != nil {
		return err
	}
	var diffs []string
	count := func(q string) int64 {
		var n int64
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			diffs = append(diffs, fmt.Sprintf("%s: %v", q, err))
			return -1
		}
		return n
	}
	differ := func(cols, a, b string) int64 {
		return count(fmt.Sprintf("SELECT count(*) FROM ((SELECT %[1]s FROM %[2]s EXCEPT ALL SELECT %[1]s FROM %[3]s) UNION ALL (SELECT %[1]s FROM %[3]s EXCEPT ALL SELECT %[1]s FROM %[2]s))", cols, a, b))
	}
	tables := append([]*schema.Table{schema.RawResponses}, schema.Derived()...)
	fmt.Fprintf(w, "%-20s %9s %9s  %s\n", "table", "etalake", "duckdb", "compared")
	for _, t := range tables {
		except := derivedExcept
		if t == schema.RawResponses {
			except = rawExcept
		}
		var cols []string
		for _, c := range t.ColumnNames() {
			if !slices.Contains(except, c) {
				cols = append(cols, ident(c))
			}
		}
		list := strings.Join(cols, ", ")
		na, nb := count("SELECT count(*) FROM a."+t.Name), count("SELECT count(*) FROM b."+t.Name)
		what := "rows (all columns but " + strings.Join(except, ", ") + ")"
		if n := differ(list, "a."+t.Name, "b."+t.Name); n != 0 || na != nb {
			diffs = append(diffs, fmt.Sprintf("%s: %d rows in etalake's, %d in DuckDB's, %d differ", t.Name, na, nb, n))
		}
		if t != schema.RawResponses && na > 0 {
			glob := func(dir string) string {
				return fmt.Sprintf("read_parquet(%s, hive_partitioning = true)", sqlString(filepath.Join(dir, "parquet", t.Name, "**", "*.parquet")))
			}
			if n := differ(list, glob(ours), glob(duck)); n != 0 {
				diffs = append(diffs, fmt.Sprintf("%s: %d rows of the Parquet mirrors differ", t.Name, n))
			}
			if n := differ(list, "a."+t.Name, glob(ours)); n != 0 {
				diffs = append(diffs, fmt.Sprintf("%s: %d rows of etalake's mirror differ from its table", t.Name, n))
			}
			what += " and Parquet"
		}
		fmt.Fprintf(w, "%-20s %9d %9d  %s\n", t.Name, na, nb, what)
		if na == 0 && t != schema.DeadLetters && t != schema.ConsumptionPeriods && t != schema.PortCalls {
			diffs = append(diffs, t.Name+": empty, so the comparison proves nothing")
		}
	}
	for _, s := range []string{"a", "b"} {
		diffs = append(diffs, traced(count, s)...)
	}
	if n := count("SELECT count(*) FROM b.raw_responses WHERE sha256(decode(body)) <> body_sha256"); n != 0 {
		diffs = append(diffs, fmt.Sprintf("%d bodies landed by DuckDB do not hash to their body_sha256", n))
	}
	fmt.Fprintf(w, "rules exercised: %d PREDICTIVE ETAs, %d events with occurrence > 0, %d exact duplicates dropped, %d facilities keyed by name\n",
		count("SELECT count(*) FROM a.eta_observations WHERE source = 'PREDICTIVE'"),
		count("SELECT count(*) FROM a.container_events WHERE occurrence > 0"),
		events-count("SELECT count(*) FROM a.event_observations"),
		count("SELECT count(*) FROM a.facilities WHERE smdg_code IS NULL AND bic_code IS NULL"))
	if len(diffs) > 0 {
		return errors.New("the paths differ:\n  " + strings.Join(diffs, "\n  "))
	}
	return nil
}

// traced checks, in warehouse s, that every derived row names a landed
// response, and one about the row's shipment: the response ids differ
// between the paths, so the comparison cannot see a row pinned to the
// wrong response.
func traced(count func(string) int64, s string) []string {
	var out []string
	for _, t := range schema.Derived() {
		cond := ""
		switch {
		case hasColumn(t, "shipment_type") && hasColumn(t, "shipment_number"):
			cond = " OR r.resource <> 'shipment:' || upper(x.shipment_type) || ':' || upper(x.shipment_number)"
		case hasColumn(t, "shipment_number"):
			cond = " OR split_part(r.resource, ':', 3) <> upper(x.shipment_number)"
		}
		q := fmt.Sprintf("SELECT count(*) FROM %[1]s.%[2]s AS x LEFT JOIN %[1]s.raw_responses AS r USING (response_id) WHERE r.response_id IS NULL%[3]s", s, t.Name, cond)
		if n := count(q); n != 0 {
			out = append(out, fmt.Sprintf("%s: %d rows of %s name no landed response, or one about another shipment", warehouseName(s), n, t.Name))
		}
	}
	return out
}

func warehouseName(s string) string {
	if s == "a" {
		return "etalake"
	}
	return "duckdb"
}

func hasColumn(t *schema.Table, name string) bool {
	_, ok := t.Column(name)
	return ok
}

// The quoting of schema, by short names.
var ident, sqlString = schema.Ident, schema.Literal
