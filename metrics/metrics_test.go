package metrics_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/metrics"
)

// The last success time is carried from the file a job replaces; a file
// in another format is an error naming it, not a silent zero, and a
// status the file does not know is refused before the file is replaced.
func TestPreviousReadsTheFileItReplaces(t *testing.T) {
	f := metrics.File{Path: filepath.Join(t.TempDir(), "etalake.prom")}
	if at, err := f.Previous(); err != nil || !at.IsZero() {
		t.Fatalf("no file yet: %v, %v; want the zero time", at, err)
	}
	end := time.Date(2026, 1, 5, 2, 17, 30, 0, time.UTC)
	if err := f.Write(metrics.Job{Command: "run", KeyID: "k", Shard: "1/1", Status: "ok", Start: end.Add(-time.Minute), End: end, LastSuccess: end}); err != nil {
		t.Fatal(err)
	}
	if at, err := f.Previous(); err != nil || !at.Equal(end) {
		t.Errorf("last success %v, %v; want %v", at, err, end)
	}
	if err := f.Write(metrics.Job{Command: "run", Status: "fine"}); err == nil || !strings.Contains(err.Error(), `"fine"`) {
		t.Errorf("status fine: %v, want an error naming it", err)
	}
	if at, err := f.Previous(); err != nil || !at.Equal(end) {
		t.Errorf("after a refused write the file says %v, %v; want it untouched (%v)", at, err, end)
	}
	if err := os.WriteFile(f.Path, []byte("<html>not metrics</html>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Previous(); err == nil || !strings.Contains(err.Error(), f.Path) {
		t.Errorf("a file of another format: %v, want an error naming it", err)
	}
}
