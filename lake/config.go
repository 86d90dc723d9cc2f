package lake

import (
	"errors"
	"fmt"
	"net/url"
	"os"
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
// (docs/lake.md: Reading the lake).
const CatalogName = "etalake"

// Config says where the lake is. Both settings are needed, or neither
// (no lake).
type Config struct {
	// Catalog is the SQL catalog: sqlite:////abs/path/catalog.db (one
	// machine; sqlite:///rel/catalog.db from the working directory, as
	// SQLAlchemy reads both) or postgres://user@host:port/db?sslmode=…
	// (shared). The
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
		errs = append(errs, fmt.Errorf("--%s / %s is missing: a lake needs its catalog too: %s", CatalogFlag, CatalogEnv, CatalogForms))
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

// CatalogForms are the catalog URLs this build accepts, for messages.
const CatalogForms = "sqlite:////abs/path/catalog.db (four slashes: an absolute path), sqlite:///relative/catalog.db (three: from the working directory), as SQLAlchemy and so pyiceberg read them, or postgres://user@host:port/db"

// catalogSource is the database/sql driver, data source name and dialect
// of the catalog.
func (c Config) catalogSource() (driver, dsn string, err error) {
	bad := func(why string) error {
		return fmt.Errorf("--%s / %s %q: %s; want %s", CatalogFlag, CatalogEnv, redact(c.Catalog), why, CatalogForms)
	}
	u, err := url.Parse(c.Catalog)
	if err != nil {
		return "", "", bad("not a URL")
	}
	switch u.Scheme {
	case "sqlite":
		path, why := sqlitePath(u)
		if why != "" {
			return "", "", bad(why)
		}
		// WAL, a busy timeout and transactions that take the write lock
		// when they begin: writers of one machine queue on the catalog's
		// lock rather than fail (a transaction that reads, then writes,
		// cannot wait for the lock: SQLite fails it at once).
		return "sqlite", "file:" + path + "?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_txlock=immediate", nil
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

// SQLiteCatalog is the catalog URL of the SQLite file at path, in the
// form SQLAlchemy (pyiceberg's SQL catalog) reads as the same file.
// An absolute path gets four slashes: three, then the path's own.
func SQLiteCatalog(path string) string { return "sqlite:///" + filepath.ToSlash(path) }

// sqlitePath is the absolute path of a sqlite:// URL's file, read as
// SQLAlchemy reads it — sqlite:////abs/file.db an absolute path,
// sqlite:///file.db one relative to the working directory — so that
// etalake and pyiceberg, given one URL, open one catalog; or why the URL
// is refused. A three-slash URL written for an absolute path, the form
// this build read before (sqlite:///var/lib/etalake/catalog.db), names a
// relative path whose directory is not here: it is refused, saying the
// four-slash form, rather than a new empty catalog made elsewhere.
func sqlitePath(u *url.URL) (string, string) {
	if u.Host != "" {
		return "", "a SQLite catalog is a file path after sqlite:/// (three slashes, then the path: " + u.Host + " would be a host)"
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", "a SQLite catalog is a file path alone, with no ?query or #fragment"
	}
	rest, ok := strings.CutPrefix(u.Path, "/")
	if !ok || rest == "" || rest == "/" {
		return "", "a SQLite catalog names its file"
	}
	if strings.HasPrefix(rest, "/") {
		return filepath.Clean(rest), ""
	}
	abs, err := filepath.Abs(filepath.FromSlash(rest))
	if err != nil {
		return "", "the working directory is unknown: " + err.Error()
	}
	if _, err := os.Stat(abs); err == nil {
		return abs, ""
	}
	if _, err := os.Stat("/" + rest); err == nil {
		return "", fmt.Sprintf("sqlite:///%s is %s, relative to the working directory, which has no such file, while /%s exists: for that one write sqlite:////%s", rest, abs, rest, rest)
	}
	if _, err := os.Stat(filepath.Dir(abs)); err != nil {
		return "", fmt.Sprintf("sqlite:///%s is %s, relative to the working directory, whose folder %s does not exist (an absolute path takes four slashes: sqlite:////%s)", rest, abs, filepath.Dir(abs), rest)
	}
	return abs, ""
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
