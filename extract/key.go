package extract

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"unicode"
)

// Key is an API key. It never prints itself: String, GoString, JSON and text
// encodings all yield "[REDACTED]", so a Key inside a config struct, an error
// or a log attribute cannot leak. Only the client reads the secret, to set
// the header Config.Auth names.
type Key struct {
	secret string
	red    *redactor // every form of the key (see redactor)
}

const redacted = "[REDACTED]"

// NewKey validates an API key as read from the environment or a key file:
// surrounding white space (a trailing newline) is dropped; an empty key or
// one with inner white space or control characters is refused.
func NewKey(s string) (Key, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Key{}, errors.New("API key is empty")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return Key{}, errors.New("API key contains white space or control characters")
		}
	}
	return Key{secret: s, red: newRedactor(s)}, nil
}

// IsZero reports whether no key is set.
func (k Key) IsZero() bool { return k.secret == "" }

// String redacts the key.
func (k Key) String() string { return redacted }

// GoString redacts the key for %#v.
func (k Key) GoString() string { return redacted }

// MarshalText redacts the key in JSON, slog and any text encoding.
func (k Key) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Fingerprint is a short, stable, one-way name for the key (hex of a SHA-256
// prefix), fit for file names and logs.
func (k Key) Fingerprint() string {
	sum := sha256.Sum256([]byte("etalake-key:" + k.secret))
	return hex.EncodeToString(sum[:8])
}

// redact replaces every form of the key in b — as sent, JSON-escaped,
// percent-encoded, base64 — for bodies, links and messages of servers
// that echo request headers.
func (k Key) redact(b []byte) []byte { return k.red.redact(b) }

// RedactString is redact for a string.
func (k Key) RedactString(s string) string {
	if k.red == nil {
		return s
	}
	return string(k.red.redact([]byte(s)))
}
