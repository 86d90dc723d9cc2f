package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
)

// TestREADMEQueriesRun: every DuckDB query the README and docs/ show —
// their ```sql blocks, the queries of their `etalake sql` commands, the
// notebooks' —
// runs on a warehouse as etalake makes it, so none names a table or a
// column that is not there. (The Trino DDL has its own test; queries of
// the Parquet files need files, and are left out.)
func TestREADMEQueriesRun(t *testing.T) {
	slowtest.Long(t)
	queries := readmeQueries(docsText(t))
	if len(queries) < 4 {
		t.Fatalf("found %d queries in README.md and docs/*.md, want the ones they show (at least 4): %q", len(queries), queries)
	}
	wh := filepath.Join(t.TempDir(), "warehouse")
	if code, _, stderr := run(t, nil, "track", "add", "--warehouse", wh, "MSCU1234566"); code != exitOK {
		t.Fatalf("track add: exit %d: %s", code, stderr)
	}
	for _, q := range queries {
		if code, _, stderr := run(t, nil, "sql", "--warehouse", wh, q); code != exitOK {
			t.Errorf("the docs' query\n  %s\nfails on a warehouse: exit %d: %s", q, code, stderr)
		}
	}
}

var (
	sqlArgRE   = regexp.MustCompile(`etalake sql (?:--\S+ \S+ )*"([^"]+)"`)
	notebookRE = regexp.MustCompile(`(?s)con\.sql\("""(.*?)"""\)`)
)

// readmeQueries returns the DuckDB queries a Markdown text shows.
func readmeQueries(text string) []string {
	var qs []string
	for _, b := range mdBlocks(text) {
		switch b.lang {
		case "sql":
			if strings.Contains(b.text, "Trino") {
				continue
			}
			for _, q := range strings.Split(withoutSQLComments(b.text), ";") {
				if q = strings.TrimSpace(q); q != "" {
					qs = append(qs, q)
				}
			}
		case "sh":
			for _, m := range sqlArgRE.FindAllStringSubmatch(b.text, -1) {
				qs = append(qs, m[1])
			}
		case "python":
			for _, m := range notebookRE.FindAllStringSubmatch(b.text, -1) {
				qs = append(qs, strings.TrimSpace(m[1]))
			}
		}
	}
	return qs
}

// withoutSQLComments drops the comment lines of a block of queries (the
// docs say above each query what it answers, and a comment may hold a
// ';'), so that the block splits into its statements.
func withoutSQLComments(block string) string {
	var kept []string
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}
