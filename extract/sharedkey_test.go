package extract_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/childproc"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// The limits of the shared-key test: short, so it runs in real time.
var sharedRate = extract.Rate{N: 5, Window: 500 * time.Millisecond}

const (
	sharedMargin = 100 * time.Millisecond
	sharedKey    = "shared-key-7f3a"
)

// TestSharedKeyChild is one of the two processes of
// TestTwoProcessesShareOneKey; alone it skips.
func TestSharedKeyChild(t *testing.T) {
	url, dir := os.Getenv("ETALAKE_CHILD_URL"), os.Getenv("ETALAKE_CHILD_DIR")
	if url == "" {
		t.Skip("runs as a child of TestTwoProcessesShareOneKey")
	}
	k, _ := extract.NewKey(sharedKey)
	lim, err := extract.NewLimiter(extract.LimiterConfig{Rate: sharedRate, Margin: sharedMargin, Dir: dir, KeyID: k.Fingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	defer lim.Close()
	c, err := extract.NewClient(extract.Config{ScheduleURL: url + sim.SchedulePrefix, TrackingURL: url + sim.TrackingPrefix, Key: k, Limiter: lim})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		if _, err := simtest.Drain(c.CurrentPeriod(context.Background(), wire.ProductSchedule)); err != nil {
			t.Fatal(err)
		}
	}
}

// Two etalake processes on one machine using one key (the nightly job and
// an analyst's backfill) together stay within the key's limit at the server.
func TestTwoProcessesShareOneKey(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("spawns processes")
	}
	env := simtest.Start(t, simtest.Options{Rate: sim.Rate{N: sharedRate.N, Window: sharedRate.Window}, Keys: []sim.KeySpec{{Key: sharedKey, Schedule: simtest.Credits(1)}}})
	dir := t.TempDir()
	childproc.RunTest(t, 2, "TestSharedKeyChild", "ETALAKE_CHILD_URL="+env.Server.URL, "ETALAKE_CHILD_DIR="+dir)
	st := env.Service.Stats()
	if st.Requests != 24 || st.RateLimited != 0 {
		t.Fatalf("server saw %d requests, %d of them 429; want 24 and none", st.Requests, st.RateLimited)
	}
	for id, peak := range st.PeakInWindow {
		if peak > sharedRate.N {
			t.Errorf("key %s: %d requests inside one window, limit %d", id, peak, sharedRate.N)
		}
	}
	// And the state file names the key by fingerprint only.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if strings.Contains(e.Name(), sharedKey) || strings.Contains(string(b), sharedKey) {
			t.Errorf("state file %s holds the key", e.Name())
		}
	}
}
