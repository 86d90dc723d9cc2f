package schema

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one forward-only step of the warehouse schema.
type Migration struct {
	Version int
	Name    string // file name without extension, e.g. 0001_contract
	SQL     string
}

// Checksum identifies the migration's SQL, so that a warehouse can tell a
// migration it applied from one edited since.
func (m Migration) Checksum() string {
	sum := sha256.Sum256([]byte(m.SQL))
	return hex.EncodeToString(sum[:])
}

// Migrations returns the embedded migrations in version order. Their
// derived part is generated from the table definitions (see Derive and the
// test that enforces it); a migration may add hand-written SQL after the
// HandWritten marker.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".sql")
		v, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: name must start with a version number, as 0002_add_x.sql", e.Name())
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration versions must run 1, 2, 3… without gaps or repeats: found %s at position %d", m.Name, i+1)
		}
	}
	return out, nil
}

// HandWritten marks the end of a migration's derived part.
const HandWritten = "-- Written by hand below this line."

// Derive is the SQL a migration of version v must start with: for version
// 1 the creation of every table with its original columns, for a later
// version the columns added in it (Column.Since), the constraints and
// comments it changes (Column.NullableSince, Column.DocSince,
// Table.DocSince) and the rebuild of the tables whose compression it
// changes (Column.CompressionSince).
func Derive(v int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- Migration %d, derived from the table definitions in schema/tables.go.\n", v)
	b.WriteString("-- Regenerate with: go test ./schema -run TestMigrationsAreDerived -update\n\n")
	for _, t := range Tables {
		if v == 1 {
			b.WriteString(t.CreateSQL(1))
			b.WriteString("\n")
		} else {
			b.WriteString(t.AddColumnsSQL(v))
			b.WriteString(t.AlterColumnsSQL(v))
			b.WriteString(t.RebuildSQL(v))
			b.WriteString(t.RedocSQL(v))
		}
	}
	return b.String()
}
