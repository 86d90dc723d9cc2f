package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
)

// A warehouse that fed one lake, run with the settings of another: the
// job's log says, for every table, that it commits the whole table and
// why, naming the lake it fed before (README: Moving to another lake);
// the job after it says nothing of the kind.
func TestAJobOnAnotherLakeSaysItCommitsTheWholeTables(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	if code, stdout, stderr := run(t, nil, "demo", "--days", "2", "--warehouse", wh); code != 0 {
		t.Fatalf("demo: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"old", "new"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lakeAt := func(name string) map[string]string {
		return map[string]string{
			"ETALAKE_WAREHOUSE":      wh,
			"ETALAKE_LAKE_CATALOG":   lake.SQLiteCatalog(filepath.Join(dir, name, "catalog.db")),
			"ETALAKE_LAKE_WAREHOUSE": "file://" + filepath.Join(dir, name, "files"),
		}
	}
	night := []string{"replay", "--from", "2026-01-06", "--to", "2026-01-07"}
	if code, stdout, stderr := run(t, lakeAt("old"), night...); code != 0 {
		t.Fatalf("a job on the first lake: exit %d\n%s%s", code, stdout, stderr)
	}
	line := regexp.MustCompile(`msg="lake: committing this warehouse's whole table: the lake table lacks its history" table=(\w+) reason="another lake" partitions=\d+ was_catalog=(\S+) `)
	code, stdout, stderr := run(t, lakeAt("new"), night...)
	if code != 0 {
		t.Fatalf("a job on the new lake: exit %d\n%s%s", code, stdout, stderr)
	}
	said := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(stderr, -1) {
		said[m[1]] = true
		if want := lakeAt("old")["ETALAKE_LAKE_CATALOG"]; m[2] != want {
			t.Errorf("%s: was_catalog=%s, want %s", m[1], m[2], want)
		}
	}
	for _, tbl := range lake.Tables() {
		if !said[tbl.Name] {
			t.Errorf("the job on the new lake did not say it commits %s whole:\n%s", tbl.Name, stderr)
		}
	}
	if code, stdout, stderr := run(t, lakeAt("new"), night...); code != 0 || strings.Contains(stderr, "whole table") {
		t.Errorf("the next job on the new lake: exit %d, want 0 committing only its changes\n%s%s", code, stdout, stderr)
	}
}
