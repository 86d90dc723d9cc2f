package webhook_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/webhook"
)

// ledgerReceiver is a receiver keeping its ids in the ledger in dir, as
// `etalake webhook serve` does: a call is a start of the receiver.
func ledgerReceiver(t *testing.T, dir string, retention time.Duration, clock *time.Time, g *got) (*webhook.Receiver, *webhook.Ledger) {
	t.Helper()
	now := func() time.Time { return *clock }
	l, err := webhook.OpenLedger(dir, retention, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s, err := webhook.ParseSecret(sim.FormatWebhookSecret(key))
	if err != nil {
		t.Fatal(err)
	}
	cfg := webhook.DefaultConfig()
	cfg.Secret, cfg.Now, cfg.Ledger = s, now, l
	r, err := webhook.New(cfg, g.deliver)
	if err != nil {
		t.Fatal(err)
	}
	return r, l
}

// The standard: "webhook-id: the unique message identifier for the
// webhook message. This identifier is unique across all messages, but
// will be the same when the same webhook is being resent (e.g. due to a
// previous failure)." — and "The webhook-id header ... can be used as an
// idempotency key". A retry is not landed again after a restart of the
// receiver, nor past the tolerance (a retry carries a fresh timestamp
// and signature: it is no replay), for as long as the ledger's
// retention; past it the id is forgotten, and its hour's file removed by
// its name, unread.
func TestTheLedgerKeepsAnIdForItsRetention(t *testing.T) {
	dir := t.TempDir()
	clock := now
	g := &got{}
	r, l := ledgerReceiver(t, dir, webhook.DefaultRetention, &clock, g)
	if w := post(r, "msg_kept", clock, []byte(body), key); w.Code != http.StatusNoContent {
		t.Fatalf("first attempt: %d %s", w.Code, w.Body)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	for _, after := range []time.Duration{5 * time.Second, 10 * time.Hour, 71 * time.Hour} {
		clock = now.Add(after)
		r, l = ledgerReceiver(t, dir, webhook.DefaultRetention, &clock, g)
		if w := post(r, "msg_kept", clock, []byte(body), key); w.Code != http.StatusOK {
			t.Fatalf("a retry %s later, after a restart: %d %s, want 200 (landed before)", after, w.Code, w.Body)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if g.n() != 1 {
		t.Fatalf("%d deliveries landed, want 1", g.n())
	}

	// An hour's file far past the retention is removed unread: a
	// directory in its place would fail any read.
	old := filepath.Join(dir, "ids-"+now.Add(-30*24*time.Hour).Format("20060102T15")+".log")
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	clock = now.Add(webhook.DefaultRetention + 3*time.Hour)
	r, _ = ledgerReceiver(t, dir, webhook.DefaultRetention, &clock, g)
	if w := post(r, "msg_kept", clock, []byte(body), key); w.Code != http.StatusNoContent {
		t.Fatalf("the id again past the retention: %d %s, want 204 (a message it no longer knows)", w.Code, w.Body)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "ids-*.log"))
	if len(left) != 1 || filepath.Base(left[0]) != "ids-"+clock.Format("20060102T15")+".log" {
		t.Fatalf("files left %v, want only the hour of the last id", left)
	}
}

// A retention shorter than an hour, or longer than 90 days, is refused
// naming the setting.
func TestALedgerRefusesItsRetention(t *testing.T) {
	for _, d := range []time.Duration{30 * time.Minute, 100 * 24 * time.Hour} {
		if _, err := webhook.OpenLedger(t.TempDir(), d, nil); err == nil || !strings.Contains(err.Error(), "Retention") {
			t.Errorf("retention %s: %v, want a refusal naming Retention", d, err)
		}
	}
}
