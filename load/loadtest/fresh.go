package loadtest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/load"
)

// The empty warehouse Fresh copies: created once per test binary, since
// creating one (its migrations and analytic views) costs about 0.2 s under
// the race detector, and many tests start from one.
var template struct {
	once sync.Once
	dir  string
	err  error
}

// Fresh returns a new directory (under t.TempDir) holding an empty
// warehouse, closed: a copy of one created once per test binary, its
// migrations and views recorded at the first caller's now (nil: the
// wall clock). Open it as the test would open any warehouse. A test of
// how a warehouse is created creates its own instead. The package's
// TestMain runs its tests through Main, which removes the original.
func Fresh(t testing.TB, now func() time.Time) string {
	t.Helper()
	template.once.Do(func() {
		template.dir, template.err = os.MkdirTemp("", "etalake-empty-warehouse-")
		if template.err != nil {
			return
		}
		var w *load.Warehouse
		if w, template.err = load.Open(context.Background(), template.dir, load.Options{Now: now}); template.err == nil {
			template.err = w.Close()
		}
	})
	if template.err != nil {
		t.Fatalf("the empty warehouse tests copy: %v", template.err)
	}
	return CopyDir(t, template.dir)
}

// Main runs the tests of m and removes what Fresh created: call it from
// TestMain, os.Exit(loadtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if template.dir != "" {
		_ = os.RemoveAll(template.dir)
	}
	return code
}

// CopyDir copies the directory src (a warehouse, closed) to a new
// directory under t.TempDir and returns it.
func CopyDir(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := os.CopyFS(dst, os.DirFS(src))
	if err != nil {
		t.Fatalf("copying %s: %v", src, err)
	}
	return dst
}
