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
	inView        = "__load_in"      // the batch: an Arrow record registered for one scan, or LoadFrom's table
	changedTable  = "__load_changed" // the rows a merge inserts or changes
	hitColumn     = "__load_hit"     // set on the table's side of the merge's join
	oldPartColumn = "__load_old"     // the partition a changed row had, null for a new key
	touchColumn   = "__load_touch"   // a changed row whose only change is Last and response_id
	idsTable      = "__load_ids"     // response ids of DeleteByResponse
	idColumn      = "response_id"    // the column every derived row is traced by
)

// The quoting of schema, by short names.
var ident, literal = schema.Ident, schema.Literal

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

// nonKey lists the columns outside the key.
func nonKey(t *schema.Table) []string {
	var out []string
	for _, c := range t.Columns {
		if !t.IsKey(c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
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

// changedSQL creates the temporary table changedTable: every row the
// merge of source into the table inserts or changes, with its final
// values, and oldPart, the partition the table held the key's row in (null
// for a key new to the table). By the table's Kind, a source row s meeting
// the table's row t of its key (none: s is inserted):
//   - Append: s replaces t when its response_id is smaller;
//   - Latest, Dimension: when s is newer (greater Last, then greater
//     response_id), s's values replace t's; First becomes the least of the
//     two and the partition that of the least First; when s is not newer
//     but has an older First, only First and the partition change;
//   - Ledger: s replaces t when any value differs.
//
// For an Append table, parts are the batch's partitions: the table side is
// restricted to them, which is exact because an Append table's partition
// is a function of its key, and keeps a load proportional to the batch and
// the partitions it touches.
func changedSQL(t *schema.Table, source string, parts []day) string {
	cols := t.ColumnNames()
	on := keyJoin(t, "t", "s")
	if t.Kind == schema.Append {
		on += " AND t." + ident(t.Partition) + " IN (" + partList(parts) + ")"
	}
	miss := "t." + ident(hitColumn) + " IS NULL"
	values := make([]string, len(cols))
	for i, c := range cols {
		values[i] = "s." + ident(c)
	}
	var when string
	switch t.Kind {
	case schema.Append:
		when = fmt.Sprintf("%s OR s.%s < t.%s", miss, ident(idColumn), ident(idColumn))
	case schema.Latest, schema.Dimension:
		first, last, id := ident(t.First), ident(t.Last), ident(idColumn)
		newer := fmt.Sprintf("(s.%[1]s > t.%[1]s OR (s.%[1]s = t.%[1]s AND s.%[2]s > t.%[2]s))", last, id)
		older := fmt.Sprintf("s.%[1]s < t.%[1]s", first)
		when = fmt.Sprintf("%s OR %s OR %s", miss, newer, older)
		for i, c := range cols {
			switch {
			case t.IsKey(c):
			case c == t.First || c == t.Partition:
				values[i] = fmt.Sprintf("CASE WHEN %s OR %s THEN s.%s ELSE t.%[3]s END", miss, older, ident(c))
			default:
				values[i] = fmt.Sprintf("CASE WHEN %s OR %s THEN s.%s ELSE t.%[3]s END", miss, newer, ident(c))
			}
		}
	case schema.Ledger:
		rest := nonKey(t)
		when = fmt.Sprintf("%s OR row(%s) IS DISTINCT FROM row(%s)", miss, list("t", rest), list("s", rest))
	}
	for i, c := range cols {
		values[i] += " AS " + ident(c)
	}
	if touches(t) {
		same := "true"
		if rest := observedValues(t); len(rest) > 0 {
			same = fmt.Sprintf("row(%s) IS NOT DISTINCT FROM row(%s)", list("s", rest), list("t", rest))
		}
		values = append(values, fmt.Sprintf("coalesce(t.%s AND NOT s.%s < t.%[2]s AND %s, false) AS %s",
			ident(hitColumn), ident(t.First), same, ident(touchColumn)))
	}
	return fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT %s, t.%s AS %s\nFROM %s AS s LEFT JOIN (SELECT *, true AS %s FROM %s) AS t ON %s\nWHERE %s",
		ident(changedTable), strings.Join(values, ", "), ident(t.Partition), ident(oldPartColumn),
		source, ident(hitColumn), ident(t.Name), on, when)
}

// touches reports whether merges into t tell a touch (a newer observation
// of unchanged values: only Last and response_id change) from a change.
// A touch is an UPDATE of those two columns in place; a change is a
// DELETE and an INSERT of the whole row. Re-observing unchanged rows is
// what most of a latest-state table's merges are (every tracking call
// returns every event of the shipment again): updating two columns leaves
// the other columns' data in place, where a delete and insert writes the
// whole row again and leaves the deleted one for a checkpoint to vacuum.
func touches(t *schema.Table) bool {
	return t.Kind == schema.Latest || t.Kind == schema.Dimension
}

// observedValues lists the columns of a Latest or Dimension table whose
// values an observation carries: all but the key, First, Last, the
// partition and response_id.
func observedValues(t *schema.Table) []string {
	var out []string
	for _, c := range nonKey(t) {
		if c != t.First && c != t.Last && c != t.Partition && c != idColumn {
			out = append(out, c)
		}
	}
	return out
}

// touchSQL updates, for the touches in changedTable, the two columns a
// touch changes.
func touchSQL(t *schema.Table) string {
	return fmt.Sprintf("UPDATE %s AS t SET %s = n.%[2]s, %s = n.%[3]s FROM %s AS n WHERE %s AND n.%s",
		ident(t.Name), ident(t.Last), ident(idColumn), ident(changedTable), keyJoin(t, "t", "n"), ident(touchColumn))
}

// notTouched is the condition, on changedTable's row n, of a row to
// delete and insert rather than touch.
func notTouched(t *schema.Table, n string) string {
	if !touches(t) {
		return "true"
	}
	return "NOT " + qualified(n, touchColumn)
}

// countsSQL counts the rows of changedTable: all, those that replace a
// row (a delete and an insert) and the touches.
func countsSQL(t *schema.Table) string {
	touch := "0::BIGINT"
	if touches(t) {
		touch = "count(*) FILTER (WHERE " + ident(touchColumn) + ")"
	}
	return fmt.Sprintf("SELECT count(*), count(%s) FILTER (WHERE %s), %s FROM %s",
		ident(oldPartColumn), notTouched(t, ident(changedTable)), touch, ident(changedTable))
}

// deleteSQL deletes the rows of the table that changedTable replaces.
func deleteSQL(t *schema.Table, parts []day) string {
	where := keyJoin(t, "t", "n") + " AND n." + ident(oldPartColumn) + " IS NOT NULL AND " + notTouched(t, "n")
	if t.Kind == schema.Append {
		where += " AND t." + ident(t.Partition) + " IN (" + partList(parts) + ")"
	}
	return fmt.Sprintf("DELETE FROM %s AS t USING %s AS n WHERE %s", ident(t.Name), ident(changedTable), where)
}

// insertSQL inserts the rows of changedTable into the table.
func insertSQL(t *schema.Table) string {
	cols := list("", t.ColumnNames())
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s AS n WHERE %s", ident(t.Name), cols, cols, ident(changedTable), notTouched(t, "n"))
}

// changedDaysSQL lists the partitions the changed rows are in, and those
// they left.
func changedDaysSQL(t *schema.Table) string {
	return fmt.Sprintf("SELECT %[1]s FROM %[3]s UNION SELECT %[2]s FROM %[3]s WHERE %[2]s IS NOT NULL AND %[2]s <> %[1]s",
		ident(t.Partition), ident(oldPartColumn), ident(changedTable))
}

// partList renders days as a list of DATE literals.
func partList(parts []day) string {
	lits := make([]string, len(parts))
	for i, p := range parts {
		lits[i] = p.sqlLiteral()
	}
	return strings.Join(lits, ", ")
}

// pendingSQL records partitions of the table as pending for the mirror,
// those not recorded yet. from is a query of one DATE column.
func pendingSQL(t *schema.Table, from string) string {
	return fmt.Sprintf(`INSERT INTO parquet_pending (table_name, partition_date)
SELECT DISTINCT %s, x.d FROM (%s) AS x(d)
WHERE x.d NOT IN (SELECT partition_date FROM parquet_pending WHERE table_name = %s)`,
		literal(t.Name), from, literal(t.Name))
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
