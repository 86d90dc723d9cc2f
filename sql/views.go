package sql

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

//go:embed views/*.sql
var files embed.FS

// View is one analytic view, a table materialised for them, or the macros
// they share (000_statistics: View and Table both empty).
type View struct {
	Name string // file name without extension, e.g. 002_eta_accuracy
	SQL  string
	// View is the name of the view the file creates, if it creates one.
	View string
	// Table is set for a CREATE OR REPLACE TABLE: a view materialised
	// because computing it on every query would be too slow. Its SQL is run
	// again by every refresh (see package load).
	Table string
	// PerShipment is set for a Table each of whose rows rests on one
	// shipment's rows alone (the file says so on a line "-- rows: per
	// shipment"): a refresh may recompute the rows of the shipments that
	// changed, with Select over their rows only (package load).
	PerShipment bool
	// Computed is set for a Table computed by etalake rather than by SQL
	// (the file says so on a line "-- rows: computed by etalake"): its
	// Select, true of no row, only gives its shape (package estimate).
	Computed bool
	// Select is the query a Table is created AS.
	Select string
}

// tablePattern finds the table a file materialises, viewPattern the view
// it creates.
var (
	tablePattern = regexp.MustCompile(`(?m)^CREATE OR REPLACE TABLE (\w+) AS$`)
	perShipment  = regexp.MustCompile(`(?m)^-- rows: per shipment$`)
	computed     = regexp.MustCompile(`(?m)^-- rows: computed by etalake\b`)
	viewPattern  = regexp.MustCompile(`(?m)^CREATE OR REPLACE VIEW (\w+) AS`)
)

// Checksum identifies the view's SQL: a warehouse re-creates a view whose
// checksum changed.
func (v View) Checksum() string {
	sum := sha256.Sum256([]byte(v.SQL))
	return hex.EncodeToString(sum[:])
}

// query is the statement that starts sql, up to the line that ends it
// with a semicolon (not a comment's), without it.
func query(sql string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(sql, "\n") {
		text := strings.TrimSpace(line)
		if !strings.HasPrefix(text, "--") && strings.HasSuffix(text, ";") {
			b.WriteString(strings.TrimSuffix(strings.TrimRight(line, " \t\r\n"), ";"))
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// Views returns the views in the order they are applied.
func Views() ([]View, error) {
	entries, err := fs.ReadDir(files, "views")
	if err != nil {
		return nil, err
	}
	var out []View
	for _, e := range entries {
		b, err := files.ReadFile(path.Join("views", e.Name()))
		if err != nil {
			return nil, err
		}
		v := View{Name: strings.TrimSuffix(e.Name(), ".sql"), SQL: string(b)}
		if m := tablePattern.FindStringSubmatchIndex(v.SQL); m != nil {
			v.Table, v.Select = v.SQL[m[2]:m[3]], query(v.SQL[m[1]:])
			v.PerShipment = perShipment.MatchString(v.SQL)
			v.Computed = computed.MatchString(v.SQL)
		}
		if m := viewPattern.FindStringSubmatch(v.SQL); m != nil {
			v.View = m[1]
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
