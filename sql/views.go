package sql

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed views/*.sql
var files embed.FS

// View is one analytic view.
type View struct {
	Name string // file name without extension, e.g. 001_eta_accuracy
	SQL  string
}

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
		out = append(out, View{Name: strings.TrimSuffix(e.Name(), ".sql"), SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
