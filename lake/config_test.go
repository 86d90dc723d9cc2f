package lake_test

import (
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
		{lake.Config{Catalog: "sqlite:///var/lib/etalake/catalog.db", Warehouse: "file:///var/lib/etalake/lake"}, nil},
		{lake.Config{Catalog: "postgres://etalake@db:5432/lake", Warehouse: "s3://bucket/prefix"}, nil},
		{lake.Config{Catalog: "sqlite:///x.db"}, []string{"--lake-warehouse / ETALAKE_LAKE_WAREHOUSE is missing"}},
		{lake.Config{Warehouse: "file:///x"}, []string{"--lake-catalog / ETALAKE_LAKE_CATALOG is missing"}},
		{lake.Config{Catalog: "sqlite://rel/x.db", Warehouse: "file:///x"}, []string{"ETALAKE_LAKE_CATALOG", "absolute file path"}},
		{lake.Config{Catalog: "mysql://db/x", Warehouse: "file:///x"}, []string{"scheme mysql is not a catalog this build knows"}},
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
