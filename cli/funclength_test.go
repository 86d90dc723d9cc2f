package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function may be, from its func keyword to
// its closing brace, its doc comment aside: one longer does several things,
// each of which deserves a name (STYLE.md, "functions that do three
// things (over 80 lines is a sign)").
const maxFuncLines = 80

// Every function of the repository, outside tests, fits in maxFuncLines
// (issue 44: "No function over 80 lines. … Split each into named steps."):
// split so, a long one reads as the list of what it does.
// Function literals count as well as declarations. The test runs from the
// repository's root (TestMain), so it walks the whole module.
func TestNoFunctionOver80Lines(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// .git and the other hidden directories hold no code of ours;
			// testdata is not built (go help packages).
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var what string
			switch fn := n.(type) {
			case *ast.FuncDecl:
				what = fn.Name.Name
				if fn.Recv != nil && len(fn.Recv.List) == 1 {
					what = recvName(fn.Recv.List[0].Type) + "." + what
				}
			case *ast.FuncLit:
				what = "a function literal"
			default:
				return true
			}
			from, to := fset.Position(n.Pos()), fset.Position(n.End())
			if lines := to.Line - from.Line + 1; lines > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines, over %d: split it into named steps", path, from.Line, what, lines, maxFuncLines)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// recvName is the type a method is declared on: T for t T, *T or T[K].
func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}
