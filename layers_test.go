package main

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The layering docs/design.md draws ("Layout"): which of our packages each
// may import, outside its tests. A package not listed may import any.
var mayImport = map[string][]string{
	"wire":      {},
	"schema":    {},
	"sql":       {},
	"report":    {},
	"webhook":   {},
	"response":  {"wire"}, // the hand-off of a response between the stages
	"sim":       {"wire"}, // the simulator validates with its own code, never the client's
	"extract":   {"wire", "response"},
	"transform": {"schema", "wire", "response"},
	"load":      {"schema", "sql", "response"},
}

// Each package imports only what the design lets it: extract, transform
// and load never import each other (a response goes between them as a
// package response value, rows as schema.Rows), wire and schema are
// leaves, response imports only wire, and the simulator imports nothing
// of the client, so that a client bug cannot agree with itself in the
// conformance tests.
func TestPackagesImportWhatTheDesignLets(t *testing.T) {
	const module = "github.com/etalake/etalake/"
	ctx := build.Default
	ctx.BuildTags = append(ctx.BuildTags, "duckdb_arrow")
	for dir, allowed := range mayImport {
		pkg, err := ctx.ImportDir(filepath.FromSlash(dir), 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			ours, ok := strings.CutPrefix(imp, module)
			if !ok || strings.HasPrefix(ours, "internal/") {
				continue
			}
			if !slices.Contains(allowed, ours) {
				t.Errorf("%s imports %s; the design lets it import only %v of ours", dir, ours, allowed)
			}
		}
	}
}
