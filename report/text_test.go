package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/etalake/etalake/internal/slowtest"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/report")

const goldenDir = "../testdata/report"

// golden compares got with the golden file name, or rewrites it with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -tags duckdb_arrow ./report -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (-update rewrites it):\n%s", name, path, got)
	}
}

func TestWriteTextGolden(t *testing.T) {
	slowtest.Long(t)
	r := build(t, small())
	r.Warehouse = "./warehouse"
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "small.txt", b.Bytes())
}

func TestWriteTextFitsIn100Columns(t *testing.T) {
	slowtest.Long(t)
	r := build(t, demoLike())
	r.Warehouse = "./etalake-demo"
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("line %d is %d columns wide, more than 100: %q", i+1, n, l)
		}
	}
	for _, want := range []string{"HLCU", "MAEU", "ZIMU", "14 days", "predictive closer", "mean delay of late h", "Schedule reliability by month", "Credits: 30 runs"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report does not show %q", want)
		}
	}
}
