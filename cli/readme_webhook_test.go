package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"
)

// TestWebhookTryOutRuns: the webhook try-out of docs/webhooks.md, run as
// written by bash in a directory holding a built ./etalake, as a reader
// who pastes it does. The issue's complaint was that it "fails verbatim:
// `webhook serve --warehouse wh` exits at once, because `wh` must exist
// first"; so the recipe must run to its end and its last query must count
// answers the simulator pushed beside those fetched.
func TestWebhookTryOutRuns(t *testing.T) {
	slowtest.Require(t, "runs the webhook try-out of docs/webhooks.md as written: a simulator, a receiver and two runs on ports 8089 and 8090, about 30 s")
	script := webhookTryOut(t)
	for _, tool := range []string{"bash", "curl", "base64"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here: the try-out is a bash recipe that needs it", tool)
		}
	}
	dir := t.TempDir()
	if err := os.Rename(buildEtalake(t), filepath.Join(dir, "etalake")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	// The rate-limit state of the simulator's key is the test's own, not
	// the user's; the recipe's settings come from the simulator's line.
	cmd.Env = append(withoutEtalakeEnv(os.Environ()), "ETALAKE_STATE_DIR="+filepath.Join(dir, "state"))
	// Its own process group, so that whatever it left running (a
	// receiver, a simulator) is stopped with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		t.Fatalf("the try-out ended with %v:\n%s", err, out)
	}
	counts := regexp.MustCompile(`(?m)^\s*(fetch|push)\s*[│|,\s]\s*(\d+)`).FindAllStringSubmatch(string(out), -1)
	got := map[string]string{}
	for _, m := range counts {
		got[m[1]] = m[2]
	}
	if got["fetch"] == "" || got["push"] == "" || got["push"] == "0" {
		t.Fatalf("the try-out's last query should count fetched and pushed answers; it printed:\n%s", out)
	}
	t.Logf("the try-out's warehouse holds %s answers fetched and %s pushed", got["fetch"], got["push"])
}

// webhookTryOut returns the ```sh block of the docs that starts the
// receiver beside the simulator.
func webhookTryOut(t *testing.T) string {
	t.Helper()
	for _, b := range docBlocks(t) {
		if b.lang == "sh" && strings.Contains(b.text, "etalake webhook serve") && strings.Contains(b.text, "etalake sim serve") {
			return b.text
		}
	}
	t.Fatal("README.md and docs/*.md have no ```sh block trying the webhook receiver out with the simulator")
	return ""
}

// withoutEtalakeEnv drops the ETALAKE_* variables of the test's own
// environment, which would set up the recipe's commands otherwise.
func withoutEtalakeEnv(env []string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "ETALAKE_") {
			kept = append(kept, kv)
		}
	}
	return kept
}
