package lake_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etalake/etalake/lake"
)

// Bad settings are refused before anything is opened, each message
// naming the setting and what it expects, a password never echoed.
func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  lake.Config
		want []string // "" for none
	}{
		{lake.Config{}, nil},
		{lake.Config{Catalog: "sqlite:////var/lib/etalake/catalog.db", Warehouse: "file:///var/lib/etalake/lake"}, nil},
		{lake.Config{Catalog: "postgres://etalake@db:5432/lake", Warehouse: "s3://bucket/prefix"}, nil},
		{lake.Config{Catalog: "sqlite:///x.db"}, []string{"--lake-warehouse / ETALAKE_LAKE_WAREHOUSE is missing"}},
		{lake.Config{Warehouse: "file:///x"}, []string{"--lake-catalog / ETALAKE_LAKE_CATALOG is missing"}},
		{lake.Config{Catalog: "sqlite://rel/x.db", Warehouse: "file:///x"}, []string{"ETALAKE_LAKE_CATALOG", "rel would be a host", "sqlite:////abs/path/catalog.db"}},
		{lake.Config{Catalog: "mysql://db/x", Warehouse: "file:///x"}, []string{"scheme mysql is not a catalog this build knows", lake.CatalogForms}},
		{lake.Config{Catalog: "postgres://u:secret@db/x", Warehouse: "/x"}, []string{"ETALAKE_LAKE_WAREHOUSE", "no scheme"}},
		{lake.Config{Catalog: "postgres:///x", Warehouse: "file:///x"}, []string{"names its host"}},
		{lake.Config{Catalog: "sqlite:///x.db", Warehouse: "s3://key:secret@bucket/x"}, []string{"credentials do not go in the URL"}},
		{lake.Config{Catalog: "sqlite:///x.db", Warehouse: "gs://bucket/x"}, []string{"scheme gs is not a storage"}},
	} {
		err := c.cfg.Validate()
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%+v: %v", c.cfg, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%+v: accepted, want %q", c.cfg, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: %q does not say %q", c.cfg, err, w)
			}
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%+v: the message shows the password: %q", c.cfg, err)
		}
	}
}

// The SQLite catalog's URL is read as SQLAlchemy reads it — pyiceberg's
// SQL catalog takes the same URL for the same file: "sqlite:////abs" is
// an absolute path, "sqlite:///rel" one relative to the working directory
// (SQLAlchemy, Engine Configuration, SQLite: "the actual filename to be
// used starts with the characters to the right of the third slash. So
// connecting to a relative filepath looks like: …"sqlite:///foo.db" And
// for an absolute file path, the three slashes are followed by the
// absolute path: # Unix/Mac - 4 initial slashes in total …
// "sqlite:////absolute/path/to/foo.db""). Both open a catalog; the
// three-slash form written for an absolute path, the one this build read
// before, is refused, naming the forms that are accepted, rather than
// making a new empty catalog in the working directory.
func TestSQLiteCatalogURLAsSQLAlchemyReadsIt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Chdir(dir)
	files := "file://" + filepath.Join(dir, "files")
	abs := filepath.Join(dir, "catalog.db")
	for _, url := range []string{"sqlite:///" + abs, "sqlite:///catalog.db", lake.SQLiteCatalog(abs), lake.SQLiteCatalog("catalog.db")} {
		lk, err := lake.Open(ctx, lake.Config{Catalog: url, Warehouse: files}, lake.Options{})
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if err := lk.EnsureTables(ctx); err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		lk.Close()
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("no catalog at %s: %v", abs, err)
	}
	for _, c := range []struct{ url, want string }{
		{"sqlite://" + abs, "relative to the working directory"}, // sqlite:///tmp/…: tmp/… here
		{"sqlite://" + filepath.Join(dir, "other.db"), "four slashes"},
		{"sqlite://tmp/catalog.db", "tmp would be a host"},
		{"sqlite:///", "names its file"},
		{"sqlite:///catalog.db?mode=ro", "no ?query"},
	} {
		_, err := lake.Open(ctx, lake.Config{Catalog: c.url, Warehouse: files}, lake.Options{})
		if err == nil {
			t.Errorf("%s: accepted", c.url)
			continue
		}
		for _, w := range []string{c.want, lake.CatalogForms} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.url, err, w)
			}
		}
	}
}
