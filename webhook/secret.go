package webhook

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// secretPrefix marks a symmetric Standard Webhooks secret; the standard's
// asymmetric keys are whsk_ (secret) and whpk_ (public).
const secretPrefix = "whsec_"

// The standard's bounds of a symmetric signing secret: "Random. Between
// 24 bytes (192 bits) and 64 bytes (512 bits)".
const (
	minSecretBytes = 24
	maxSecretBytes = 64
)

// ErrSecret: a signing secret that is not whsec_ and the base64 of 24 to
// 64 bytes. Its messages never hold the secret.
var ErrSecret = errors.New("not a webhook signing secret")

// Secret is the HMAC key of the standard's symmetric scheme. It never
// shows itself: String, GoString, LogValue and MarshalText say only
// whether it is set, so that no log line or error can carry it.
type Secret struct{ key []byte }

// ParseSecret reads a secret as the vendor's portal shows it: whsec_
// followed by the base64 of 24 to 64 random bytes (surrounding blanks,
// a file's last newline among them, are ignored).
func ParseSecret(s string) (Secret, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Secret{}, fmt.Errorf("%w: empty; want whsec_ followed by base64, as the vendor's portal shows it", ErrSecret)
	case strings.HasPrefix(s, "whsk_"), strings.HasPrefix(s, "whpk_"):
		return Secret{}, fmt.Errorf("%w: an asymmetric (ed25519) key, which this receiver does not verify; want the symmetric whsec_ secret", ErrSecret)
	case !strings.HasPrefix(s, secretPrefix):
		return Secret{}, fmt.Errorf("%w: does not start with whsec_; want whsec_ followed by base64, as the vendor's portal shows it", ErrSecret)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
	if err != nil {
		return Secret{}, fmt.Errorf("%w: what follows whsec_ is not standard base64", ErrSecret)
	}
	if len(key) < minSecretBytes || len(key) > maxSecretBytes {
		return Secret{}, fmt.Errorf("%w: %d bytes after base64; the standard wants %d to %d", ErrSecret, len(key), minSecretBytes, maxSecretBytes)
	}
	return Secret{key: key}, nil
}

// ReadSecretFile reads a secret from a file holding it alone.
func ReadSecretFile(path string) (Secret, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Secret{}, err
	}
	s, err := ParseSecret(string(b))
	if err != nil {
		return Secret{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// IsZero reports whether no secret is set.
func (s Secret) IsZero() bool { return len(s.key) == 0 }

func (s Secret) String() string {
	if s.IsZero() {
		return "(no secret)"
	}
	return "whsec_(redacted)"
}

// GoString keeps %#v from printing the key.
func (s Secret) GoString() string { return s.String() }

// LogValue keeps slog from printing the key.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText keeps encoders from writing the key.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }
