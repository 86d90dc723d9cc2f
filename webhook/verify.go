package webhook

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The standard's headers.
const (
	HeaderID        = standardwebhooks.HeaderWebhookID
	HeaderTimestamp = standardwebhooks.HeaderWebhookTimestamp
	HeaderSignature = standardwebhooks.HeaderWebhookSignature
)

// maxIDBytes bounds a webhook-id: Svix's are 30 characters; an id of
// kilobytes is no id.
const maxIDBytes = 256

// Message is what the headers of a verified delivery say.
type Message struct {
	// ID is the webhook-id: one per event, the same on every retry.
	ID string
	// Timestamp is the webhook-timestamp: when this attempt was signed.
	Timestamp time.Time
}

// verifier checks a delivery's signature and timestamp.
type verifier struct {
	lib       *standardwebhooks.Webhook
	tolerance time.Duration
	now       func() time.Time
}

func newVerifier(s Secret, tolerance time.Duration, now func() time.Time) (*verifier, error) {
	if s.IsZero() {
		return nil, fmt.Errorf("%w: none set", ErrSecret)
	}
	lib, err := standardwebhooks.NewWebhookRaw(s.key)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSecret, err)
	}
	return &verifier{lib: lib, tolerance: tolerance, now: now}, nil
}

// verify authenticates body and its headers, then judges the timestamp:
// a message signed with the secret but out of the tolerance is said to be
// stale (a replay or a clock off), one not signed with it to be unsigned
// or wrongly signed, whatever its timestamp.
func (v *verifier) verify(h http.Header, body []byte) (Message, error) {
	id, ts, sig := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	var missing []string
	for _, hv := range [][2]string{{HeaderID, id}, {HeaderTimestamp, ts}, {HeaderSignature, sig}} {
		if hv[1] == "" {
			missing = append(missing, hv[0])
		}
	}
	if len(missing) > 0 {
		return Message{}, fmt.Errorf("%w (no %s)", ErrUnsigned, strings.Join(missing, ", "))
	}
	if err := checkID(id); err != nil {
		return Message{}, err
	}
	secs, err := parseTimestamp(ts)
	if err != nil {
		return Message{}, err
	}
	if err := v.lib.VerifyIgnoringTimestamp(body, h); err != nil {
		switch {
		case errors.Is(err, standardwebhooks.ErrNoMatchingSignature):
			return Message{}, ErrSignature
		case errors.Is(err, standardwebhooks.ErrRequiredHeaders):
			return Message{}, ErrUnsigned
		}
		return Message{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	m := Message{ID: id, Timestamp: time.Unix(secs, 0).UTC()}
	now := v.now()
	switch off := now.Sub(m.Timestamp); {
	case off > v.tolerance:
		return m, fmt.Errorf("%w: signed %s ago, the tolerance is %s", ErrStale, off.Round(time.Second), v.tolerance)
	case -off > v.tolerance:
		return m, fmt.Errorf("%w: signed %s ahead of this machine's clock, the tolerance is %s", ErrStale, (-off).Round(time.Second), v.tolerance)
	}
	return m, nil
}

// checkID refuses an id the standard's scheme cannot sign safely: "It's
// important that both the message id and the timestamp not be user
// controlled, or at the very least not be allowed to include any `.`".
func checkID(id string) error {
	if len(id) > maxIDBytes {
		return fmt.Errorf("%w: webhook-id of %d bytes, want at most %d", ErrMalformed, len(id), maxIDBytes)
	}
	for _, r := range id {
		if r == '.' || r <= ' ' || r > '~' {
			return fmt.Errorf("%w: webhook-id %q holds %q: want printable ASCII without a full stop or a blank", ErrMalformed, id, r)
		}
	}
	return nil
}

// parseTimestamp reads webhook-timestamp, an "integer unix timestamp
// (seconds since epoch)", written as the signer writes it: decimal digits
// without a sign or a leading zero, for the signature covers the text.
func parseTimestamp(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != s {
		return 0, fmt.Errorf("%w: webhook-timestamp %q is not whole seconds since 1970", ErrMalformed, truncate(s, 32))
	}
	return n, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
