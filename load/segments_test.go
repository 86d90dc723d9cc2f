package load_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

// Once published, a body lives in its segment alone: the writer's
// database keeps the row and drops its copy, so it does not grow with the
// bodies kept; Raw — what replay and the crash catch-up read — still gives
// every body back, checked, across segments; and a segment gone is an
// error naming it, never a body silently missing.
func TestPublishedBodiesLeaveTheDatabaseAndReadBackFromSegments(t *testing.T) {
	dir := t.TempDir()
	w := openWarehouse(t, dir)
	for night := range 2 {
		var rs []response.Landed
		for i := range 1500 { // more than a page of Raw and a row group of a segment
			rs = append(rs, fetched(t0.Add(time.Duration(night*1500+i)*time.Second), fmt.Sprintf(`{"night":%d,"n":%d}`, night, i)))
		}
		landDerived(t, w, rs...)
		if _, err := w.Publish(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	var inDB, segmented, segments int
	if err := w.DB().QueryRow(`SELECT count(body), count(segment), count(DISTINCT segment) FROM raw_responses`).Scan(&inDB, &segmented, &segments); err != nil {
		t.Fatal(err)
	}
	if inDB != 0 || segmented != 3000 || segments != 2 {
		t.Errorf("after two publishes the database holds %d bodies, %d responses in %d segments; want 0, 3000 in 2", inDB, segmented, segments)
	}
	rs, _ := all(t, w, load.RawFilter{})
	if len(rs) != 3000 {
		t.Fatalf("Raw read %d responses; want 3000", len(rs))
	}
	for i, r := range rs {
		if want := fmt.Sprintf(`{"night":%d,"n":%d}`, i/1500, i%1500); string(r.Body) != want {
			t.Fatalf("response %d reads back %q; want %q", i, r.Body, want)
		}
	}

	seg := filepath.Join(dir, "bodies", "segments", "s000000001.parquet")
	if err := os.Rename(seg, seg+".away"); err != nil {
		t.Fatal(err)
	}
	err := w.Raw(t.Context(), load.RawFilter{}, func(*response.Landed) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "s000000001.parquet") {
		t.Errorf("Raw with a segment gone: %v; want an error naming it", err)
	}
}
