package lake_test

import (
	"context"
	"database/sql"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
)

// checkReadable checks what a reader of every lake table needs beyond
// the catalog: a current snapshot (DuckDB's iceberg_scan and Trino refuse
// a table with none, as dead_letters was until a response was refused),
// and the table folder's metadata/version-hint.text naming the current
// metadata file, as DuckDB's iceberg_scan of the folder finds it: it
// reads the hint's content as the version and tries its
// version_name_format, by default "v%s%s.metadata.json,%s%s.metadata.json"
// (DuckDB, Iceberg extension: "version_name_format … Controls how
// versions are converted to metadata file names").
func checkReadable(t *testing.T, lk *lake.Lake) {
	t.Helper()
	tables, err := lk.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range tables {
		if !st.Exists {
			t.Errorf("%s: not created", st.Name)
			continue
		}
		if st.Current == 0 {
			t.Errorf("%s: no current snapshot", st.Name)
		}
		hint, err := os.ReadFile(localFile(t, strings.TrimSuffix(st.Location, "/")+"/metadata/"+lake.VersionHintFile))
		if err != nil {
			t.Errorf("%s: %v", st.Name, err)
			continue
		}
		// The first form, v<hint>.metadata.json, names no file of the
		// lake's (iceberg-go's names start with the version's digits);
		// the second must name the current one.
		if got, want := string(hint)+".metadata.json", path.Base(st.Metadata); got != want {
			t.Errorf("%s: version-hint.text says %q: DuckDB reads %s, want the current metadata file %s", st.Name, hint, got, want)
		}
		if strings.HasPrefix(string(hint), "v") {
			t.Errorf("%s: version-hint.text %q would match DuckDB's first form, v%%s.metadata.json", st.Name, hint)
		}
	}
}

// A lake's tables are readable by a reader of the table folder from
// their creation — dead_letters too, though no job has refused a
// response — and stay so after each job's commit and a maintain.
func TestEveryLakeTableHasASnapshotAndAVersionHint(t *testing.T) {
	slowtest.Long(t)
	ctx := context.Background()
	lk := open(t, localLake(t), lake.Options{})
	if err := lk.EnsureTables(ctx); err != nil {
		t.Fatal(err)
	}
	checkReadable(t, lk)
	dir := fed(t, lk)
	checkReadable(t, lk)
	readersTables(t, dir)
	if _, err := lk.Maintain(ctx, lake.DefaultMaintainOptions()); err != nil {
		t.Fatal(err)
	}
	checkReadable(t, lk)
}

// readersTables checks which of the writer's lake tables the published
// database of the warehouse in dir shows: lake_state (the writer's id in
// the lake), and not the partitions and keys pending for the lake
// (lake_pending, lake_keys) nor the runs in flight: the publish happens
// before the lake's commit, so a copy of them would show what the commit
// was about to clear (issue 42 saw 34 lake_pending rows the writer had
// already cleared). The lake's progress is what `lake status` reads.
func readersTables(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "etalake.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var names []string
	rows, err := db.Query("SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'lake%' UNION ALL SELECT view_name FROM duckdb_views() WHERE view_name LIKE 'lake%' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if strings.Join(names, ",") != "lake_state" {
		t.Errorf("the readers' database shows the writer's lake tables %q, want lake_state alone", names)
	}
}
