package load

import (
	"errors"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// ErrStatements: a query holds more than one statement, where one is
// taken (etalake sql runs one per call).
var ErrStatements = errors.New("one statement per call")

// OneStatement parses q, and only parses it: nothing is bound, so
// nothing a statement would do on binding (EXPORT DATABASE creates its
// directory) is done. SQL that does not parse is DuckDB's parser error
// (a *duckdb.Error), whatever word it begins with; more than one
// statement is an error matching ErrStatements, saying how many. The
// parse runs in a private in-memory DuckDB: duckdb-go parses only on a
// connection of its own, and parsing needs no catalog.
func OneStatement(q string) error {
	n, err := parseStatements(q)
	if err != nil {
		return err
	}
	if n > 1 {
		return fmt.Errorf("%d statements in the query: %w (run them one at a time)", n, ErrStatements)
	}
	return nil
}

// parseStatements parses q and returns how many statements it holds.
func parseStatements(q string) (int, error) {
	var db mapping.Database
	if mapping.Open(":memory:", &db) == mapping.StateError {
		return 0, errors.New("load: opening an in-memory DuckDB to parse a query")
	}
	defer mapping.Close(&db)
	var conn mapping.Connection
	if mapping.Connect(db, &conn) == mapping.StateError {
		return 0, errors.New("load: connecting to an in-memory DuckDB to parse a query")
	}
	defer mapping.Disconnect(&conn)
	var stmts mapping.ExtractedStatements
	n := mapping.ExtractStatements(conn, q, &stmts)
	defer mapping.DestroyExtracted(&stmts)
	if n == 0 {
		if msg := mapping.ExtractStatementsError(stmts); msg != "" {
			return 0, &duckdb.Error{Type: duckdb.ErrorTypeParser, Msg: msg}
		}
	}
	return int(n), nil
}
