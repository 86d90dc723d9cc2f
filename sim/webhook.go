package sim

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The vendor signs its webhooks as Standard Webhooks' symmetric scheme
// says, written here from the standard's text and not shared with the
// receiver (which verifies with the standard's reference library), so
// that the two cannot agree on one wrong reading:
//
//   - "the message's: ID, timestamp and body are concatenated (delimited
//     by full-stops) and then signed": msg_id.timestamp.payload, with
//     HMAC-SHA256 under the secret;
//   - "a symmetric signature will be v1, followed by a comma (`,`),
//     followed by the base64 encoded signature";
//   - "The signature header is a space delimited list of signatures"
//     (one per secret while a secret is rotated);
//   - the secret: "Random. Between 24 bytes (192 bits) and 64 bytes (512
//     bits)", "base64 encoded, prefixed with `whsec_`".
const (
	webhookSecretPrefix   = "whsec_"
	webhookSecretMinBytes = 24
	webhookSecretMaxBytes = 64
)

// ParseWebhookSecret reads a signing secret written whsec_<base64>, as the
// vendor's portal shows it (blanks around it, a file's newline, ignored).
// Its errors never hold the secret.
func ParseWebhookSecret(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, webhookSecretPrefix)
	if !ok {
		return nil, errors.New("sim: webhook secret: want whsec_ followed by base64")
	}
	key, err := base64.StdEncoding.DecodeString(rest)
	if err != nil {
		return nil, errors.New("sim: webhook secret: what follows whsec_ is not standard base64")
	}
	if len(key) < webhookSecretMinBytes || len(key) > webhookSecretMaxBytes {
		return nil, fmt.Errorf("sim: webhook secret: %d bytes, want %d to %d", len(key), webhookSecretMinBytes, webhookSecretMaxBytes)
	}
	return key, nil
}

// FormatWebhookSecret writes a key as whsec_<base64>.
func FormatWebhookSecret(key []byte) string {
	return webhookSecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// SignWebhook is the webhook-signature header of a message: a v1
// signature per key, in order, space-delimited. ts is the
// webhook-timestamp, in seconds since 1970.
func SignWebhook(keys [][]byte, id string, ts int64, body []byte) string {
	sigs := make([]string, len(keys))
	for i, k := range keys {
		mac := hmac.New(sha256.New, k)
		mac.Write([]byte(id))
		mac.Write([]byte{'.'})
		mac.Write([]byte(strconv.FormatInt(ts, 10)))
		mac.Write([]byte{'.'})
		mac.Write(body)
		sigs[i] = "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	}
	return strings.Join(sigs, " ")
}
