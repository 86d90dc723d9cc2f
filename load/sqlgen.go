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
	touchColumn   = "__load_touch"   // a changed row that keeps its First and values (see touches)
	keptColumn    = "__load_kept"    // a changed row of a Dimension whose Kept columns change
	obsColumn     = "__load_obs"     // a batch row's observation, as a Seen value
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

// stored lists every column of the table, in order: those a batch
// carries (Table.ColumnNames) and those the merge computes.
func stored(t *schema.Table) []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
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
	computed := 0
	for _, c := range t.Columns {
		if c.Computed {
			computed++
		}
	}
	if t.Kind != schema.Dimension {
		if computed > 0 {
			return fmt.Errorf("load: %s table %s has computed columns, which only a dimension's merge computes", t.Kind, t.Name)
		}
		return nil
	}
	attrs := attributes(t)
	if len(attrs) == 0 {
		return fmt.Errorf("load: dimension table %s has no attribute: it is a Latest table", t.Name)
	}
	for _, a := range attrs {
		if c, ok := t.Column(a.kept); !ok || !c.Computed || c.Type != schema.Seen {
			return fmt.Errorf("load: dimension table %s has no computed Kept column %s for its attribute %s", t.Name, a.kept, a.name)
		}
	}
	if computed != len(attrs) {
		return fmt.Errorf("load: dimension table %s has computed columns other than the Kept columns of its attributes", t.Name)
	}
	return nil
}

// attribute is a value the observations of a Dimension table give or
// leave out, and its Kept column: null when the row's latest observation
// (Last, response_id) gave the value, else the earlier observation the
// value is kept from, as a Seen value. The observation an attribute is
// from is thus coalesce(Kept, the row's latest).
type attribute struct {
	name, kept string
	varchar    bool // an empty string is the value left out
}

// attributes lists the attributes of a Dimension table: its observed
// values (observedValues).
func attributes(t *schema.Table) []attribute {
	var out []attribute
	for _, n := range observedValues(t) {
		c, _ := t.Column(n)
		out = append(out, attribute{name: n, kept: schema.KeptColumn(n), varchar: c.Type == schema.Varchar})
	}
	return out
}

// field is the field of a STRUCT column of the table aliased alias.
func field(alias, column, name string) string {
	return alias + "." + ident(column) + "." + ident(name)
}

// seenValue is the Seen value of the observation at at by response id.
func seenValue(at, id string) string {
	return fmt.Sprintf("{%s: %s, %s: %s}", literal(schema.SeenAt), at, literal(schema.SeenResponse), id)
}

// sourceSQL is the batch as the merge reads it: the registered Arrow view,
// or, when the batch holds a key more than once (dedup), one row per key:
//   - Append: the row with the smallest response_id;
//   - Latest: the values of the newest row (greatest Last, then greatest
//     response_id), the least First, and the partition of the row with the
//     least First (the partition is derived from First);
//   - Dimension: see dimensionSourceSQL.
//
// A Ledger batch never holds a key twice (Load refuses it).
func sourceSQL(t *schema.Table, dedup bool) string {
	if t.Kind == schema.Dimension {
		return dimensionSourceSQL(t, dedup)
	}
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

// dimensionSourceSQL is the batch of a Dimension table as the merge reads
// it: its rows, an empty string read as a value left out (null). When the
// batch holds a key more than once (dedup), one row per key, with the
// Kept columns of the table: each attribute from the latest row that
// gives it, Last and response_id of the latest row, the least First and
// its partition — what merging the rows one by one into the table would
// leave.
func dimensionSourceSQL(t *schema.Table, dedup bool) string {
	return dimensionSource(t, dedup, false)
}

// dimensionSource is dimensionSourceSQL; with carried, the batch's rows
// are rows of a warehouse's table (a pull of the lake's, see pull.go),
// each carrying its Kept columns: the observation of an attribute a row
// gives is then its Kept column, else the row's latest, and a key's rows
// are merged as the observations they stand for would be. Only a
// deduplicating source reads carried rows.
func dimensionSource(t *schema.Table, dedup, carried bool) string {
	attrs := attributes(t)
	byName := map[string]attribute{}
	for _, a := range attrs {
		byName[a.name] = a
	}
	read := make([]string, 0, len(t.Columns))
	names := t.ColumnNames()
	if carried {
		names = stored(t)
	}
	for _, c := range names {
		if byName[c].varchar {
			read = append(read, fmt.Sprintf("nullif(%s, '') AS %[1]s", ident(c)))
		} else {
			read = append(read, ident(c))
		}
	}
	rows := fmt.Sprintf("SELECT %s FROM %s", strings.Join(read, ", "), ident(inView))
	if !dedup {
		return "(" + rows + ")"
	}
	// Each row is one observation, obsColumn; per attribute, the row's
	// observation where it gives the attribute (in the attribute's Kept
	// column, for now).
	obs := make([]string, 0, len(attrs)+1)
	obs = append(obs, seenValue(ident(t.Last), ident(idColumn))+" AS "+ident(obsColumn))
	for _, a := range attrs {
		from := ident(obsColumn)
		if carried {
			from = fmt.Sprintf("coalesce(%s, %s)", ident(a.kept), from)
		}
		obs = append(obs, fmt.Sprintf("CASE WHEN %s IS NOT NULL THEN %s END AS %s", ident(a.name), from, ident(a.kept)))
	}
	cols := stored(t)
	parts := make([]string, len(cols))
	for i, c := range cols {
		switch {
		case t.IsKey(c):
			parts[i] = ident(c)
		case c == t.First:
			parts[i] = fmt.Sprintf("min(%s)", ident(c))
		case c == t.Partition:
			parts[i] = fmt.Sprintf("arg_min(%s, %s)", ident(c), ident(t.First))
		case c == t.Last:
			parts[i] = fmt.Sprintf("max(%s)", ident(c))
		case c == idColumn:
			parts[i] = fmt.Sprintf("arg_max(%s, %s)", ident(c), ident(obsColumn))
		default:
			// An attribute is the value of the latest row that gives it
			// (rows that leave it out have no observation of it); its Kept
			// column is that row's observation unless it is the latest.
			if a, ok := byName[c]; ok {
				parts[i] = fmt.Sprintf("arg_max(%s, %s)", ident(c), ident(a.kept))
			} else {
				parts[i] = fmt.Sprintf("CASE WHEN max(%[1]s) = max(%[2]s) THEN NULL ELSE max(%[1]s) END", ident(c), ident(obsColumn))
			}
		}
		parts[i] += " AS " + ident(c)
	}
	add := "*, " + strings.Join(obs[1:], ", ")
	if carried { // the rows have the Kept columns already
		add = "* REPLACE (" + strings.Join(obs[1:], ", ") + ")"
	}
	return fmt.Sprintf("(SELECT %s FROM (SELECT %s FROM (SELECT *, %s FROM (%s))) GROUP BY %s)",
		strings.Join(parts, ", "), add, obs[0], rows, list("", t.Key))
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
//   - Latest: when s is newer (greater Last, then greater response_id),
//     s's values replace t's; First becomes the least of the two and the
//     partition that of the least First; when s is not newer but has an
//     older First, only First and the partition change;
//   - Dimension: as Latest for First, the partition, Last and
//     response_id; each attribute s gives replaces t's when t has none or
//     s's observation of it is later than t's (a later Last, then a
//     greater response_id) — an older observation may still give an
//     attribute the newer ones left out — and its Kept column says which
//     observation it is from, unless that is the row's latest;
//   - Ledger: s replaces t when any value differs.
//
// For Append, Latest and Dimension, each column ends as the greatest, in
// an order of the key's observations, of the values they give: merging is
// commutative, associative and idempotent, so the table does not depend on
// the order or the grouping of the batches.
//
// For an Append table, parts are the batch's partitions: the table side is
// restricted to them, which is exact because an Append table's partition
// is a function of its key, and keeps a load proportional to the batch and
// the partitions it touches.
func changedSQL(t *schema.Table, dedup bool, parts []day) string {
	if t.Kind == schema.Dimension {
		return dimensionChangedSQL(t, dedup)
	}
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
	case schema.Latest:
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
		same := "true"
		if rest := observedValues(t); len(rest) > 0 {
			same = fmt.Sprintf("row(%s) IS NOT DISTINCT FROM row(%s)", list("s", rest), list("t", rest))
		}
		values = append(values, fmt.Sprintf("coalesce(t.%s AND NOT %s AND %s, false) AS %s",
			ident(hitColumn), older, same, ident(touchColumn)))
	case schema.Ledger:
		rest := nonKey(t)
		when = fmt.Sprintf("%s OR row(%s) IS DISTINCT FROM row(%s)", miss, list("t", rest), list("s", rest))
	}
	for i, c := range cols {
		values[i] += " AS " + ident(c)
	}
	return fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT %s, t.%s AS %s\nFROM %s AS s LEFT JOIN (SELECT *, true AS %s FROM %s) AS t ON %s\nWHERE %s",
		ident(changedTable), strings.Join(values, ", "), ident(t.Partition), ident(oldPartColumn),
		sourceSQL(t, dedup), ident(hitColumn), ident(t.Name), on, when)
}

// dimensionChangedSQL is changedSQL for a Dimension table. The join of
// the source s with the table t names each side's columns s.<column> and
// t.<column>, and computes once the conditions the values depend on:
// whether s becomes the row's latest observation (latest: t has no row,
// or s is newer), has an older First (older), and gives each attribute
// (given: s has it and t has not, or s's observation of it is later than
// t's). An attribute's Kept column after the merge is then:
//   - given, s becoming the latest: s's Kept (null: from s's latest row);
//   - given, t staying the latest: s's observation of it;
//   - not given, s becoming the latest: t's observation of it, if t has
//     it (t's Kept, or t's latest);
//   - else t's Kept.
//
// Fewer, smaller expressions than writing each condition out where it is
// used: DuckDB holds an intermediate vector for every node of every
// expression a query evaluates, which for the seven attributes of a
// location written out doubled the memory a merge of a few rows needs.
func dimensionChangedSQL(t *schema.Table, dedup bool) string {
	sc := func(c string) string { return ident("s." + c) }
	tc := func(c string) string { return ident("t." + c) }
	given := func(a attribute) string { return ident("__load_given." + a.name) }
	latest, older := ident("__load_latest"), ident("__load_older")
	first, last, id := t.First, t.Last, idColumn
	attrs := attributes(t)

	// The join.
	var join []string
	for _, c := range sourceColumns(t, dedup) {
		join = append(join, "s."+ident(c)+" AS "+sc(c))
	}
	for _, c := range stored(t) {
		join = append(join, "t."+ident(c)+" AS "+tc(c))
	}
	join = append(join,
		fmt.Sprintf("t.%[1]s IS NULL OR s.%[2]s > t.%[2]s OR (s.%[2]s = t.%[2]s AND s.%[3]s > t.%[3]s) AS %[4]s", ident(hitColumn), ident(last), ident(id), latest),
		fmt.Sprintf("t.%[1]s IS NULL OR s.%[2]s < t.%[2]s AS %[3]s", ident(hitColumn), ident(first), older),
		fmt.Sprintf("t.%s AS %[1]s", ident(hitColumn)))
	when := []string{latest, older}
	for _, a := range attrs {
		// The observation each side's attribute is from: a row of the batch
		// is one observation; a deduplicated one, and the table's row, say
		// in their Kept column when it is not their latest.
		sAt, sBy := "s."+ident(last), "s."+ident(id)
		if dedup {
			sAt, sBy = fmt.Sprintf("coalesce(%s, %s)", field("s", a.kept, schema.SeenAt), sAt), fmt.Sprintf("coalesce(%s, %s)", field("s", a.kept, schema.SeenResponse), sBy)
		}
		tAt := fmt.Sprintf("coalesce(%s, t.%s)", field("t", a.kept, schema.SeenAt), ident(last))
		tBy := fmt.Sprintf("coalesce(%s, t.%s)", field("t", a.kept, schema.SeenResponse), ident(id))
		join = append(join, fmt.Sprintf("s.%[1]s IS NOT NULL AND (t.%[1]s IS NULL OR %[2]s > %[3]s OR (%[2]s = %[3]s AND %[4]s > %[5]s)) AS %[6]s",
			ident(a.name), sAt, tAt, sBy, tBy, given(a)))
		when = append(when, given(a))
	}

	// The merged row, in the table's column order, and t's Kept columns.
	byName, byKept := map[string]attribute{}, map[string]attribute{}
	for _, a := range attrs {
		byName[a.name], byKept[a.kept] = a, a
	}
	var values, same, keptChanges, tKept []string
	for _, c := range stored(t) {
		var v string
		a, isAttr := byName[c]
		k, isKept := byKept[c]
		switch {
		case t.IsKey(c):
			v = sc(c)
		case c == first || c == t.Partition:
			v = fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", older, sc(c), tc(c))
		case isAttr:
			v = fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", given(a), sc(c), tc(c))
			same = append(same, fmt.Sprintf("(NOT %s OR %s IS NOT DISTINCT FROM %s)", given(a), sc(c), tc(c)))
		case isKept:
			sKept := "NULL"
			if dedup {
				sKept = sc(c)
			}
			v = fmt.Sprintf("CASE WHEN %[1]s AND %[2]s THEN %[3]s WHEN %[1]s THEN coalesce(%[3]s, %[4]s) WHEN %[2]s AND %[5]s IS NOT NULL THEN coalesce(%[6]s, %[7]s) ELSE %[6]s END",
				given(k), latest, sKept, seenValue(sc(last), sc(id)), tc(k.name), tc(c), seenValue(tc(last), tc(id)))
			keptChanges = append(keptChanges, fmt.Sprintf("%s IS DISTINCT FROM %s", ident(c), tc(c)))
			tKept = append(tKept, tc(c))
		default: // Last and response_id
			v = fmt.Sprintf("CASE WHEN %s THEN %s ELSE %s END", latest, sc(c), tc(c))
		}
		values = append(values, v+" AS "+ident(c))
	}
	merged := fmt.Sprintf("SELECT %s, coalesce(%s AND NOT %s AND %s, false) AS %s, %s AS %s, %s\nFROM (SELECT %s\nFROM %s AS s LEFT JOIN (SELECT *, true AS %s FROM %s) AS t ON %s)\nWHERE %s",
		strings.Join(values, ", "), ident(hitColumn), older, strings.Join(same, " AND "), ident(touchColumn),
		tc(t.Partition), ident(oldPartColumn), strings.Join(tKept, ", "),
		strings.Join(join, ", "), sourceSQL(t, dedup), ident(hitColumn), ident(t.Name), keyJoin(t, "t", "s"),
		strings.Join(when, " OR "))
	return changedTableSQL(attrs, tKept, keptChanges, merged)
}

// changedTableSQL creates changedTable from the merged rows: a touch's
// values are the table's, so it leaves them out (null), which is less to
// write, and it says whether a Kept column changed instead of keeping t's.
func changedTableSQL(attrs []attribute, tKept, keptChanges []string, merged string) string {
	var blank []string
	for _, a := range attrs {
		blank = append(blank, fmt.Sprintf("CASE WHEN %s THEN NULL ELSE %s END AS %[2]s", ident(touchColumn), ident(a.name)))
	}
	return fmt.Sprintf("CREATE TEMP TABLE %s AS SELECT * EXCLUDE (%s) REPLACE (%s), coalesce(%s, false) AS %s FROM (%s)",
		ident(changedTable), strings.Join(tKept, ", "), strings.Join(blank, ", "), strings.Join(keptChanges, " OR "), ident(keptColumn), merged)
}

// sourceColumns lists the columns of sourceSQL(t, dedup): a batch's, and
// of a deduplicated Dimension batch the Kept columns too.
func sourceColumns(t *schema.Table, dedup bool) []string {
	if dedup && t.Kind == schema.Dimension {
		return stored(t)
	}
	return t.ColumnNames()
}

// touches reports whether merges into t tell a touch (the row keeps its
// First and its values: only Last, response_id and, in a Dimension
// table, the Kept columns change) from a change. A touch is an UPDATE of
// those columns in place; a change is a DELETE and an INSERT of the whole
// row. Re-observing unchanged rows is what most of a latest-state table's
// merges are (every tracking call returns every event of the shipment
// again), and a dimension's too (every response names its places again,
// some with fewer details): updating those columns leaves the other
// columns' data in place, where a delete and insert writes the whole row
// again and leaves the deleted one for a checkpoint to vacuum.
func touches(t *schema.Table) bool {
	return t.Kind == schema.Latest || t.Kind == schema.Dimension
}

// touched lists the columns a touch updates: Last and response_id, then
// the computed ones.
func touched(t *schema.Table) []string {
	out := []string{t.Last, idColumn}
	for _, c := range t.Columns {
		if c.Computed {
			out = append(out, c.Name)
		}
	}
	return out
}

// observedValues lists the columns of a Latest or Dimension table whose
// values an observation carries: all but the key, First, Last, the
// partition, response_id and the computed columns.
func observedValues(t *schema.Table) []string {
	var out []string
	for _, c := range t.Columns {
		if !t.IsKey(c.Name) && !c.Computed && c.Name != t.First && c.Name != t.Last && c.Name != t.Partition && c.Name != idColumn {
			out = append(out, c.Name)
		}
	}
	return out
}

// touchSQL updates, for the touches in changedTable, the columns a touch
// changes: Last and response_id, and with kept those of a Dimension's
// touches that change its Kept columns too (those that do not, most of
// them, leave the Kept columns where they are).
func touchSQL(t *schema.Table, kept bool) string {
	cols, where := touched(t), "n."+ident(touchColumn)
	if t.Kind == schema.Dimension {
		where += fmt.Sprintf(" AND n.%s = %t", ident(keptColumn), kept)
		if !kept {
			cols = cols[:2]
		}
	}
	set := make([]string, len(cols))
	for i, c := range cols {
		set[i] = fmt.Sprintf("%s = n.%[1]s", ident(c))
	}
	return fmt.Sprintf("UPDATE %s AS t SET %s FROM %s AS n WHERE %s AND %s",
		ident(t.Name), strings.Join(set, ", "), ident(changedTable), keyJoin(t, "t", "n"), where)
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
// row (a delete and an insert), the touches, and those of the touches
// that change Kept columns (touchSQL).
func countsSQL(t *schema.Table) string {
	touch, kept := "0::BIGINT", "0::BIGINT"
	if touches(t) {
		touch = "count(*) FILTER (WHERE " + ident(touchColumn) + ")"
	}
	if t.Kind == schema.Dimension {
		kept = "count(*) FILTER (WHERE " + ident(touchColumn) + " AND " + ident(keptColumn) + ")"
	}
	return fmt.Sprintf("SELECT count(*), count(%s) FILTER (WHERE %s), %s, %s FROM %s",
		ident(oldPartColumn), notTouched(t, ident(changedTable)), touch, kept, ident(changedTable))
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
	cols := list("", stored(t))
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
// changed whole (keyed NULL): those not recorded so yet. from is a query
// of one DATE column. A table keyed by shipment changed whole makes the
// next refresh of the analytic tables whole (analytics_pending).
func pendingSQL(t *schema.Table, from string) string {
	q := daysPendingSQL(t, from)
	if shipmentKeyed(t) {
		q += ";\n" + analyticsWholeSQL
	}
	return q
}

// daysPendingSQL is pendingSQL without the analytic tables.
func daysPendingSQL(t *schema.Table, from string) string {
	return fmt.Sprintf(`INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT %s, x.d, NULL FROM (%s) AS x(d)
WHERE x.d NOT IN (SELECT partition_date FROM parquet_pending WHERE table_name = %s AND keyed IS NULL)`,
		literal(t.Name), from, literal(t.Name))
}

// analyticsWholeSQL records that the analytic tables are to be refreshed
// whole.
const analyticsWholeSQL = "INSERT INTO analytics_pending VALUES (NULL)"

// shipmentKeyed reports whether t's rows are what was observed of a
// shipment: its key starts with shipment_number (shipments, its ETA
// observations, containers and events; not the tracked set, a ledger
// whose due dates a nightly run moves for every shipment and which no
// analytic table of rows per shipment reads).
func shipmentKeyed(t *schema.Table) bool {
	return t.Kind != schema.Ledger && len(t.Key) > 0 && t.Key[0] == "shipment_number"
}

// mergePendingSQL records what a merge changed (changedTable): the
// partitions for the mirror, with the keys of a Keyed table for the lake
// (keyedPendingSQL), and the shipments of a table keyed by shipment for
// the analytic tables.
func mergePendingSQL(t *schema.Table) string {
	q := daysPendingSQL(t, changedDaysSQL(t))
	if Keyed(t) {
		q = keyedPendingSQL(t)
	}
	if shipmentKeyed(t) {
		q += fmt.Sprintf(";\nINSERT INTO analytics_pending SELECT DISTINCT shipment_number FROM %s", ident(changedTable))
	}
	return q
}

// Keyed reports whether the lake replaces the rows of t a merge changed
// by their key (LakeKey) rather than their partitions: every table but an
// Append one, whose changes are new partitions' rows.
func Keyed(t *schema.Table) bool { return t.Kind != schema.Append && Mirrored(t) }

// LakeKey is the column by which the lake replaces the changed rows of a
// keyed table: the first of its key, so that the rows of one shipment
// (its containers, its events) are replaced together.
func LakeKey(t *schema.Table) string { return t.Key[0] }

// keyedPendingSQL records what a merge of a keyed table changed: the
// partitions of changedTable as pending, keyed, and the LakeKey of its
// rows in pending_keys.
func keyedPendingSQL(t *schema.Table) string {
	return fmt.Sprintf(`INSERT INTO parquet_pending (table_name, partition_date, keyed)
SELECT DISTINCT %[1]s, x.d, true FROM (%[2]s) AS x(d)
WHERE x.d NOT IN (SELECT partition_date FROM parquet_pending WHERE table_name = %[1]s AND keyed);
INSERT INTO pending_keys (table_name, key)
SELECT DISTINCT %[1]s, CAST(%[3]s AS VARCHAR) FROM %[4]s
WHERE CAST(%[3]s AS VARCHAR) NOT IN (SELECT key FROM pending_keys WHERE table_name = %[1]s)`,
		literal(t.Name), changedDaysSQL(t), ident(LakeKey(t)), ident(changedTable))
}

// exportSQL writes one partition of the table to a Parquet file, without
// the partition column (the directory name carries it), sorted by key.
func exportSQL(t *schema.Table, d day, path string) string {
	return fmt.Sprintf("COPY (SELECT %s FROM %s WHERE %s = %s ORDER BY %s) TO %s (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE %d)",
		strings.Join(exportColumns(t, false), ", "), ident(t.Name), ident(t.Partition), d.sqlLiteral(), list("", t.Key), literal(path), rowGroupSize)
}

// exportPartitionsSQL writes the partitions days of the table under dir,
// a directory per partition (<partition>=YYYY-MM-DD/data_0.parquet), the
// files as exportSQL's.
func exportPartitionsSQL(t *schema.Table, days []day, dir string) string {
	return fmt.Sprintf("COPY (SELECT %s FROM %s WHERE %s IN (%s)) TO %s (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE %d, PARTITION_BY (%s), FILENAME_PATTERN 'data_{i}')",
		strings.Join(exportColumns(t, true), ", "), ident(t.Name), ident(t.Partition), partList(days), literal(dir), rowGroupSize, ident(t.Partition))
}

// exportColumns are the columns a mirror file holds, the partition column
// last when withPartition. A JSON column is written as a string (Parquet
// logical type STRING): DuckDB writes its JSON type as the JSON logical
// type, which not every reader takes (nodejs-polars reads it as Binary
// and refuses it); the readers' views cast it back (tableViewSQL).
func exportColumns(t *schema.Table, withPartition bool) []string {
	var cols []string
	for _, c := range t.Columns {
		switch {
		case c.Name == t.Partition:
		case c.Type == schema.JSON:
			cols = append(cols, fmt.Sprintf("CAST(%s AS VARCHAR) AS %s", ident(c.Name), ident(c.Name)))
		default:
			cols = append(cols, ident(c.Name))
		}
	}
	if withPartition {
		cols = append(cols, ident(t.Partition))
	}
	return cols
}

// rowGroupSize is the Parquet row group of the mirror: DuckDB's own row
// group, so a reader's parallelism matches a table scan's.
const rowGroupSize = 122880
