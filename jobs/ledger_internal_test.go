package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/etalake/etalake/load"
)

// A reason to stop that spans lines — a database driver's error indents
// its causes on lines of their own ("failed to connect to …:\n\t…") — is
// one line in etl_runs.stop_reason.
func TestAStopReasonIsOneLine(t *testing.T) {
	driver := errors.New("failed to connect to `user=etalake database=postgres`:\n\t127.0.0.1:5432 (127.0.0.1): dial error: connection refused\n\t[::1]:5432: dial error: connection refused")
	var r load.Run
	settle(&r, time.Now(), nil, []string{"schedule stopped: " + driver.Error(), "2 requests failed after retries"}, nil)
	want := "schedule stopped: failed to connect to `user=etalake database=postgres`: 127.0.0.1:5432 (127.0.0.1): dial error: connection refused " +
		"[::1]:5432: dial error: connection refused; 2 requests failed after retries"
	if r.StopReason != want {
		t.Errorf("stop_reason %q,\nwant %q", r.StopReason, want)
	}
}
