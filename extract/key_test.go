package extract_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/etalake/etalake/extract"
)

const secret = "sk-live-THIS-MUST-NOT-LEAK-42"

func TestKeyNeverPrintsItself(t *testing.T) {
	k, err := extract.NewKey(secret + "\n")
	if err != nil {
		t.Fatal(err)
	}
	type cfg struct {
		URL string
		Key extract.Key
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	log.Info("config", "key", k, "cfg", cfg{"u", k})
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "key", k, "cfg", cfg{"u", k})
	js, _ := json.Marshal(cfg{"u", k})
	out := strings.Join([]string{
		fmt.Sprint(k), fmt.Sprintf("%v %+v %#v %s %q %x", k, cfg{"u", k}, cfg{"u", k}, k, k, k),
		string(js), logs.String(), fmt.Errorf("wrapped: %v", k).Error(),
	}, "\n")
	if strings.Contains(out, secret) || strings.Contains(out, "MUST-NOT-LEAK") {
		t.Fatalf("the key leaked:\n%s", out)
	}
	if !strings.Contains(out, "[REDACTED]") {
		t.Fatalf("no redaction marker in:\n%s", out)
	}
	if fp := k.Fingerprint(); len(fp) != 16 || strings.Contains(secret, fp) {
		t.Fatalf("fingerprint %q", fp)
	}
}

func TestNewKeyRefusesBadKeys(t *testing.T) {
	for _, s := range []string{"", "  \n", "two words", "tab\there"} {
		if _, err := extract.NewKey(s); err == nil {
			t.Errorf("NewKey(%q) accepted", s)
		} else if strings.TrimSpace(s) != "" && strings.Contains(err.Error(), strings.TrimSpace(s)) {
			t.Errorf("NewKey error %q echoes the key", err)
		}
	}
}
