package cli

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
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
	"metrics":   {},
	"response":  {"wire"}, // the hand-off of a response between the stages
	"sim":       {"wire"}, // the simulator validates with its own code, never the client's
	"extract":   {"wire", "response"},
	"transform": {"schema", "wire", "response"},
	"load":      {"schema", "sql", "response", "estimate"}, // estimate: the tables it computes at a refresh
	"estimate":  {},
	"coord":     {"extract", "wire"}, // the coordinator serves the client's limiter and budgets, and speaks no HTTP
	".":         {"cli"},             // the command: main.go only starts the command line
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

// A maintainer finds a command in the file named for it: every command of
// the command line (a cli.Command, subcommands too) is built in a
// cmd_*.go file that builds no other, so that no file hides a command
// behind another's name (track add and track rm are one literal, built
// twice by trackChange).
func TestEachCommandHasAFileOfItsOwn(t *testing.T) {
	ctx := build.Default
	ctx.BuildTags = append(ctx.BuildTags, "duckdb_arrow")
	pkg, err := ctx.ImportDir("cli", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var commands []string
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if isCLICommand(lit.Type) {
				commands = append(commands, commandName(lit))
			}
			// Commands written in a list without their type: []*cli.Command{{…}}.
			if arr, ok := lit.Type.(*ast.ArrayType); ok && isCLICommand(arr.Elt) {
				for _, e := range lit.Elts {
					if el, ok := e.(*ast.CompositeLit); ok && el.Type == nil {
						commands = append(commands, commandName(el))
					}
				}
			}
			return true
		})
		base := filepath.Base(name)
		switch {
		case len(commands) > 1:
			t.Errorf("%s builds %d commands (%s): give each a cmd_*.go of its own", base, len(commands), strings.Join(commands, ", "))
		case len(commands) == 1 && !strings.HasPrefix(base, "cmd_"):
			t.Errorf("%s builds the command %s: move it to a cmd_*.go named for it", base, commands[0])
		case len(commands) == 1:
			files++
		}
	}
	if files < 10 {
		t.Errorf("%d files build a command; the command line has more: the test no longer finds them", files)
	}
}

// isCLICommand says whether a type expression is cli.Command or *cli.Command.
func isCLICommand(e ast.Expr) bool {
	if star, ok := e.(*ast.StarExpr); ok {
		e = star.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "cli" && sel.Sel.Name == "Command"
}

// commandName is the Name of a command's literal, as written.
func commandName(lit *ast.CompositeLit) string {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
				if v, ok := kv.Value.(*ast.BasicLit); ok {
					return v.Value
				}
				return "(a name computed)"
			}
		}
	}
	return "(unnamed)"
}
