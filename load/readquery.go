package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/duckdb/duckdb-go/v2"
)

// ErrQueryRefused: a reader that does not allow files refused a query
// before running it (CheckQuery).
var ErrQueryRefused = errors.New("query refused")

// readKinds are the statements a reader without AllowFiles runs: SELECT
// (DESCRIBE, SHOW, SUMMARIZE, FROM … and VALUES are SELECTs to DuckDB),
// PRAGMA and CALL; and EXPLAIN [ANALYZE] of a SELECT.
var readKinds = map[duckdb.StmtType]bool{
	duckdb.STATEMENT_TYPE_SELECT: true,
	duckdb.STATEMENT_TYPE_PRAGMA: true,
	duckdb.STATEMENT_TYPE_CALL:   true,
}

// readWords are the words a statement of readKinds begins with. A query
// is prepared only when it begins with one of them: DuckDB binds a
// statement when it prepares it, and binding an EXPORT DATABASE already
// creates its directory.
var readWords = map[string]bool{
	"SELECT": true, "WITH": true, "FROM": true, "VALUES": true, "TABLE": true, "(": true,
	"DESCRIBE": true, "SHOW": true, "SUMMARIZE": true, "PRAGMA": true, "CALL": true,
}

// CheckQuery returns nil when q is one statement a reader opened without
// AllowFiles may run: a SELECT, PRAGMA, CALL, or EXPLAIN [ANALYZE] of a
// SELECT. Such a reader's DuckDB reads and writes no file but those under
// the Parquet mirror (OpenReader), and these statements only read: a
// COPY … TO or EXPORT DATABASE into the mirror would overwrite it (and
// EXPLAIN ANALYZE runs what it explains), one elsewhere is refused by
// DuckDB all the same. A refused query is an error matching
// ErrQueryRefused, naming what was refused (more than one statement
// matches ErrStatements too); SQL that does not parse is DuckDB's parser
// error, whatever word it begins with. q is parsed, then prepared, never
// run.
func CheckQuery(ctx context.Context, db *sql.DB, q string) error {
	body, word := firstWord(q)
	if word != "" { // no statement at all is said below
		if err := OneStatement(q); errors.Is(err, ErrStatements) {
			return fmt.Errorf("%w: %w", ErrQueryRefused, err)
		} else if err != nil {
			return err // what does not parse is no kind of statement
		}
	}
	explain := word == "EXPLAIN"
	if explain {
		body = strings.TrimSpace(body[len(word):])
		if body, word = firstWord(body); word == "ANALYZE" || word == "ANALYSE" {
			body, word = firstWord(body[len(word):])
		}
	}
	if !readWords[word] {
		what := "a " + word + " statement"
		if word == "" {
			what = "no statement"
		}
		if explain {
			what = "EXPLAIN of " + what + " (EXPLAIN ANALYZE runs what it explains)"
		}
		return fmt.Errorf("%w: %s; a reader runs SELECT (with DESCRIBE, SHOW, SUMMARIZE), PRAGMA, CALL or EXPLAIN SELECT", ErrQueryRefused, what)
	}
	kind, err := statementType(ctx, db, q)
	if err != nil {
		return err
	}
	if explain {
		if kind != duckdb.STATEMENT_TYPE_EXPLAIN {
			return fmt.Errorf("%w: not one EXPLAIN statement", ErrQueryRefused)
		}
		if kind, err = statementType(ctx, db, body); err != nil {
			return err
		}
		if kind != duckdb.STATEMENT_TYPE_SELECT {
			return fmt.Errorf("%w: EXPLAIN of a %s statement (EXPLAIN ANALYZE runs what it explains): only a SELECT is explained", ErrQueryRefused, kindName(kind))
		}
		return nil
	}
	if !readKinds[kind] {
		return fmt.Errorf("%w: a %s statement; a reader runs SELECT (with DESCRIBE, SHOW, SUMMARIZE), PRAGMA, CALL or EXPLAIN SELECT", ErrQueryRefused, kindName(kind))
	}
	return nil
}

// firstWord skips the white space and comments q begins with and returns
// the rest and its first word, upper case ("(" when it opens with one).
func firstWord(q string) (rest, word string) {
	for {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		switch {
		case strings.HasPrefix(q, "--"):
			_, after, ok := strings.Cut(q, "\n")
			if !ok {
				return "", ""
			}
			q = after
			continue
		case strings.HasPrefix(q, "/*"):
			_, after, ok := strings.Cut(q[2:], "*/")
			if !ok {
				return "", ""
			}
			q = after
			continue
		case strings.HasPrefix(q, "("):
			return q, "("
		}
		end := strings.IndexFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && r != '_' })
		if end < 0 {
			end = len(q)
		}
		return q, strings.ToUpper(q[:end])
	}
}

// statementType prepares q, one statement, and returns its type.
// duckdb-go runs every statement but the last of a query it prepares
// with a context, so q is prepared without one, which refuses more than
// one statement rather than running any.
func statementType(ctx context.Context, db *sql.DB, q string) (duckdb.StmtType, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return duckdb.STATEMENT_TYPE_INVALID, err
	}
	defer conn.Close()
	kind := duckdb.STATEMENT_TYPE_INVALID
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("load: not a DuckDB connection: %T", dc)
		}
		st, err := c.Prepare(q)
		var de *duckdb.Error
		if errors.As(err, &de) && de.Type == duckdb.ErrorTypePermission {
			return fmt.Errorf("%w: %w", ErrQueryRefused, err) // a file outside the mirror
		}
		if errors.As(err, &de) {
			return err // the SQL itself: DuckDB says what is wrong
		}
		if err != nil { // the driver's own words ("try using PrepareContext") are not ours to pass on
			return fmt.Errorf("%w: %w", ErrQueryRefused, ErrStatements)
		}
		s, ok := st.(*duckdb.Stmt)
		if !ok {
			return errors.Join(fmt.Errorf("load: not a DuckDB statement: %T", st), st.Close())
		}
		kind, err = s.StatementType()
		return errors.Join(err, s.Close())
	})
	return kind, err
}

// kindName names a statement type as SQL does.
func kindName(t duckdb.StmtType) string {
	names := map[duckdb.StmtType]string{
		duckdb.STATEMENT_TYPE_INSERT: "INSERT", duckdb.STATEMENT_TYPE_UPDATE: "UPDATE", duckdb.STATEMENT_TYPE_DELETE: "DELETE",
		duckdb.STATEMENT_TYPE_PREPARE: "PREPARE", duckdb.STATEMENT_TYPE_CREATE: "CREATE", duckdb.STATEMENT_TYPE_EXECUTE: "EXECUTE",
		duckdb.STATEMENT_TYPE_ALTER: "ALTER", duckdb.STATEMENT_TYPE_TRANSACTION: "transaction", duckdb.STATEMENT_TYPE_COPY: "COPY (it writes or reads files)",
		duckdb.STATEMENT_TYPE_ANALYZE: "ANALYZE", duckdb.STATEMENT_TYPE_VARIABLE_SET: "SET VARIABLE", duckdb.STATEMENT_TYPE_CREATE_FUNC: "CREATE FUNCTION",
		duckdb.STATEMENT_TYPE_DROP: "DROP", duckdb.STATEMENT_TYPE_EXPORT: "EXPORT (it writes files)", duckdb.STATEMENT_TYPE_VACUUM: "VACUUM",
		duckdb.STATEMENT_TYPE_SET: "SET", duckdb.STATEMENT_TYPE_LOAD: "LOAD or INSTALL", duckdb.STATEMENT_TYPE_ATTACH: "ATTACH",
		duckdb.STATEMENT_TYPE_DETACH: "DETACH", duckdb.STATEMENT_TYPE_EXPLAIN: "EXPLAIN", duckdb.STATEMENT_TYPE_SELECT: "SELECT",
	}
	if n, ok := names[t]; ok {
		return n
	}
	return fmt.Sprintf("type %d", t)
}
