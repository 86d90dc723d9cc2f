package schema_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/etalake/etalake/schema"
)

var update = flag.Bool("update", false, "rewrite the derived part of the migration files")

func TestDefinitionsAreConsistent(t *testing.T) {
	if err := schema.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range schema.Tables {
		// A batch carries every column but the computed ones.
		var carried []schema.Column
		for _, c := range tbl.Columns {
			if !c.Computed {
				carried = append(carried, c)
			}
		}
		sch := tbl.Arrow()
		if sch.NumFields() != len(carried) || len(tbl.ColumnNames()) != len(carried) {
			t.Errorf("%s: %d Arrow fields and %d names for %d columns a batch carries", tbl.Name, sch.NumFields(), len(tbl.ColumnNames()), len(carried))
			continue
		}
		for i, c := range carried {
			f := sch.Field(i)
			if f.Name != c.Name || f.Nullable != c.Nullable || !arrow.TypeEqual(f.Type, c.Type.Arrow()) || tbl.ColumnNames()[i] != c.Name {
				t.Errorf("%s: field %d is %v, column %+v", tbl.Name, i, f, c)
			}
		}
		if n, _ := sch.Metadata().GetValue("etalake.table"); n != tbl.Name {
			t.Errorf("%s: metadata names %q", tbl.Name, n)
		}
	}
}

// The migrations are embedded SQL, but their derived part is generated from
// the definitions: a column added to a table without a migration, or a
// migration edited by hand above the marker, fails here.
func TestMigrationsAreDerived(t *testing.T) {
	ms, err := schema.Migrations()
	if err != nil && !*update {
		t.Fatal(err)
	}
	for v := 1; v <= schema.Version(); v++ {
		want := schema.Derive(v)
		var m *schema.Migration
		for i := range ms {
			if ms[i].Version == v {
				m = &ms[i]
			}
		}
		if *update {
			name := fmt.Sprintf("%04d_contract.sql", v)
			if v > 1 {
				name = fmt.Sprintf("%04d_add_columns.sql", v)
			}
			content := want
			if m != nil {
				name = m.Name + ".sql"
				if _, hand, ok := strings.Cut(m.SQL, schema.HandWritten); ok {
					content += schema.HandWritten + hand
				}
			}
			if err := os.WriteFile(filepath.Join("migrations", name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if m == nil {
			t.Fatalf("no migration %d: columns have Since %d; run go test ./schema -run TestMigrationsAreDerived -update", v, v)
		}
		derived, _, _ := strings.Cut(m.SQL, schema.HandWritten)
		if derived != want {
			t.Errorf("migration %s differs from the definitions; run go test ./schema -run TestMigrationsAreDerived -update\n--- file\n%s\n--- derived\n%s", m.Name, derived, want)
		}
	}
	if len(ms) > schema.Version() && !*update {
		t.Errorf("%d migrations for definitions at version %d", len(ms), schema.Version())
	}
}

func TestCreateSQLKeepsKeysNotNull(t *testing.T) {
	sql := schema.PortCalls.CreateSQL(1)
	for _, k := range schema.PortCalls.Key {
		if !strings.Contains(sql, `"`+k+`" `) || !strings.Contains(sql, "NOT NULL") {
			t.Errorf("key column %s not NOT NULL in\n%s", k, sql)
		}
	}
	if got := schema.PortCalls.AddColumnsSQL(2); got != "" {
		t.Errorf("no column has Since 2, got %q", got)
	}
}

// A compression set by a later migration is not in the tables created by
// an earlier one (their migration is applied already), and the later
// migration rebuilds only the table it changes.
func TestCompressionComesWithARebuild(t *testing.T) {
	if sql := schema.RawResponses.CreateSQL(1); strings.Contains(sql, "COMPRESSION") {
		t.Errorf("raw_responses as of migration 1 names a compression:\n%s", sql)
	}
	if sql := schema.RawResponses.CreateSQL(2); !strings.Contains(sql, `"body" BLOB USING COMPRESSION uncompressed NOT NULL`) {
		t.Errorf("raw_responses as of migration 2 does not store bodies uncompressed:\n%s", sql)
	}
	if got := schema.RawResponses.RebuildSQL(2); !strings.Contains(got, "ALTER TABLE raw_responses__rebuild RENAME TO raw_responses;") {
		t.Errorf("migration 2 does not rebuild raw_responses:\n%s", got)
	}
	for _, tbl := range []*schema.Table{schema.PortCalls, schema.RawResponses} {
		if got := tbl.RebuildSQL(1) + tbl.RebuildSQL(3); got != "" {
			t.Errorf("%s rebuilt by a migration that changes nothing of it: %q", tbl.Name, got)
		}
	}
	if got := schema.PortCalls.RebuildSQL(2); got != "" {
		t.Errorf("port_calls rebuilt by migration 2: %q", got)
	}
}

// A column made nullable, or documented anew, by a later migration keeps
// its constraint and comment in the tables created before it (their
// migrations are applied already: their SQL may not change), and that
// migration drops the constraint and comments it again.
func TestNullabilityAndCommentsChangeWithAMigration(t *testing.T) {
	c, ok := schema.ContainerEvents.Column("event_code")
	if !ok || !c.Nullable || c.NullableSince != 3 || c.DocSince != 3 {
		t.Fatalf("container_events.event_code = %+v, want nullable since migration 3", c)
	}
	v1, v3 := schema.ContainerEvents.CreateSQL(1), schema.ContainerEvents.CreateSQL(3)
	for _, want := range []string{`"event_code" VARCHAR NOT NULL,`, `"is_actual" BOOLEAN NOT NULL,`, `IS 'DCSA code: GTOT, GTIN, LOAD, DEPA, ARRI, DISC, …';`} {
		if !strings.Contains(v1, want) {
			t.Errorf("container_events as of migration 1 lacks %s:\n%s", want, v1)
		}
	}
	for _, want := range []string{`"event_code" VARCHAR,`, `"is_actual" BOOLEAN,`, `"event_at_zone_assumed" VARCHAR`, `IS 'DCSA code, upper-cased:`} {
		if !strings.Contains(v3, want) {
			t.Errorf("container_events as of migration 3 lacks %s:\n%s", want, v3)
		}
	}
	alter := schema.ContainerEvents.AlterColumnsSQL(3)
	for _, want := range []string{
		`ALTER TABLE container_events ALTER COLUMN "event_type" DROP NOT NULL;`,
		`ALTER TABLE container_events ALTER COLUMN "event_code" DROP NOT NULL;`,
		`ALTER TABLE container_events ALTER COLUMN "is_actual" DROP NOT NULL;`,
		`COMMENT ON COLUMN container_events."event_key" IS 'stable identity of the event, from what does not change about it:`,
	} {
		if !strings.Contains(alter, want) {
			t.Errorf("migration 3 of container_events lacks %s:\n%s", want, alter)
		}
	}
	if strings.Contains(alter, "event_at_zone_assumed") {
		t.Errorf("migration 3 alters a column it adds:\n%s", alter)
	}
	for _, tbl := range schema.Tables {
		if got := tbl.AlterColumnsSQL(2); got != "" {
			t.Errorf("%s: migration 2 changes no column, got %q", tbl.Name, got)
		}
	}
}

// A comment changed by a later migration: the first migration keeps the
// comment it wrote (its checksum is recorded in every warehouse), and the
// later one comments the table and the column anew.
func TestCommentsChangeInTheirOwnMigration(t *testing.T) {
	tbl := schema.Locations
	v1, v3 := tbl.CreateSQL(1), schema.Derive(3)
	if !strings.Contains(v1, "'Places (UN/LOCODE) named by any response. Key (locode), dimension.'") ||
		!strings.Contains(v1, "'latest response naming it; its values are from then'") {
		t.Errorf("migration 1 does not keep the comments it wrote:\n%s", v1)
	}
	for _, want := range []string{
		"COMMENT ON TABLE locations IS 'Places (UN/LOCODE) named by any response. Each attribute is as last given",
		`COMMENT ON COLUMN locations."last_seen_at" IS 'latest response naming it; its values are from then, but those it left out`,
		`ALTER TABLE locations ADD COLUMN "state_kept" STRUCT(seen_at TIMESTAMPTZ, response_id VARCHAR);`,
	} {
		if !strings.Contains(v3, want) {
			t.Errorf("migration 3 lacks %q", want)
		}
	}
	if strings.Contains(v3, "COMMENT ON TABLE port_calls") {
		t.Errorf("migration 3 comments a table whose comment it does not change")
	}
}
