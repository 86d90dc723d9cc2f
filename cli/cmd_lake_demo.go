package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
)

// demoLakeFlag is demo's --lake.
func demoLakeFlag() cli.Flag {
	return &cli.BoolFlag{Category: catWarehouse, Name: "lake", Usage: "also write an Iceberg lake beside the warehouse, DIR-lake (a SQLite catalog and local files), rebuilt with it, and say how to read it"}
}

// demoLake opens, when --lake is set, a new lake beside the demo's
// warehouse dir (a previous demo's lake goes: its writer was the old
// warehouse) as the warehouse's lake.
func demoLake(c *cli.Context, dir string, opt *load.Options) (lake.Config, error) {
	if !c.Bool("lake") {
		return lake.Config{}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return lake.Config{}, err
	}
	root := abs + "-lake"
	if err := os.RemoveAll(root); err != nil {
		return lake.Config{}, fmt.Errorf("demo: removing the previous demo's lake %s: %w", root, err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return lake.Config{}, err
	}
	cfg := lake.Config{Catalog: lake.SQLiteCatalog(filepath.Join(root, "catalog.db")), Warehouse: "file://" + filepath.Join(root, "warehouse")}
	lk, err := lake.Open(c.Context, cfg, lake.Options{})
	if err != nil {
		return cfg, err
	}
	opt.Lake = lk
	return cfg, nil
}

// sayDemoLake says where the demo's lake is and how to read it.
func sayDemoLake(w io.Writer, cfg lake.Config) {
	if !cfg.Enabled() {
		return
	}
	fmt.Fprintf(w, "demo: Iceberg lake: catalog %s, files %s — try:\n", cfg.Catalog, cfg.Warehouse)
	fmt.Fprintf(w, "  etalake lake status --lake-catalog %s --lake-warehouse %s\n", cfg.Catalog, cfg.Warehouse)
	fmt.Fprintf(w, "  Spark, Trino or DuckDB's iceberg extension read it as catalog %q, namespace %q (docs/lake.md: Reading the lake)\n", lake.CatalogName, lake.Namespace)
}
