package lake_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/etalake/etalake/internal/pgtest"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/lake"
)

// s3Lake is a lake on a SQLite catalog whose files go to an in-process
// S3 (gofakes3 over httptest), reached through the standard AWS settings.
func s3Lake(t *testing.T) lake.Config {
	backend := s3mem.New()
	faker := gofakes3.New(backend)
	srv := httptest.NewServer(faker.Server())
	t.Cleanup(srv.Close)
	if err := backend.CreateBucket("lake"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return lake.Config{Catalog: lake.SQLiteCatalog(filepath.Join(t.TempDir(), "catalog.db")), Warehouse: "s3://lake/etalake"}
}

// localFile is a local copy of a data file the lake names: an s3:// one
// is fetched from the test's S3 (DuckDB's httpfs is not built in here).
func localFile(t testing.TB, path string) string {
	rest, ok := strings.CutPrefix(path, "s3://")
	if !ok {
		return strings.TrimPrefix(path, "file://")
	}
	resp, err := http.Get(os.Getenv("AWS_ENDPOINT_URL") + "/" + rest)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", path, resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), filepath.Base(rest))
	if err := os.WriteFile(local, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return local
}

// A job feeding a lake whose files are on S3 and whose catalog is in
// Postgres: both of the shared backends in one run (TestTheDemoFeedsTheLake…
// runs the local ones). Without Postgres here the catalog is SQLite, and
// the test says so.
func TestAJobFeedsALakeOnS3CatalogedInPostgres(t *testing.T) {
	slowtest.Long(t)
	cfg := s3Lake(t)
	if ok, why := pgtest.Available(); ok {
		cfg.Catalog = pgtest.Start(t).URL
	} else {
		t.Logf("the catalog is SQLite: %s", why)
	}
	lk := open(t, cfg, lake.Options{})
	checkLake(t, lk, fed(t, lk))
	checkReadable(t, lk)
}

// postgresLake starts a private Postgres (internal/pgtest) and returns a
// lake cataloged in it, its files local. Without Postgres the test skips.
func postgresLake(t *testing.T) lake.Config {
	pg := pgtest.Start(t)
	return lake.Config{Catalog: pg.URL, Warehouse: "file://" + filepath.Join(t.TempDir(), "files")}
}
