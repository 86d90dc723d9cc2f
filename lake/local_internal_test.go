package lake

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
)

// localConfig is a lake on one machine under dir: a SQLite catalog and a
// file:// warehouse.
func localConfig(dir string) Config {
	return Config{Catalog: SQLiteCatalog(filepath.Join(dir, "catalog.db")), Warehouse: "file://" + filepath.Join(dir, "files")}
}

// openLocal opens the lake of localConfig(dir), closed when t ends.
func openLocal(t *testing.T, dir string) *Lake {
	t.Helper()
	l, err := Open(context.Background(), localConfig(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// demoInto runs a demo of days nights, 10 shipments of seed 1's world,
// in the warehouse dir, feeding l.
func demoInto(t *testing.T, l *Lake, dir string, days int) {
	t.Helper()
	if _, err := jobs.Demo(context.Background(), jobs.DemoOptions{Days: days, Dir: dir, Seed: 1, Shipments: 10, Warehouse: load.Options{Lake: l}}); err != nil {
		t.Fatal(err)
	}
}
