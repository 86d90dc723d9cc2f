package load

import (
	"fmt"
	"strings"
	"time"

	"github.com/etalake/etalake/schema"
)

// The SQL of the loader is generated from the table definitions of package
// schema: column lists, keys and the merge rule of the table's Kind. No
// statement is written per table.

// Names of the per-batch objects, temporary to the loading connection.
const (
	inView   = "__load_in"   // an Arrow record, registered for one scan
	idsTable = "__load_ids"  // response ids of DeleteByResponse
	idColumn = "response_id" // the column every derived row is traced by
)

// ident quotes an identifier for DuckDB.
func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// literal renders s as an SQL string literal.
func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// day is a DATE as Arrow and DuckDB hold it: days since 1970-01-01.
type day int32

func dayOf(t time.Time) day {
	y, m, d := t.Date()
	return day(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func (d day) Time() time.Time    { return time.Unix(int64(d)*86400, 0).UTC() }
func (d day) String() string     { return d.Time().Format(time.DateOnly) }
func (d day) sqlLiteral() string { return "DATE '" + d.String() + "'" }

// list renders names, each prefixed by alias (when not empty) and quoted.
func list(alias string, names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = qualified(alias, n)
	}
	return strings.Join(parts, ", ")
}

func qualified(alias, name string) string {
	if alias == "" {
		return ident(name)
	}
	return alias + "." + ident(name)
}

// keyJoin is the condition matching rows of a and b by the table's key.
func keyJoin(t *schema.Table, a, b string) string {
	parts := make([]string, len(t.Key))
	for i, k := range t.Key {
		parts[i] = fmt.Sprintf("%s = %s", qualified(a, k), qualified(b, k))
	}
	return strings.Join(parts, " AND ")
}

// nonKey lists the columns outside the key, less those in except.
func nonKey(t *schema.Table, except ...string) []string {
	var out []string
outer:
	for _, c := range t.Columns {
		if t.IsKey(c.Name) {
			continue
		}
		for _, e := range except {
			if c.Name == e {
				continue outer
			}
		}
		out = append(out, c.Name)
	}
	return out
}

// sets renders "col = s.col, …".
func sets(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("%s = s.%s", ident(c), ident(c))
	}
	return strings.Join(parts, ", ")
}

// checkMergeable reports a table definition the merge cannot honour.
func checkMergeable(t *schema.Table) error {
	if len(t.Key) == 0 {
		return fmt.Errorf("load: table %s has no key", t.Name)
	}
	switch t.Kind {
	case schema.Append, schema.Latest, schema.Dimension:
		if _, ok := t.Column(idColumn); !ok {
			return fmt.Errorf("load: %s table %s has no %s column to break ties with", t.Kind, t.Name, idColumn)
		}
	case schema.Ledger:
	default:
		return fmt.Errorf("load: table %s has unknown kind %v", t.Name, t.Kind)
	}
	return nil
}

// sourceSQL is the batch as the merge reads it: the registered Arrow view,
// or, when the batch holds a key more than once (dedup), one row per key:
//   - Append: the row with the smallest response_id;
//   - Latest, Dimension: the values of the newest row (greatest Last, then
//     greatest response_id), the least First, and the partition of the row
//     with the least First (the partition is derived from First).
//
// A Ledger batch never holds a key twice (Load refuses it).
func sourceSQL(t *schema.Table, dedup bool) string {
	cols := t.ColumnNames()
	if !dedup {
		return fmt.Sprintf("(SELECT %s FROM %s)", list("", cols), ident(inView))
	}
	keys := list("", t.Key)
	if t.Kind == schema.Append {
		return fmt.Sprintf("(SELECT %s FROM %s QUALIFY row_number() OVER (PARTITION BY %s ORDER BY %s) = 1)",
			list("", cols), ident(inView), keys, ident(idColumn))
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		switch c {
		case t.First:
			parts[i] = fmt.Sprintf("min(%s) OVER w AS %s", ident(c), ident(c))
		case t.Partition:
			parts[i] = fmt.Sprintf("arg_min(%s, %s) OVER w AS %s", ident(c), ident(t.First), ident(c))
		default:
			parts[i] = ident(c)
		}
	}
	return fmt.Sprintf("(SELECT %s FROM %s WINDOW w AS (PARTITION BY %s) QUALIFY row_number() OVER (PARTITION BY %s ORDER BY %s DESC, %s DESC) = 1)",
		strings.Join(parts, ", "), ident(inView), keys, keys, ident(t.Last), ident(idColumn))
}

// dupSQL counts the keys the registered batch holds more than once. Most
// batches hold none, and then skip the deduplicating window.
func dupSQL(t *schema.Table) string {
	return fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s GROUP BY %s HAVING count(*) > 1)",
		ident(inView), list("", t.Key))
}

// movedSQL lists the partitions that rows of a Latest, Dimension or Ledger
// table are about to leave: the merge sets a row's partition anew when an
// older First arrives (or, for a Ledger, whenever the row's partition
// column changes), and the old partition's file must lose the row.
func movedSQL(t *schema.Table, source string) string {
	cond := fmt.Sprintf("s.%s <> t.%s", ident(t.Partition), ident(t.Partition))
	if t.Kind != schema.Ledger {
		cond = fmt.Sprintf("s.%s < t.%s AND %s", ident(t.First), ident(t.First), cond)
	}
	return fmt.Sprintf("SELECT DISTINCT t.%s FROM %s AS t JOIN %s AS s ON %s WHERE %s",
		ident(t.Partition), ident(t.Name), source, keyJoin(t, "t", "s"), cond)
}

// mergeSQL merges source into the table and returns the partition of
// every row inserted or changed. For an Append table, parts are the batch's
// partitions: the target side is restricted to them, which is exact because
// an Append table's partition is a function of its key, and keeps a load
// proportional to the batch and the partitions it touches.
func mergeSQL(t *schema.Table, source string, parts []day) string {
	cols := t.ColumnNames()
	on := keyJoin(t, "t", "s")
	var when string
	switch t.Kind {
	case schema.Append:
		lits := make([]string, len(parts))
		for i, p := range parts {
			lits[i] = p.sqlLiteral()
		}
		on += fmt.Sprintf(" AND t.%s IN (%s)", ident(t.Partition), strings.Join(lits, ", "))
		when = fmt.Sprintf("WHEN MATCHED AND s.%s < t.%s THEN UPDATE SET %s",
			ident(idColumn), ident(idColumn), sets(nonKey(t)))
	case schema.Latest, schema.Dimension:
		first, last, part, id := ident(t.First), ident(t.Last), ident(t.Partition), ident(idColumn)
		when = fmt.Sprintf("WHEN MATCHED AND (s.%[2]s > t.%[2]s OR (s.%[2]s = t.%[2]s AND s.%[4]s > t.%[4]s)) THEN UPDATE SET %[5]s, "+
			"%[1]s = least(t.%[1]s, s.%[1]s), %[3]s = CASE WHEN s.%[1]s < t.%[1]s THEN s.%[3]s ELSE t.%[3]s END\n"+
			"WHEN MATCHED AND s.%[1]s < t.%[1]s THEN UPDATE SET %[1]s = s.%[1]s, %[3]s = s.%[3]s",
			first, last, part, id, sets(nonKey(t, t.First, t.Partition)))
	case schema.Ledger:
		rest := nonKey(t)
		when = fmt.Sprintf("WHEN MATCHED AND row(%s) IS DISTINCT FROM row(%s) THEN UPDATE SET %s",
			list("t", rest), list("s", rest), sets(rest))
	}
	return fmt.Sprintf("MERGE INTO %s AS t USING %s AS s ON %s\n%s\nWHEN NOT MATCHED THEN INSERT (%s) VALUES (%s)\nRETURNING %s",
		ident(t.Name), source, on, when, list("", cols), list("s", cols), ident(t.Partition))
}

// pendingSQL records partitions of the table as pending for the mirror,
// those not recorded yet. from is a query of one DATE column.
func pendingSQL(t *schema.Table, from string) string {
	return fmt.Sprintf(`INSERT INTO parquet_pending (table_name, partition_date)
SELECT DISTINCT %s, x.d FROM (%s) AS x(d)
WHERE x.d NOT IN (SELECT partition_date FROM parquet_pending WHERE table_name = %s)`,
		literal(t.Name), from, literal(t.Name))
}

// valuesSQL is a query of the given days.
func valuesSQL(days []day) string {
	rows := make([]string, len(days))
	for i, d := range days {
		rows[i] = "(" + d.sqlLiteral() + ")"
	}
	return "VALUES " + strings.Join(rows, ", ")
}

// exportSQL writes one partition of the table to a Parquet file, without
// the partition column (the directory name carries it), sorted by key.
func exportSQL(t *schema.Table, d day, path string) string {
	var cols []string
	for _, c := range t.Columns {
		if c.Name != t.Partition {
			cols = append(cols, c.Name)
		}
	}
	return fmt.Sprintf("COPY (SELECT %s FROM %s WHERE %s = %s ORDER BY %s) TO %s (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE %d)",
		list("", cols), ident(t.Name), ident(t.Partition), d.sqlLiteral(), list("", t.Key), literal(path), rowGroupSize)
}

// rowGroupSize is the Parquet row group of the mirror: DuckDB's own row
// group, so a reader's parallelism matches a table scan's.
const rowGroupSize = 122880
