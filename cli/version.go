package cli

import (
	"database/sql"
	"fmt"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// printVersion prints etalake's version — the build's -X main.version, else
// the module version and VCS revision recorded in the binary — and the
// DuckDB library it is built with, which decides what warehouse files it
// reads and writes.
func printVersion(c *cli.Context) {
	fmt.Fprintf(c.App.Writer, "etalake %s\n", buildVersion())
	fmt.Fprintf(c.App.Writer, "duckdb  %s\n", duckdbVersion())
}

// buildVersion is releaseVersion and the Go that built etalake.
func buildVersion() string {
	v := releaseVersion()
	if info, ok := debug.ReadBuildInfo(); ok {
		v += ", " + info.GoVersion
	}
	return v
}

// releaseVersion is etalake's version: the build's -X main.version, else
// the module version, with the VCS revision when the binary records one
// (", modified" when its tree was): what the report page says made it.
func releaseVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	v := version
	if v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (" + rev + modified + ")"
	}
	return v
}

// duckdbVersion asks an in-memory DuckDB its version and source id.
func duckdbVersion() string {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return "unknown: " + err.Error()
	}
	defer db.Close()
	var v, id string
	if err := db.QueryRow("SELECT library_version, source_id FROM pragma_version()").Scan(&v, &id); err != nil {
		return "unknown: " + err.Error()
	}
	mod := ""
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "github.com/duckdb/duckdb-go/v2" {
				mod = ", duckdb-go " + d.Version
			}
		}
	}
	return v + " (" + id + mod + ")"
}
