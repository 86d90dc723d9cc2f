package load_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
)

// Once published, a body lives in its segment alone: the writer's
// database keeps the row and drops its copy, so it does not grow with the
// bodies kept; Raw — what replay and the crash catch-up read — still gives
// every body back, checked, across segments; and a segment gone is an
// error naming it, never a body silently missing.
func TestPublishedBodiesLeaveTheDatabaseAndReadBackFromSegments(t *testing.T) {
	slowtest.Long(t)
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

// A long job moves its bodies to segments as it lands them, before any
// publish: the database never holds more than Options.SegmentFlush of
// them, and every body still reads back.
func TestALongJobMovesItsBodiesToSegmentsAsItGoes(t *testing.T) {
	slowtest.Long(t)
	dir := t.TempDir()
	w, err := load.Open(t.Context(), dir, load.Options{Now: clock, SegmentFlush: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	body := strings.Repeat("x", 4<<10)
	for batch := range 10 {
		var rs []response.Landed
		for i := range 10 {
			rs = append(rs, fetched(t0.Add(time.Duration(batch*10+i)*time.Second), fmt.Sprintf(`{"n":%d,"pad":%q}`, batch*10+i, body)))
		}
		land(t, w, rs...)
	}
	var inDB, segments int
	if err := w.DB().QueryRow(`SELECT count(body), count(DISTINCT segment) FROM raw_responses`).Scan(&inDB, &segments); err != nil {
		t.Fatal(err)
	}
	// 10 batches of 40 KiB past a flush of 64 KiB: a segment every other
	// batch, and at most the last batch's bodies left in the database.
	if segments != 5 || inDB > 10 {
		t.Errorf("after landing 400 KiB with a flush of 64 KiB: %d segments, %d bodies in the database; want 5, at most 10", segments, inDB)
	}
	rs, _ := all(t, w, load.RawFilter{})
	if len(rs) != 100 || !strings.Contains(string(rs[99].Body), `"n":99`) {
		t.Errorf("Raw read %d responses; want all 100, bodies whole", len(rs))
	}
}
