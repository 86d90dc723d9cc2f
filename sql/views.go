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
}

// tablePattern finds the table a file materialises, viewPattern the view
// it creates.
var (
	tablePattern = regexp.MustCompile(`(?m)^CREATE OR REPLACE TABLE (\w+) AS`)
	viewPattern  = regexp.MustCompile(`(?m)^CREATE OR REPLACE VIEW (\w+) AS`)
)

// Checksum identifies the view's SQL: a warehouse re-creates a view whose
// checksum changed.
func (v View) Checksum() string {
	sum := sha256.Sum256([]byte(v.SQL))
	return hex.EncodeToString(sum[:])
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
		if m := tablePattern.FindStringSubmatch(v.SQL); m != nil {
			v.Table = m[1]
		}
		if m := viewPattern.FindStringSubmatch(v.SQL); m != nil {
			v.View = m[1]
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
