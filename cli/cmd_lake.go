package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/lake"
	"github.com/etalake/etalake/load"
)

// lakeFlags are the settings of the lake a writer commits to: both or
// neither.
func lakeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Category: catWarehouse, Name: lake.CatalogFlag, EnvVars: []string{lake.CatalogEnv},
			Usage: "the Iceberg lake's SQL catalog, committed to at the end of every job: sqlite:////abs/path/catalog.db (one machine; four slashes, or three for a path from the working directory, as SQLAlchemy and pyiceberg read it) or postgres://user@host:port/db (shared; the password in PGPASSWORD or ~/.pgpass); with --" + lake.WarehouseFlag},
		&cli.StringFlag{Category: catWarehouse, Name: lake.WarehouseFlag, EnvVars: []string{lake.WarehouseEnv},
			Usage: "where the lake's files go: file:///abs/dir or s3://bucket/prefix (AWS_ENDPOINT_URL, AWS_REGION and the AWS credential chain apply); with --" + lake.CatalogFlag},
	}
}

// lakeConfig reads the lake's settings, validated; the zero Config when
// none is set.
func lakeConfig(c *cli.Context) (lake.Config, error) {
	cfg := lake.Config{Catalog: c.String(lake.CatalogFlag), Warehouse: c.String(lake.WarehouseFlag)}
	if err := cfg.Validate(); err != nil {
		return cfg, usageErr{err}
	}
	return cfg, nil
}

// openLake opens the lake the settings name, or returns nil without
// them. It stays open until the process ends, and logs a commit that
// gives a lake table a whole table (a warehouse moved to another lake).
func openLake(c *cli.Context) (*lake.Lake, error) {
	cfg, err := lakeConfig(c)
	if err != nil || !cfg.Enabled() {
		return nil, err
	}
	log, err := newLogger(c)
	if err != nil {
		return nil, err
	}
	return lake.Open(c.Context, cfg, lake.Options{Log: log})
}

// withLake sets the warehouse's lake from the settings, when set.
func withLake(c *cli.Context, opt *load.Options) error {
	lk, err := openLake(c)
	if err != nil || lk == nil {
		return err
	}
	opt.Lake = lk
	return nil
}

func lakeCommand() *cli.Command {
	return &cli.Command{
		Name:  "lake",
		Usage: "the Iceberg lake the jobs commit to: its state and its upkeep",
		Description: "With --lake-catalog and --lake-warehouse (ETALAKE_LAKE_CATALOG, ETALAKE_LAKE_WAREHOUSE) every job\n" +
			"commits the partitions it changed to Iceberg tables in namespace etalake, one snapshot per table,\n" +
			"carrying its run id; Spark, Trino and DuckDB read them (docs/lake.md: Reading the lake). 'etalake lake pull'\n" +
			"builds one warehouse of the whole lake, its analytic views over every writer's rows.",
		Subcommands:  []*cli.Command{lakeStatusCommand(), lakeMaintainCommand(), lakeMendCommand(), lakePullCommand()},
		OnUsageError: usageError,
	}
}

// needLake opens the lake for the lake commands, which need one.
func needLake(c *cli.Context) (*lake.Lake, error) {
	lk, err := openLake(c)
	if err == nil && lk == nil {
		err = configError("no lake: set --%s and --%s (%s, %s)", lake.CatalogFlag, lake.WarehouseFlag, lake.CatalogEnv, lake.WarehouseEnv)
	}
	return lk, err
}
