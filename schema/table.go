package schema

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind says how rows of a table are merged when the same key arrives again.
// Every kind is idempotent: loading the same rows twice changes nothing, and
// the result does not depend on the order in which rows arrive.
type Kind int

const (
	// Append tables keep one row per key, never a second: history tables
	// whose key includes observed_at. When two rows share a key, the one
	// with the smaller response_id is kept.
	Append Kind = iota + 1
	// Latest tables keep the newest state of an entity: the row with the
	// greatest Last column wins (ties: the greater response_id), and the
	// First column keeps the earliest value ever seen.
	Latest
	// Dimension tables keep reference data (places, facilities, vessels)
	// with first/last seen times, merged attribute by attribute so that
	// nothing known is forgotten: each attribute (a value an observation
	// gives or leaves out) holds the value of the latest observation that
	// gave it (ties: the greater response_id). An observation that leaves
	// an attribute out — null, or an empty string — keeps the one known.
	// First and Last are the earliest and latest observation, and
	// response_id the latest's; the attribute's Kept column (KeptColumn)
	// is null when the latest observation gave it, else the earlier one it
	// is kept from.
	Dimension
	// Ledger tables are written by one writer per key (a run writes its own
	// etl_runs row): the last write wins.
	Ledger
)

func (k Kind) String() string {
	switch k {
	case Append:
		return "append"
	case Latest:
		return "latest"
	case Dimension:
		return "dimension"
	case Ledger:
		return "ledger"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Column is one column of a table.
type Column struct {
	Name     string
	Type     Type
	Nullable bool
	// Since is the migration version that added the column (1 for the
	// original contract). Changing a column any other way needs a written
	// migration.
	Since int
	Doc   string
	// Computed columns are the loader's: its merge computes them from the
	// table and the batch (the Kept columns of a Dimension table), and a
	// batch does not carry them (Table.Arrow has no field for them,
	// ColumnNames does not list them). The Parquet mirror holds them like
	// any column.
	Computed bool
	// Compression, when set, is the DuckDB compression the column is
	// stored with (USING COMPRESSION) from migration CompressionSince on;
	// empty lets DuckDB choose per segment. A migration that sets it
	// rebuilds the table (DuckDB cannot alter a column's compression).
	Compression      string
	CompressionSince int
	// NullableSince, when set, is the migration version from which a
	// column created NOT NULL takes NULL (Nullable is then set): tables
	// created as of an earlier version keep the constraint, and that
	// migration drops it (ALTER COLUMN … DROP NOT NULL).
	NullableSince int
	// DocSince, when set, is the migration that gave the column its Doc,
	// a later one than Since; OldDoc was its comment until then. An
	// applied migration never changes, so a new comment is a new
	// migration's: Derive writes it (AlterColumnsSQL).
	DocSince int
	OldDoc   string
}

// notNullAsOf reports whether the column is NOT NULL in a table created as
// of migration version v.
func (c Column) notNullAsOf(v int) bool {
	return !c.Nullable || c.NullableSince > v
}

// docAsOf is the column's comment as of migration version v.
func (c Column) docAsOf(v int) string { return docAsOf(c.Doc, c.OldDoc, c.DocSince, v) }

// Table is one contract table.
type Table struct {
	Name string
	Kind Kind
	Doc  string
	// DocSince and OldDoc are, as a Column's, the migration that gave
	// the table its Doc and the comment before it.
	DocSince int
	OldDoc   string
	// Columns in order; the key columns are never nullable.
	Columns []Column
	// Key is the contract key (docs/design.md "Warehouse contract").
	Key []string
	// Partition is the DATE column of the hive partition of the Parquet
	// mirror (<table>/<Partition>=YYYY-MM-DD/…). For Append tables it is a
	// function of the key (observed_at, or response_id through it), so a
	// row never moves; for Latest and Dimension tables it is the date of
	// First, which moves earlier when an older observation arrives late.
	Partition string
	// First and Last are, for Latest and Dimension tables, the columns of
	// the first and last observation.
	First, Last string
	// PullOrder, for a Ledger table whose key several warehouses may
	// hold (a shipment two workers track), orders the rows of one key,
	// first the one a pull of the lake keeps (load: PullTable): SQL ORDER
	// BY terms over the table's columns. Without it, and after it, the
	// lake writer's id breaks ties.
	PullOrder string

	arrowOnce   sync.Once
	arrowSchema *arrow.Schema
}

// Column returns the named column.
func (t *Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// ColumnNames lists the columns a batch of the table carries, in order:
// all but the Computed ones.
func (t *Table) ColumnNames() []string {
	var names []string
	for _, c := range t.Columns {
		if !c.Computed {
			names = append(names, c.Name)
		}
	}
	return names
}

// KeptColumn is the name of the Kept column of a Dimension table's
// attribute: name_kept for name. Its type is Seen.
func KeptColumn(attribute string) string { return attribute + "_kept" }

// IsKey reports whether the column is part of the key.
func (t *Table) IsKey(name string) bool {
	for _, k := range t.Key {
		if k == name {
			return true
		}
	}
	return false
}

// Arrow returns the schema of the table's batches: one field per column
// but the Computed ones, in order, nullable as the column is, with the
// table name in the metadata.
func (t *Table) Arrow() *arrow.Schema {
	t.arrowOnce.Do(func() {
		var fields []arrow.Field
		for _, c := range t.Columns {
			if !c.Computed {
				fields = append(fields, arrow.Field{Name: c.Name, Type: c.Type.Arrow(), Nullable: c.Nullable})
			}
		}
		md := arrow.NewMetadata([]string{"etalake.table"}, []string{t.Name})
		t.arrowSchema = arrow.NewSchema(fields, &md)
	})
	return t.arrowSchema
}

// CreateSQL is the DDL creating the table as of migration version v: the
// columns added up to v, in order. The key is documented, not enforced by an
// index: merges enforce it (see Kind), and an index would have to fit in
// memory.
func (t *Table) CreateSQL(v int) string {
	return t.createSQL(t.Name, v) + t.commentsSQL(v)
}

// columnsAsOf lists the columns added up to migration version v, in order.
func (t *Table) columnsAsOf(v int) []Column {
	var out []Column
	for _, c := range t.Columns {
		if c.Since <= v {
			out = append(out, c)
		}
	}
	return out
}

// createSQL is the CREATE TABLE of the table's columns as of version v,
// under the given name.
func (t *Table) createSQL(name string, v int) string {
	var cols []string
	for _, c := range t.columnsAsOf(v) {
		col := fmt.Sprintf("    %s %s", ident(c.Name), c.Type.DuckDB())
		if c.Compression != "" && c.CompressionSince <= v {
			col += " USING COMPRESSION " + c.Compression
		}
		if c.notNullAsOf(v) {
			col += " NOT NULL"
		}
		cols = append(cols, col)
	}
	return fmt.Sprintf("CREATE TABLE %s (\n%s\n);\n", name, strings.Join(cols, ",\n"))
}

// commentsSQL documents the table and its columns as of version v.
func (t *Table) commentsSQL(v int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "COMMENT ON TABLE %s IS %s;\n", t.Name, quote(t.comment(v)))
	for _, c := range t.columnsAsOf(v) {
		b.WriteString(t.columnCommentSQL(c, v))
	}
	return b.String()
}

// columnCommentSQL documents column c as of version v; empty when it has
// no comment then.
func (t *Table) columnCommentSQL(c Column, v int) string {
	doc := c.docAsOf(v)
	if doc == "" {
		return ""
	}
	return fmt.Sprintf("COMMENT ON COLUMN %s.%s IS %s;\n", t.Name, ident(c.Name), quote(doc))
}

// docAsOf is a comment as of migration v: doc from migration since on,
// before until then.
func docAsOf(doc, before string, since, v int) string {
	if v < since {
		return before
	}
	return doc
}

// AddColumnsSQL is the DDL adding the columns of migration version v.
func (t *Table) AddColumnsSQL(v int) string {
	var b strings.Builder
	for _, c := range t.Columns {
		if c.Since == v {
			fmt.Fprintf(&b, "ALTER TABLE %s ADD COLUMN %s %s;\n", t.Name, ident(c.Name), c.Type.DuckDB())
			b.WriteString(t.columnCommentSQL(c, v))
		}
	}
	return b.String()
}

// RedocSQL is the DDL giving the table the comment migration version v
// gives it (Table.DocSince); empty when it gives none, or when RebuildSQL(v)
// comments the rebuilt table anyway. The columns' new comments are
// AlterColumnsSQL's.
func (t *Table) RedocSQL(v int) string {
	if v <= 1 || t.DocSince != v || t.RebuildSQL(v) != "" {
		return ""
	}
	return fmt.Sprintf("COMMENT ON TABLE %s IS %s;\n", t.Name, quote(t.comment(v)))
}

// AlterColumnsSQL is the DDL of migration version v changing columns added
// before it: the NOT NULL constraints it drops (NullableSince) and the
// comments it rewrites (DocSince).
func (t *Table) AlterColumnsSQL(v int) string {
	var b strings.Builder
	for _, c := range t.Columns {
		if c.Since >= v {
			continue
		}
		if c.NullableSince == v {
			fmt.Fprintf(&b, "ALTER TABLE %s ALTER COLUMN %s DROP NOT NULL;\n", t.Name, ident(c.Name))
		}
		if c.DocSince == v {
			b.WriteString(t.columnCommentSQL(c, v))
		}
	}
	return b.String()
}

// RebuildSQL is, for a migration version v after the first that changes
// the compression of one of the table's columns, the DDL copying the table
// into a new one created as of v, which then takes its name and comments;
// for any other version it is empty.
func (t *Table) RebuildSQL(v int) string {
	if v <= 1 || !slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Compression != "" && c.CompressionSince == v }) {
		return ""
	}
	tmp := t.Name + "__rebuild"
	var cols []string
	for _, c := range t.columnsAsOf(v) {
		cols = append(cols, ident(c.Name))
	}
	list := strings.Join(cols, ", ")
	return t.createSQL(tmp, v) +
		fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s;\nDROP TABLE %s;\nALTER TABLE %s RENAME TO %s;\n", tmp, list, list, t.Name, t.Name, tmp, t.Name) +
		t.commentsSQL(v)
}

// Ident quotes an identifier for DuckDB, so that a name DuckDB reserves
// (at) is still a column. Every package that writes SQL quotes with it.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// Literal renders s as an SQL string literal.
func Literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// The short names this package's SQL generation uses.
var ident, quote = Ident, Literal

// comment is the table's comment as of migration v.
func (t *Table) comment(v int) string {
	return fmt.Sprintf("%s Key (%s), %s.", docAsOf(t.Doc, t.OldDoc, t.DocSince, v), strings.Join(t.Key, ", "), t.Kind)
}

// validate checks the definition's own consistency.
func (t *Table) validate() error {
	seen := map[string]bool{}
	for _, c := range t.Columns {
		if seen[c.Name] {
			return fmt.Errorf("%s: column %s defined twice", t.Name, c.Name)
		}
		seen[c.Name] = true
		if c.Since < 1 {
			return fmt.Errorf("%s.%s: Since must be at least 1", t.Name, c.Name)
		}
		if (c.Compression == "") != (c.CompressionSince == 0) || (c.Compression != "" && c.CompressionSince < c.Since) {
			return fmt.Errorf("%s.%s: Compression and CompressionSince go together, CompressionSince no earlier than Since", t.Name, c.Name)
		}
		if c.NullableSince != 0 && (!c.Nullable || c.NullableSince <= c.Since) {
			return fmt.Errorf("%s.%s: NullableSince is for a Nullable column added NOT NULL by an earlier migration", t.Name, c.Name)
		}
		if (c.DocSince != 0) != (c.OldDoc != "") || c.DocSince != 0 && c.DocSince <= c.Since {
			return fmt.Errorf("%s.%s: DocSince and OldDoc go together, for a column added by an earlier migration", t.Name, c.Name)
		}
		if c.Computed && (!c.Nullable || t.IsKey(c.Name)) {
			return fmt.Errorf("%s.%s: a computed column is nullable and no key", t.Name, c.Name)
		}
	}
	if t.DocSince != 0 && (t.DocSince <= 1 || t.OldDoc == "") {
		return fmt.Errorf("%s: DocSince comes after the first migration, with the OldDoc it replaces", t.Name)
	}
	for _, k := range t.Key {
		c, ok := t.Column(k)
		if !ok || c.Nullable {
			return fmt.Errorf("%s: key column %s missing or nullable", t.Name, k)
		}
	}
	if p, ok := t.Column(t.Partition); !ok || p.Type != Date || p.Nullable {
		return fmt.Errorf("%s: partition column %q must be a non-null DATE", t.Name, t.Partition)
	}
	if t.Kind == Latest || t.Kind == Dimension {
		for _, n := range []string{t.First, t.Last} {
			if c, ok := t.Column(n); !ok || c.Type != Timestamp || c.Nullable {
				return fmt.Errorf("%s: first/last column %q must be a non-null timestamp", t.Name, n)
			}
		}
	}
	return nil
}

// ViewCommentsSQL documents a view of the same name as the table (the
// readers' database of a published version): the table's comment and each
// column's as of the latest migration, doc giving a column's comment (its
// Doc, unless the view's column differs).
func ViewCommentsSQL(t *Table, doc func(*Table, Column) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "COMMENT ON TABLE %s IS %s;\n", ident(t.Name), quote(fmt.Sprintf("%s Key (%s), %s.", t.Doc, strings.Join(t.Key, ", "), t.Kind)))
	for _, c := range t.Columns {
		if d := doc(t, c); d != "" {
			fmt.Fprintf(&b, "COMMENT ON COLUMN %s.%s IS %s;\n", ident(t.Name), ident(c.Name), quote(d))
		}
	}
	return b.String()
}
