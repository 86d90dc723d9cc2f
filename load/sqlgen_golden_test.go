package load

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/load/sqlgen")

const sqlgenDir = "../testdata/load/sqlgen"

// The SQL the loader emits for each table, as a golden file per table
// (testdata/load/sqlgen/<table>.sql), so that a change to the generator
// or to a table's definition shows in review as a diff of the SQL the
// database runs. Each statement is written as emitted, one statement a
// paragraph under a comment naming the step of the merge (merge.go) that
// runs it; go test ./load -run TestSQLGenGolden -update rewrites them.
func TestSQLGenGolden(t *testing.T) {
	want := map[string]bool{}
	for _, tb := range schema.Tables {
		if tb == schema.RawResponses { // written by Land, never merged
			continue
		}
		name := tb.Name + ".sql"
		want[name] = true
		got := renderSQLGen(tb)
		path := filepath.Join(sqlgenDir, name)
		if *update {
			if err := os.MkdirAll(sqlgenDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v (go test ./load -run TestSQLGenGolden -update writes it)", path, err)
		}
		if string(b) != got {
			t.Errorf("the SQL emitted for %s is not %s: review the change, then go test ./load -run TestSQLGenGolden -update\n%s",
				tb.Name, path, firstDifference(string(b), got))
		}
	}
	// A golden file of a table that is gone is stale.
	files, _ := filepath.Glob(filepath.Join(sqlgenDir, "*.sql"))
	for _, f := range files {
		if !want[filepath.Base(f)] {
			if *update {
				_ = os.Remove(f)
				continue
			}
			t.Errorf("%s names no table the loader merges", f)
		}
	}
}

// goldenDays are the partitions an Append table's statements name in the
// golden files (a batch's partitions, distinctDays).
var goldenDays = []day{dayOf(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)), dayOf(time.Date(2026, 1, 6, 0, 0, 0, 0, time.UTC))}

// renderSQLGen renders every statement the loader emits for t, in the
// order a merge runs them (session.merge), then the mirror's.
func renderSQLGen(t *schema.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- The SQL the loader emits for %s (kind %s), generated from its\n", t.Name, t.Kind)
	fmt.Fprintf(&b, "-- definition in package schema by load/sqlgen.go. Golden file of\n")
	fmt.Fprintf(&b, "-- TestSQLGenGolden: go test -tags duckdb_arrow ./load -run TestSQLGenGolden -update\n")
	fmt.Fprintf(&b, "-- Laid out for reading: a line per clause and per item of a SELECT or SET\n")
	fmt.Fprintf(&b, "-- list, where the SQL sent has one space; nothing else differs.\n")
	step := func(what, sql string) {
		fmt.Fprintf(&b, "\n-- %s\n%s;\n", what, layout(sql))
	}
	if err := checkMergeable(t); err != nil {
		step("not mergeable", "-- "+err.Error())
		return b.String()
	}
	var parts []day
	if t.Kind == schema.Append {
		parts = goldenDays
	}
	step("dupSQL: the keys a batch holds more than once (skipped when its keys are known distinct)", dupSQL(t))
	step("changedSQL: the rows a merge inserts or changes, a batch of distinct keys", changedSQL(t, false, parts))
	if t.Kind != schema.Ledger { // a Ledger batch never holds a key twice
		step("changedSQL: the same, a batch that holds a key more than once (deduplicated first)", changedSQL(t, true, parts))
	}
	step("countsSQL: all changed rows, those replaced, the touches, the touches that change Kept columns", countsSQL(t))
	if touches(t) {
		step("touchSQL: the touches, in place", touchSQL(t, false))
	}
	if t.Kind == schema.Dimension {
		step("touchSQL: the touches that change Kept columns too", touchSQL(t, true))
	}
	step("deleteSQL: the rows the changed rows replace", deleteSQL(t, parts))
	step("insertSQL: the changed rows that are not touches", insertSQL(t))
	step("mergePendingSQL: the partitions of the Parquet mirror that change, the keys of the rows changed, the shipments for the analytic tables", mergePendingSQL(t))
	if Mirrored(t) {
		step("exportSQL: one partition of the mirror (here 2026-01-05 to part.parquet)", exportSQL(t, goldenDays[0], "part.parquet"))
	}
	return b.String()
}

// clauses are the keywords layout starts a line with, outside the
// parentheses of an expression (a function's arguments, a window, a
// FILTER).
var clauses = []string{"FROM ", "WHERE ", "GROUP BY ", "QUALIFY ", "WINDOW ", "LEFT JOIN ", "UNION ", "SET ", "ORDER BY ", "SELECT "}

// layout lays a statement out for reading: each clause (clauses) and
// each item of a SELECT or SET list on a line of its own, indented by the
// subqueries it is in. It only replaces the one space before a clause, or
// after a comma, by a line break and the indentation, and never inside a
// quoted name or a literal: the words are those sent, in their order.
func layout(sql string) string {
	var out strings.Builder
	// subquery[i] tells whether the i-th open parenthesis opened a
	// subquery (its text starts with SELECT).
	var subquery []bool
	inList := func() bool { return len(subquery) == 0 || subquery[len(subquery)-1] }
	indent := func() string {
		n := 0
		for _, s := range subquery {
			if s {
				n++
			}
		}
		return "\n" + strings.Repeat("  ", n)
	}
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			subquery = append(subquery, strings.HasPrefix(sql[i+1:], "SELECT "))
		case c == ')' && len(subquery) > 0:
			subquery = subquery[:len(subquery)-1]
		case c == ',' && inList() && strings.HasPrefix(sql[i+1:], " "):
			out.WriteString("," + indent() + "  ")
			i++ // the space
			continue
		case c == ' ' && inList() && i > 0 && sql[i-1] != '(':
			for _, k := range clauses {
				if strings.HasPrefix(sql[i+1:], k) {
					c = 0
					break
				}
			}
			if c == 0 {
				out.WriteString(indent())
				continue
			}
		}
		out.WriteByte(c)
	}
	return out.String()
}

// firstDifference shows where two texts first differ, a line of each.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n golden: %s\n now:    %s", i+1, a, b)
		}
	}
	return ""
}
