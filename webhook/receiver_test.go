package webhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/webhook"
)

// The receiver's signatures are checked against the simulator's signer,
// written apart from the standard's text (sim/webhook.go), and
// against Svix's documented example; each rule below quotes the sentence
// of the Standard Webhooks specification (github.com/standard-webhooks/
// standard-webhooks, spec/standard-webhooks.md) it
// enforces.

// key is a 32-byte signing key; other a different one.
var (
	key   = bytes.Repeat([]byte{0x5e}, 32)
	other = bytes.Repeat([]byte{0xa7}, 32)
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// got records what Deliver was handed.
type got struct {
	mu   sync.Mutex
	ds   []webhook.Delivery
	fail error // returned by Deliver when set
}

func (g *got) deliver(_ context.Context, d webhook.Delivery) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fail != nil {
		return g.fail
	}
	g.ds = append(g.ds, d)
	return nil
}

func (g *got) n() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ds)
}

func receiver(t *testing.T, clock *time.Time, g *got, log *bytes.Buffer) *webhook.Receiver {
	t.Helper()
	s, err := webhook.ParseSecret(sim.FormatWebhookSecret(key))
	if err != nil {
		t.Fatal(err)
	}
	cfg := webhook.DefaultConfig()
	cfg.Secret, cfg.Now = s, func() time.Time { return *clock }
	if log != nil {
		cfg.Log = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	r, err := webhook.New(cfg, g.deliver)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// post sends a body signed by keys with id and ts, as the simulator does.
func post(r http.Handler, id string, ts time.Time, body []byte, keys ...[]byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set("webhook-signature", sim.SignWebhook(keys, id, ts.Unix(), body))
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	return w
}

const body = `{"type":"container.discharged_at_pod","timestamp":"2026-03-01T11:58:00Z","data":{"containerDetails":{"metadata":{"shipmentNumber":"MSCU1234566","shipmentType":"CT"},"containers":[]}}}`

// Svix's documented example: secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw,
// id msg_p5jXN8AQM9LWM0D4loKWxJek, timestamp 1614265330, body
// {"test": 2432232314}, signature v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=.
// The simulator signs it so, and the receiver takes it at that moment.
func TestSvixDocumentedSignatureIsSignedAndVerified(t *testing.T) {
	const secret, id, ts, payload, want = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek",
		1614265330, `{"test": 2432232314}`, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	k, err := sim.ParseWebhookSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	if sig := sim.SignWebhook([][]byte{k}, id, ts, []byte(payload)); sig != want {
		t.Fatalf("the simulator signs Svix's example %s, want %s", sig, want)
	}
	s, err := webhook.ParseSecret(secret)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Unix(ts+30, 0)
	g := &got{}
	cfg := webhook.DefaultConfig()
	cfg.Secret, cfg.Now = s, func() time.Time { return at }
	r, err := webhook.New(cfg, g.deliver)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(payload))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.Itoa(ts))
	req.Header.Set("webhook-signature", want)
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusNoContent || g.n() != 1 {
		t.Fatalf("Svix's example: %d %q, %d delivered; want 204 and one", w.Code, w.Body.String(), g.n())
	}
}

func TestSignaturesAreVerified(t *testing.T) {
	clock := now
	ts := now.Add(-10 * time.Second)
	cases := []struct {
		name   string
		send   func(r http.Handler) *httptest.ResponseRecorder
		status int
		lands  bool
	}{
		// "the message's: ID, timestamp and body are concatenated
		// (delimited by full-stops) and then signed".
		{"valid", func(r http.Handler) *httptest.ResponseRecorder { return post(r, "msg_valid", ts, []byte(body), key) }, 204, true},
		{"signed with another secret", func(r http.Handler) *httptest.ResponseRecorder {
			return post(r, "msg_other", ts, []byte(body), other)
		}, 403, false},
		// "Cryptographic signatures are sensitive to even the smallest
		// changes, and even a stray space can cause the signature to be
		// invalid."
		{"body tampered with after signing", func(r http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(strings.Replace(body, "11:58", "11:59", 1)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("webhook-id", "msg_tampered")
			req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
			req.Header.Set("webhook-signature", sim.SignWebhook([][]byte{key}, "msg_tampered", ts.Unix(), []byte(body)))
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			return w
		}, 403, false},
		{"timestamp changed after signing", func(r http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("webhook-id", "msg_retimed")
			req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix()+1, 10))
			req.Header.Set("webhook-signature", sim.SignWebhook([][]byte{key}, "msg_retimed", ts.Unix(), []byte(body)))
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			return w
		}, 403, false},
		// "The signature header is a space delimited list of
		// signatures" ... "Webhook consumers can try to verify each
		// signature until one matches."
		{"several signatures, one valid", func(r http.Handler) *httptest.ResponseRecorder {
			return post(r, "msg_rotated", ts, []byte(body), other, key)
		}, 204, true},
		{"an asymmetric v1a signature alone", func(r http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("webhook-id", "msg_v1a")
			req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
			req.Header.Set("webhook-signature", strings.Replace(sim.SignWebhook([][]byte{key}, "msg_v1a", ts.Unix(), []byte(body)), "v1,", "v1a,", 1))
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			return w
		}, 403, false},
		// "Make sure to verify the `webhook-timestamp` header has a
		// timestamp that is within some allowable tolerance of the
		// current timestamp to prevent replay attacks."
		{"signed 6 minutes ago", func(r http.Handler) *httptest.ResponseRecorder {
			return post(r, "msg_stale", now.Add(-6*time.Minute), []byte(body), key)
		}, 400, false},
		{"signed 6 minutes ahead", func(r http.Handler) *httptest.ResponseRecorder {
			return post(r, "msg_future", now.Add(6*time.Minute), []byte(body), key)
		}, 400, false},
		{"signed 4 minutes ago", func(r http.Handler) *httptest.ResponseRecorder {
			return post(r, "msg_fresh", now.Add(-4*time.Minute), []byte(body), key)
		}, 204, true},
		// "It's important that both the message id and the timestamp
		// not be user controlled, or at the very least not be allowed
		// to include any `.`".
		{"an id with a full stop", func(r http.Handler) *httptest.ResponseRecorder {
			return post(r, "msg_a.1700000000", ts, []byte(body), key)
		}, 400, false},
		{"no signature header", func(r http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("webhook-id", "msg_unsigned")
			req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			return w
		}, 400, false},
		// "webhook-timestamp: integer unix timestamp (seconds since
		// epoch)".
		{"a timestamp in milliseconds' text", func(r http.Handler) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("webhook-id", "msg_ms")
			req.Header.Set("webhook-timestamp", ts.Format(time.RFC3339))
			req.Header.Set("webhook-signature", sim.SignWebhook([][]byte{key}, "msg_ms", ts.Unix(), []byte(body)))
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			return w
		}, 400, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &got{}
			var log bytes.Buffer
			w := c.send(receiver(t, &clock, g, &log))
			if w.Code != c.status || (g.n() == 1) != c.lands {
				t.Fatalf("%d %q, %d delivered; want %d and landed %v\n%s", w.Code, w.Body.String(), g.n(), c.status, c.lands, log.String())
			}
			if c.status >= 400 && !strings.Contains(log.String(), "webhook: refused") {
				t.Errorf("no log line says it was refused:\n%s", log.String())
			}
			if strings.Contains(log.String(), sim.FormatWebhookSecret(key)[6:]) || strings.Contains(w.Body.String(), sim.FormatWebhookSecret(key)[6:]) {
				t.Error("the secret appears in the log or the answer")
			}
		})
	}
}

// "Use the `webhook-id` header as an idempotency key to prevent
// accidentally processing the same webhook more than once": the same
// message again is refused 409; the sender's retry of a message it never
// heard was taken — the same id, "Every time an attempt is retried the
// timestamp of the attempt is updated" — is answered 200 and not landed
// again; a message whose landing failed is landed by its retry.
func TestAMessageIsLandedOnceWhateverComesAgain(t *testing.T) {
	clock := now
	g := &got{}
	var log bytes.Buffer
	r := receiver(t, &clock, g, &log)
	first := now.Add(-time.Second)
	if w := post(r, "msg_once", first, []byte(body), key); w.Code != 204 {
		t.Fatalf("first delivery: %d %s", w.Code, w.Body)
	}
	clock = now.Add(2 * time.Minute)
	if w := post(r, "msg_once", first, []byte(body), key); w.Code != http.StatusConflict {
		t.Fatalf("the same message replayed 2 minutes later: %d %s, want 409", w.Code, w.Body)
	}
	if w := post(r, "msg_once", clock, []byte(body), key); w.Code != http.StatusOK {
		t.Fatalf("a retry of the message (new timestamp): %d %s, want 200", w.Code, w.Body)
	}
	clock = now.Add(6 * time.Minute)
	if w := post(r, "msg_once", first, []byte(body), key); w.Code != http.StatusBadRequest {
		t.Fatalf("the message replayed past the tolerance: %d %s, want 400 (stale)", w.Code, w.Body)
	}
	if g.n() != 1 {
		t.Fatalf("%d deliveries landed, want 1", g.n())
	}

	g.fail = errors.New("disk full")
	if w := post(r, "msg_failing", clock, []byte(body), key); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("a delivery whose landing failed: %d (Retry-After %q), want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	g.fail = nil
	clock = clock.Add(5 * time.Second)
	if w := post(r, "msg_failing", clock, []byte(body), key); w.Code != http.StatusNoContent {
		t.Fatalf("the retry of a delivery whose landing failed: %d %s, want 204", w.Code, w.Body)
	}
	if g.n() != 2 {
		t.Fatalf("%d deliveries landed, want 2", g.n())
	}
	st := r.Stats()
	if st.Landed != 2 || st.Duplicates != 1 || st.Refused[409] != 1 || st.Refused[400] != 1 || st.Refused[503] != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestWhatIsNoWebhookPostIsRefused(t *testing.T) {
	clock := now
	g := &got{}
	r := receiver(t, &clock, g, nil)
	get := httptest.NewRecorder()
	r.ServeHTTP(get, httptest.NewRequest(http.MethodGet, "/", nil))
	if get.Code != http.StatusMethodNotAllowed || get.Header().Get("Allow") != "POST" {
		t.Errorf("GET: %d, Allow %q; want 405 and POST", get.Code, get.Header().Get("Allow"))
	}
	text := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	text.Header.Set("Content-Type", "text/plain")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, text)
	if w.Code != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %d, want 415", w.Code)
	}
	big := []byte(`{"pad":"` + strings.Repeat("x", webhook.DefaultMaxBody) + `"}`)
	if w := post(r, "msg_big", now, big, key); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over %d bytes: %d, want 413", webhook.DefaultMaxBody, w.Code)
	}
	g.fail = fmt.Errorf("%w: a port schedule", webhook.ErrUnprocessable)
	if w := post(r, "msg_schedule", now, []byte(body), key); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("a body Deliver refuses for good: %d, want 422", w.Code)
	}
	r.Close()
	g.fail = nil
	if w := post(r, "msg_late", now, []byte(body), key); w.Code != http.StatusServiceUnavailable {
		t.Errorf("a delivery after Close: %d, want 503", w.Code)
	}
	if g.n() != 0 {
		t.Fatalf("%d delivered, want none", g.n())
	}
}

// The standard's secret: "Random. Between 24 bytes (192 bits) and 64
// bytes (512 bits)", "base64 encoded, prefixed with `whsec_`". It never
// prints.
func TestSecrets(t *testing.T) {
	for _, n := range []int{24, 32, 64} {
		if _, err := webhook.ParseSecret(sim.FormatWebhookSecret(bytes.Repeat([]byte{1}, n)) + "\n"); err != nil {
			t.Errorf("%d bytes: %v", n, err)
		}
	}
	for s, want := range map[string]string{
		sim.FormatWebhookSecret(bytes.Repeat([]byte{1}, 23)): "23 bytes",
		sim.FormatWebhookSecret(bytes.Repeat([]byte{1}, 65)): "65 bytes",
		"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw":                   "does not start with whsec_",
		"whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw":              "asymmetric",
		"whsec_not base64!":                                  "not standard base64",
		"":                                                   "empty",
	} {
		_, err := webhook.ParseSecret(s)
		if !errors.Is(err, webhook.ErrSecret) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSecret(%q): %v, want ErrSecret saying %q", s, err, want)
		}
		if len(s) > 10 && err != nil && strings.Contains(err.Error(), s[6:]) {
			t.Errorf("the error holds the secret: %v", err)
		}
	}
	s, _ := webhook.ParseSecret(sim.FormatWebhookSecret(key))
	var log bytes.Buffer
	slog.New(slog.NewJSONHandler(&log, nil)).Info("x", "secret", s)
	shown := fmt.Sprintf("%v %+v %#v %s", s, s, s, log.String())
	if strings.Contains(shown, sim.FormatWebhookSecret(key)[6:12]) {
		t.Fatalf("the secret shows: %s", shown)
	}
}
