package lake_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/schema"
)

// checkLake checks that every lake table holds, for the writer of each
// warehouse in dirs, exactly the rows of its published database — read
// through the catalog, and read from the current snapshot's files with
// DuckDB's read_parquet — and no other rows.
func checkLake(t *testing.T, lk *lake.Lake, dirs ...string) {
	t.Helper()
	db := duck(t, lk, dirs...)
	for _, tbl := range lake.Tables() {
		// The exact types: DuckDB's JSON is a string in Iceberg (which has
		// no JSON type), as in the Parquet mirror's files.
		same(t, db, tbl.Name+"'s column types",
			fmt.Sprintf("SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = 'memory' AND table_name = 'lake_%s' AND column_name <> 'etalake_writer'", tbl.Name),
			fmt.Sprintf("SELECT column_name, replace(data_type, 'JSON', 'VARCHAR') FROM information_schema.columns WHERE table_catalog = 'wh0' AND table_name = '%s'", tbl.Name))
		cols := columns(tbl)
		var total int64
		for i, d := range dirs {
			w := writerOf(t, d)
			n := same(t, db, fmt.Sprintf("%s of %s through the catalog", tbl.Name, d),
				fmt.Sprintf("SELECT %s FROM lake_%s WHERE etalake_writer = %d", cols, tbl.Name, w),
				fmt.Sprintf("SELECT %s FROM wh%d.%s", cols, i, schema.Ident(tbl.Name)))
			total += n
		}
		if n := count(t, db, "SELECT count(*) FROM lake_"+tbl.Name); n != total {
			t.Errorf("%s: the lake holds %d rows, the warehouses %d", tbl.Name, n, total)
		}
		files, nf := snapshotRows(t, lk, tbl)
		if nf == 0 {
			if total != 0 {
				t.Errorf("%s: no data file for %d rows", tbl.Name, total)
			}
			continue
		}
		same(t, db, tbl.Name+" read from the snapshot's files, position deletes applied", files,
			fmt.Sprintf("SELECT %s FROM lake_%s", cols, tbl.Name))
	}
}

// A lake created by an older binary (its tables as of migration 2)
// evolves when a newer one commits: the columns of later migrations are
// added, the field ids of the columns it had are kept, and every table
// holds the warehouse's rows with all their columns.
func TestOlderLakeEvolves(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	cfg := localLake(t)
	old := open(t, cfg, lake.Options{SchemaVersion: 2})
	if err := old.EnsureTables(ctx); err != nil {
		t.Fatal(err)
	}
	before := map[string]map[string]int{}
	added := 0
	for _, tbl := range lake.Tables() {
		ids, err := old.FieldIDs(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		before[tbl.Name] = ids
		for _, c := range tbl.Columns {
			if c.Since > 2 {
				added++
			}
		}
	}
	if added == 0 {
		t.Fatal("no column was added after migration 2: the test tests nothing")
	}
	lk := open(t, cfg, lake.Options{})
	dir := fed(t, lk)
	checkLake(t, lk, dir)
	for _, tbl := range lake.Tables() {
		ids, err := lk.FieldIDs(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		for name, id := range before[tbl.Name] {
			if ids[name] != id {
				t.Errorf("%s.%s: field id %d, was %d", tbl.Name, name, ids[name], id)
			}
		}
		for _, c := range tbl.Columns {
			if _, ok := ids[c.Name]; !ok {
				t.Errorf("%s.%s (migration %d) was not added", tbl.Name, c.Name, c.Since)
			}
		}
	}
}
