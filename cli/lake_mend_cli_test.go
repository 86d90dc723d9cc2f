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

// A demo lake whose etl_runs lost its current metadata file: lake status
// names the table and the file and exits 1; lake mend rolls it back and
// says so; then status exits 0, and maintain at its harshest setting
// exits 0.
func TestLakeStatusSaysABrokenTableAndLakeMendMendsIt(t *testing.T) {
	slowtest.Long(t)
	dir := filepath.Join(t.TempDir(), "demo")
	if code, _, errs := run(t, nil, "demo", "--warehouse", dir, "--days", "2", "--shipments", "10", "--lake"); code != exitOK {
		t.Fatalf("demo --lake: exit %d\n%s", code, errs)
	}
	env := map[string]string{"ETALAKE_LAKE_CATALOG": lake.SQLiteCatalog(filepath.Join(dir+"-lake", "catalog.db")), "ETALAKE_LAKE_WAREHOUSE": "file://" + filepath.Join(dir+"-lake", "warehouse")}
	code, out, errs := run(t, env, "lake", "status")
	if code != exitOK {
		t.Fatalf("lake status of a whole lake: exit %d\n%s%s", code, out, errs)
	}
	m := regexp.MustCompile(`(?m)^\s+etl_runs\s+(\S+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("lake status names no metadata file of etl_runs:\n%s", out)
	}
	if err := os.Remove(strings.TrimPrefix(m[1], "file://")); err != nil {
		t.Fatal(err)
	}

	code, out, errs = run(t, env, "lake", "status")
	if code != exitFailure || !strings.Contains(out, "etl_runs") || !strings.Contains(out, m[1]) || !strings.Contains(errs, "etalake lake mend") {
		t.Errorf("lake status of a lake whose etl_runs lost %s: exit %d (want %d), want the table and the file named and mend advised\n%s%s", m[1], code, exitFailure, out, errs)
	}
	code, out, errs = run(t, env, "lake", "mend")
	if code != exitOK || !strings.Contains(out, "etl_runs: its current metadata file "+m[1]+" was missing; mended from") {
		t.Errorf("lake mend: exit %d, want etl_runs said mended\n%s%s", code, out, errs)
	}
	if code, out, errs = run(t, env, "lake", "status"); code != exitOK {
		t.Errorf("lake status after mend: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs = run(t, env, "lake", "maintain", "--keep-days", "0", "--orphan-grace", "0s"); code != exitOK {
		t.Errorf("lake maintain after mend: exit %d\n%s%s", code, out, errs)
	}
}
