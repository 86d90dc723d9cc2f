package lake_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

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
	return lake.Config{Catalog: "sqlite://" + filepath.Join(t.TempDir(), "catalog.db"), Warehouse: "s3://lake/etalake"}
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

// The demo feeding a lake whose files are on S3.
func TestDemoFeedsALakeOnS3(t *testing.T) {
	cfg := s3Lake(t)
	lk := open(t, cfg, lake.Options{})
	dir := t.TempDir()
	demo(t, dir, lk, 2)
	checkLake(t, lk, dir)
}

// postgresLake starts a private Postgres (Debian's postgresql: initdb and
// pg_ctl on loopback, a data directory of the test's) and returns a lake
// cataloged in it, its files local. Without the binaries the test skips.
func postgresLake(t *testing.T) lake.Config {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Skip("no Postgres here (/usr/lib/postgresql/*/bin/pg_ctl): install Debian's postgresql, as .ci/run does")
	}
	bin := filepath.Dir(bins[len(bins)-1])
	base, err := os.MkdirTemp("", "etalake-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	data := filepath.Join(base, "data")
	// initdb refuses root: as root, Postgres runs as the postgres user.
	run := func(args ...string) *exec.Cmd { return exec.Command(args[0], args[1:]...) }
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and no postgres user to run Postgres as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
		run = func(args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, err := run(filepath.Join(bin, "initdb"), "-D", data, "-U", "etalake", "--auth=trust", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -k %s -c fsync=off", port, base)
	if out, err := run(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", opts, "-l", filepath.Join(base, "log"), "-w", "start").CombinedOutput(); err != nil {
		t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = run(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run() })
	return lake.Config{Catalog: fmt.Sprintf("postgres://etalake@127.0.0.1:%d/postgres?sslmode=disable", port), Warehouse: "file://" + filepath.Join(t.TempDir(), "files")}
}

// The demo feeding a lake cataloged in Postgres.
func TestDemoFeedsALakeOnPostgres(t *testing.T) {
	cfg := postgresLake(t)
	lk := open(t, cfg, lake.Options{})
	dir := t.TempDir()
	demo(t, dir, lk, 3)
	checkLake(t, lk, dir)
}
