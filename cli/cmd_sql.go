package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/etalake/etalake/load"
)

// flagAllowFiles lets etalake sql read and write files.
const flagAllowFiles = "allow-files"

func sqlCommand() *cli.Command {
	return &cli.Command{
		Name:      "sql",
		Usage:     "run a read-only SQL query on the warehouse",
		ArgsUsage: `"QUERY"`,
		Description: "Runs one query on <warehouse>/etalake.duckdb opened read-only and prints the result.\n" +
			"duckdb_tables() and duckdb_columns() show the contract, documented; the Parquet mirror reads as\n" +
			"read_parquet('warehouse/parquet/shipments/**/*.parquet').\n" +
			"It reads what the last job published: while a job runs, the state before it (never half a job).\n\n" +
			"The query reads the database and the Parquet mirror under the warehouse directory, and writes no\n" +
			"file: one statement per call, a SELECT (DESCRIBE, SHOW, SUMMARIZE), PRAGMA, CALL or EXPLAIN SELECT; COPY … TO,\n" +
			"EXPORT DATABASE, ATTACH, INSTALL and any SET are refused (exit 2), as is reading any other file.\n" +
			"--allow-files lifts that for the one command: the query may then read and write any file you may.\n\n" +
			"A notebook holding the warehouse open read-write (duckdb.connect(path) without read_only=True)\n" +
			"keeps every other process out of the file: etalake then reads a private copy of it, and says so.",
		Flags: append(warehouseFlags(),
			&cli.StringFlag{Category: catOutput, Name: "format", Value: "table", Usage: "table, csv or json"},
			&cli.BoolFlag{Category: catOutput, Name: flagAllowFiles, Usage: "let the query read and write any file you may (COPY … TO, EXPORT DATABASE, read_csv of any path, ATTACH); without it, it reads the warehouse and its Parquet mirror and writes nothing. Deliberately no ETALAKE_* variable: it is asked for one command at a time"},
		),
		OnUsageError: usageError,
		Action:       runSQL,
	}
}

// runSQL runs the one query on the published warehouse, read-only, and
// prints its result; a query the guard or the database refuses is the
// user's to fix (exit 2).
func runSQL(c *cli.Context) error {
	if err := flagsFirst(c); err != nil {
		return err
	}
	if c.NArg() != 1 || strings.TrimSpace(c.Args().First()) == "" {
		return configError("sql wants exactly one argument, the query (quote it): etalake sql \"SELECT …\"")
	}
	format := c.String("format")
	if !slices.Contains(queryFormats, format) {
		return configError("--format %q: want table, csv or json", format)
	}
	// One statement that parses, files allowed or not: a syntax error is
	// DuckDB's, not the refusal of a statement kind, and a second
	// statement is refused rather than run on its own or left out.
	if err := load.OneStatement(c.Args().First()); errors.Is(err, load.ErrStatements) {
		return usageErr{fmt.Errorf("sql: %w", err)}
	} else if err != nil {
		return usageErr{fmt.Errorf("%w: %w", errQuery, err)}
	}
	db, err := openReader(c, c.Bool(flagAllowFiles))
	if err != nil {
		return err
	}
	defer db.Close()
	if !c.Bool(flagAllowFiles) {
		err := load.CheckQuery(c.Context, db, c.Args().First())
		if errors.Is(err, load.ErrQueryRefused) {
			return usageErr{fmt.Errorf("%w (etalake sql reads the warehouse and its Parquet mirror, and writes no file; --%s lets one query read and write any file)", err, flagAllowFiles)}
		}
		if err != nil {
			return usageErr{fmt.Errorf("%w: %w", errQuery, err)}
		}
	}
	err = query(c.Context, db, c.Args().First(), format, c.App.Writer)
	if errors.Is(err, errQuery) {
		return usageErr{err}
	}
	return err
}
