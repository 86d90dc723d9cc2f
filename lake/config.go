package lake

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// The settings of a lake, as flags and environment variables.
const (
	CatalogFlag   = "lake-catalog"
	CatalogEnv    = "ETALAKE_LAKE_CATALOG"
	WarehouseFlag = "lake-warehouse"
	WarehouseEnv  = "ETALAKE_LAKE_WAREHOUSE"
)

// Namespace is the Iceberg namespace of the lake's tables.
const Namespace = "etalake"

// CatalogName is the catalog_name of the lake's rows in the SQL catalog's
// tables: a Spark or Trino JDBC catalog reading them must bear this name
// (README: Reading the lake).
const CatalogName = "etalake"

// Config says where the lake is. Both settings are needed, or neither
// (no lake).
type Config struct {
	// Catalog is the SQL catalog: sqlite:///abs/path/catalog.db (one
	// machine) or postgres://user@host:port/db?sslmode=… (shared). The
	// password of a Postgres catalog is best left to PGPASSWORD or
	// ~/.pgpass rather than the URL.
	Catalog string
	// Warehouse is where the tables' files go: file:///abs/dir or
	// s3://bucket/prefix (the AWS settings from the environment:
	// AWS_ENDPOINT_URL, AWS_REGION, the credential chain).
	Warehouse string
}

// Enabled reports whether a lake is configured.
func (c Config) Enabled() bool { return c.Catalog != "" || c.Warehouse != "" }

// Validate checks the settings, one message per rule, each naming the
// setting and what it expects.
func (c Config) Validate() error {
	if !c.Enabled() {
		return nil
	}
	var errs []error
	if c.Catalog == "" {
		errs = append(errs, fmt.Errorf("--%s / %s is missing: a lake needs its catalog too (sqlite:///path/catalog.db or postgres://host/db)", CatalogFlag, CatalogEnv))
	} else if _, _, err := c.catalogSource(); err != nil {
		errs = append(errs, err)
	}
	if c.Warehouse == "" {
		errs = append(errs, fmt.Errorf("--%s / %s is missing: a lake needs where its files go too (file:///dir or s3://bucket/prefix)", WarehouseFlag, WarehouseEnv))
	} else if err := c.checkWarehouse(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// catalogSource is the database/sql driver, data source name and dialect
// of the catalog.
func (c Config) catalogSource() (driver, dsn string, err error) {
	bad := func(why string) error {
		return fmt.Errorf("--%s / %s %q: %s; want sqlite:///abs/path/catalog.db or postgres://user@host:port/db", CatalogFlag, CatalogEnv, redact(c.Catalog), why)
	}
	u, err := url.Parse(c.Catalog)
	if err != nil {
		return "", "", bad("not a URL")
	}
	switch u.Scheme {
	case "sqlite":
		if u.Host != "" || u.Path == "" || !filepath.IsAbs(u.Path) {
			return "", "", bad("a SQLite catalog is an absolute file path after sqlite:// (three slashes)")
		}
		// WAL, a busy timeout and transactions that take the write lock
		// when they begin: writers of one machine queue on the catalog's
		// lock rather than fail (a transaction that reads, then writes,
		// cannot wait for the lock: SQLite fails it at once).
		return "sqlite", "file:" + u.Path + "?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_txlock=immediate", nil
	case "postgres", "postgresql":
		if u.Host == "" {
			return "", "", bad("a Postgres catalog names its host")
		}
		return "pgx", c.Catalog, nil
	case "":
		return "", "", bad("no scheme")
	}
	return "", "", bad("scheme " + u.Scheme + " is not a catalog this build knows")
}

// dialect is the SQL dialect of the catalog's driver.
func dialect(driver string) string {
	if driver == "pgx" {
		return "postgres"
	}
	return "sqlite"
}

func (c Config) checkWarehouse() error {
	bad := func(why string) error {
		return fmt.Errorf("--%s / %s %q: %s; want file:///abs/dir or s3://bucket/prefix", WarehouseFlag, WarehouseEnv, redact(c.Warehouse), why)
	}
	u, err := url.Parse(c.Warehouse)
	if err != nil {
		return bad("not a URL")
	}
	switch u.Scheme {
	case "":
		return bad("no scheme")
	case "file":
		if u.Host != "" || !filepath.IsAbs(u.Path) {
			return bad("a local warehouse is an absolute directory after file:// (three slashes)")
		}
	case "s3", "s3a":
		if u.Host == "" {
			return bad("an S3 warehouse names its bucket")
		}
		if u.User != nil {
			return bad("credentials do not go in the URL: use the AWS credential chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, an instance role)")
		}
	default:
		return bad("scheme " + u.Scheme + " is not a storage this build knows")
	}
	return nil
}

// redact hides a URL's password, for messages.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return strings.Replace(u.String(), "xxxxx", "…", 1)
}
