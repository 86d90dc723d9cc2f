package cli

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/etalake/etalake/schema"
)

// TestREADMETrinoDDLMatchesTheParquetMirror: a CREATE TABLE the README
// gives for a mirrored table declares the columns its Parquet files have,
// in the mirror's order (every column of the table but the partition
// column, which is in the directory name), then the partition column, with
// the Trino type of each — a column added by a migration shows up here as
// a failure, not as a column a Trino user never sees.
func TestREADMETrinoDDLMatchesTheParquetMirror(t *testing.T) {
	create := regexp.MustCompile(`(?s)CREATE TABLE hive\.\w+\.(\w+) \((.*?)\)\s*WITH \(`)
	found := 0
	for _, b := range docBlocks(t) {
		for _, m := range create.FindAllStringSubmatch(b.text, -1) {
			found++
			table, ok := schema.ByName(m[1])
			if !ok {
				t.Errorf("%s line %d: CREATE TABLE %s: no such table", b.file, b.line, m[1])
				continue
			}
			var got []string
			for _, col := range strings.Split(m[2], ",") {
				got = append(got, strings.Join(strings.Fields(col), " "))
			}
			want := trinoColumns(t, table)
			if strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("%s line %d: the Trino DDL of %s declares\n  %s\nbut its Parquet files have\n  %s",
					b.file, b.line, table.Name, strings.Join(got, ", "), strings.Join(want, ", "))
			}
			if !strings.Contains(b.text, "partitioned_by = ARRAY['"+table.Partition+"']") {
				t.Errorf("%s line %d: the Trino DDL of %s is not partitioned by %s", b.file, b.line, table.Name, table.Partition)
			}
		}
	}
	if found == 0 {
		t.Fatal("README.md and docs/*.md have no CREATE TABLE hive.… for the mirror")
	}
}

// trinoColumns are the columns of a table's Parquet mirror as Trino's Hive
// connector declares them: the files' columns (load's export: every column
// but the partition, in the table's order), then the partition column.
func trinoColumns(t *testing.T, table *schema.Table) []string {
	var cols []string
	var partition string
	for _, c := range table.Columns {
		col := c.Name + " " + trinoType(t, c.Type)
		if c.Name == table.Partition {
			partition = col
			continue
		}
		cols = append(cols, col)
	}
	return append(cols, partition)
}

// trinoType is the Hive connector's type of a column the mirror writes.
func trinoType(t *testing.T, typ schema.Type) string {
	switch typ {
	case schema.Varchar, schema.JSON:
		return "varchar"
	case schema.BigInt:
		return "bigint"
	case schema.Integer:
		return "integer"
	case schema.Double:
		return "double"
	case schema.Boolean:
		return "boolean"
	case schema.Timestamp:
		return "timestamp(6)"
	case schema.Date:
		return "date"
	case schema.Blob:
		return "varbinary"
	}
	t.Fatalf("no Trino type for %s", typ.DuckDB())
	return fmt.Sprint(typ)
}
