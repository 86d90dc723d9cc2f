package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etalake/etalake/internal/slowtest"

	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/webhook"
)

// webhookKey signs the pushes of these tests.
var webhookKey = bytes.Repeat([]byte{0x42}, 32)

// secretFile writes the signing secret to a file of its own.
func secretFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "webhook-secret")
	if err := os.WriteFile(path, []byte(sim.FormatWebhookSecret(webhookKey)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serving starts a long-running etalake process and returns it with the
// first line it printed on stdout; its stderr goes to errOut.
func serving(t *testing.T, env []string, errOut io.Writer, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := etalakeProcess(t, env, args...)
	cmd.Stderr = errOut
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("%v printed no first line: %v", args, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return cmd, strings.TrimSpace(line)
}

// syncBuffer is a bytes.Buffer safe for a process writing it while the
// test reads it.
type syncBuffer struct {
	mu chan struct{}
	b  bytes.Buffer
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{mu: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu <- struct{}{}
	defer func() { <-s.mu }()
	return s.b.String()
}

// `etalake sim serve --webhook-url` pushes to `etalake webhook serve`
// what happens to the shipments a run asked; the receiver lands them
// while nothing else runs, SIGTERM hands them over, and the next writer
// lands each once and derives it, at no credit.
func TestWebhookServeLandsWhatSimServePushes(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("runs etalake processes")
	}
	t.Parallel() // its processes wait on each other; it sets no variable of this process
	wh, state := t.TempDir(), t.TempDir()
	secret := secretFile(t)
	rcvLog, simLog := newSyncBuffer(), newSyncBuffer()
	rcv, first := serving(t, []string{"ETALAKE_WAREHOUSE=" + wh, "ETALAKE_WEBHOOK_SECRET_FILE=" + secret, "ETALAKE_WEBHOOK_ROTATE_EVERY=1s"}, rcvLog,
		"webhook", "serve", "--addr", "127.0.0.1:0")
	url := strings.Fields(first)[3]
	_, exports := serving(t, nil, simLog, "sim", "serve", "--addr", "127.0.0.1:0", "--speed", "0", "--rate", "1000/1s",
		"--webhook-url", url, "--webhook-secret-file", secret)
	env := []string{"ETALAKE_API_KEY=demo", "ETALAKE_WAREHOUSE=" + wh, "ETALAKE_STATE_DIR=" + state, "ETALAKE_RATE=1000/1s"}
	env = append(env, strings.Fields(strings.TrimPrefix(exports, "export "))...)
	w := simtest.World(sim.WorldConfig{Seed: 1})
	csv := shipmentsCSV(t, w, 30)
	if out, err := etalakeProcess(t, env, "run", "--date", "2026-01-05", "--shipments", csv).CombinedOutput(); err != nil {
		t.Fatalf("the first run: %v\n%s", err, out)
	}
	base := strings.TrimSuffix(envValue(env, "ETALAKE_TRACKING_URL"), sim.TrackingPrefix)
	resp, err := http.Post(base+sim.AdminPrefix+"clock?advance=96h", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// The simulator pushes within a second of the clock's move; wait
	// (bounded) until every push it made was landed.
	var pushed int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		pushed = strings.Count(simLog.String(), "sim: pushed")
		if pushed > 0 && strings.Count(rcvLog.String(), "push: landed") == pushed && !strings.Contains(simLog.String(), "failed") {
			break
		}
	}
	if pushed == 0 || strings.Count(rcvLog.String(), "push: landed") != pushed {
		t.Fatalf("%d pushed, %d landed\nsim:\n%s\nreceiver:\n%s", pushed, strings.Count(rcvLog.String(), "push: landed"), simLog, rcvLog)
	}
	if err := rcv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := rcv.Wait(); err != nil {
		t.Fatalf("the receiver after SIGTERM: %v\n%s", err, rcvLog)
	}
	if !strings.Contains(rcvLog.String(), "webhook: stopped") {
		t.Fatalf("the receiver did not say it stopped:\n%s", rcvLog)
	}
	charged := simCharged(t, base)
	if out, err := etalakeProcess(t, env, "replay").CombinedOutput(); err != nil {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	if simCharged(t, base) != charged {
		t.Fatal("landing the pushes spent credits")
	}
	db, err := load.OpenReadOnly(context.Background(), wh, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, ids, derived int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT response_id),
		(SELECT count(*) FROM raw_responses r WHERE source = 'push' AND EXISTS (SELECT 1 FROM shipments s WHERE s.last_observed_at >= r.observed_at AND r.resource = 'shipment:' || s.shipment_type || ':' || s.shipment_number))
		FROM raw_responses WHERE source = 'push'`).Scan(&rows, &ids, &derived); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pushes landed once each, %d derived", rows, derived)
	if rows != pushed || ids != pushed || derived != pushed {
		t.Fatalf("%d pushed; raw_responses holds %d of source push (%d ids), %d derived into shipments", pushed, rows, ids, derived)
	}
}

func envValue(env []string, name string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, name+"="); ok {
			return v
		}
	}
	return ""
}

// simCharged is the credits the simulator at base charged.
func simCharged(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + sim.AdminPrefix + "stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	i := bytes.Index(b, []byte(`"charged"`))
	if i < 0 {
		t.Fatalf("stats without Charged: %s", b)
	}
	return string(b[i : i+bytes.IndexByte(b[i:], '}')])
}

// A setting out of its range, or a secret that is not one, stops the
// receiver before it listens, with exit code 2 and a message that never
// holds the secret.
func TestWebhookServeRefusesItsSettings(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("runs etalake processes")
	}
	wh := t.TempDir()
	bad := filepath.Join(t.TempDir(), "bad-secret")
	if err := os.WriteFile(bad, []byte("whsec_c2hvcnQ=\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "no signing secret"},
		{[]string{"ETALAKE_WEBHOOK_SECRET_FILE=" + bad}, "5 bytes after base64"},
		{[]string{"ETALAKE_WEBHOOK_SECRET_FILE=" + secretFile(t), "ETALAKE_WEBHOOK_TOLERANCE=2h"}, "ETALAKE_WEBHOOK_TOLERANCE (--tolerance) 2h0m0s: want 1s to 1h"},
		{[]string{"ETALAKE_WEBHOOK_SECRET_FILE=" + secretFile(t), "ETALAKE_WAREHOUSE=" + filepath.Join(wh, "missing")}, "not a directory"},
		{[]string{"ETALAKE_WEBHOOK_SECRET_FILE=" + secretFile(t), "ETALAKE_WEBHOOK_ID_RETENTION=30m"}, "ETALAKE_WEBHOOK_ID_RETENTION (--id-retention) 30m0s: want 1h to 2160h (90 days)"},
	} {
		cmd := etalakeProcess(t, append([]string{"ETALAKE_WAREHOUSE=" + wh, "ETALAKE_WEBHOOK_SECRET_FILE="}, c.env...), "webhook", "serve", "--addr", "127.0.0.1:0")
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: exit %d (%v), want 2 saying %q:\n%s", c.env, code, err, c.want, out)
		}
		if strings.Contains(string(out), "c2hvcnQ") {
			t.Errorf("the secret shows: %s", out)
		}
	}
}

// freePort is a loopback address nothing listens on (a receiver killed
// and started again listens there again, where the sender retries).
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// A receiver killed with SIGKILL while the vendor pushes — some bodies
// synced and answered, one perhaps cut short in its journal, others
// refused at the door — then started again: the vendor's retries land
// what was not answered, and every push is landed exactly once.
func TestAReceiverKilledWhilePushedToLandsEveryPushOnce(t *testing.T) {
	slowtest.Require(t, "kills a receiver 3 times while 630 pushes stream in, about 20 s")
	if testing.Short() {
		t.Skip("kills etalake processes")
	}
	ctx := context.Background()
	w := simtest.World(sim.WorldConfig{})
	svc, err := sim.New(sim.Config{World: w})
	if err != nil {
		t.Fatal(err)
	}
	svc.Subscribe(w.Shipments()...)
	svc.Clock().Advance(30 * 24 * time.Hour)
	all := svc.PushesBetween(w.Config().Start, svc.Clock().Now())
	wh, secret, addr := t.TempDir(), secretFile(t), freePort(t)
	p, err := sim.NewPusher(svc, sim.PushConfig{URL: "http://" + addr + "/", Secrets: [][]byte{webhookKey},
		Client: &http.Client{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	start := func() (*exec.Cmd, *syncBuffer) {
		log := newSyncBuffer()
		cmd, _ := serving(t, []string{"ETALAKE_WAREHOUSE=" + wh, "ETALAKE_WEBHOOK_SECRET_FILE=" + secret}, log, "webhook", "serve", "--addr", addr)
		return cmd, log
	}
	rng := rand.New(rand.NewPCG(31, 4))
	landedFirst := 0
	for kill := 0; kill < 3; kill++ {
		rcv, _ := start()
		flushed := make(chan []sim.Attempt, 1)
		go func() { flushed <- p.Flush(ctx) }()
		time.Sleep(time.Duration(100+rng.IntN(600)) * time.Millisecond)
		if err := rcv.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = rcv.Wait()
		for _, a := range <-flushed {
			if a.Err == nil {
				landedFirst++
			}
		}
		p.RetryNow() // the vendor's retries, without waiting out its schedule
	}
	t.Logf("%d pushes; %d answered 2xx before the third kill, %d waiting for a retry", len(all), landedFirst, p.Pending())
	rcv, log := start()
	for i := 0; p.Pending() > 0 && i < 12; i++ {
		for _, a := range p.Flush(ctx) {
			if a.GivenUp {
				t.Fatalf("push %s given up: %v", a.Push.ID, a.Err)
			}
		}
		p.RetryNow()
	}
	if p.Pending() > 0 {
		t.Fatalf("%d pushes never answered 2xx", p.Pending())
	}
	if err := rcv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := rcv.Wait(); err != nil {
		t.Fatalf("the receiver after SIGTERM: %v\n%s", err, log)
	}
	landed := pushRows(t, wh)
	for _, push := range all {
		r, err := jobs.PushedResponse(webhook.Delivery{Body: push.Body, Received: time.Now()}, "x")
		if err != nil {
			t.Fatal(err)
		}
		if n := landed[load.ResponseID(r)]; n != 1 {
			t.Errorf("push %s (%s of %s at %s): landed %d times, want once", push.ID, push.Type, push.Ref.Number, push.At, n)
		}
	}
	if len(landed) != len(all) {
		t.Errorf("%d pushed responses landed, %d pushes", len(landed), len(all))
	}
}

// pushRows opens the warehouse in dir as the next writer (which lands
// the receivers' journals) and counts the rows of each pushed response.
func pushRows(t *testing.T, dir string) map[string]int {
	t.Helper()
	ctx := context.Background()
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	rows, err := wh.DB().QueryContext(ctx, `SELECT response_id, count(*) FROM raw_responses WHERE source = 'push' GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

// A writer killed with SIGKILL while it lands receivers' journals — in
// a transaction, between two journals, removing one — leaves them to the
// next writer, which lands every body exactly once.
func TestAWriterKilledWhileLandingPushesLandsEachOnce(t *testing.T) {
	slowtest.Require(t, "kills a writer 4 times while it lands 93 journals, about 20 s")
	if testing.Short() {
		t.Skip("kills etalake processes")
	}
	w := simtest.World(sim.WorldConfig{})
	svc, err := sim.New(sim.Config{World: w})
	if err != nil {
		t.Fatal(err)
	}
	svc.Subscribe(w.Shipments()...)
	svc.Clock().Advance(45 * 24 * time.Hour)
	all := svc.DuePushes()
	wh := t.TempDir()
	pl, err := jobs.OpenPushLanding(wh, jobs.PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, push := range all {
		if err := pl.Deliver(context.Background(), webhook.Delivery{Message: webhook.Message{ID: push.ID, Timestamp: time.Now()}, Received: time.Now(), Body: push.Body}); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			if _, err := pl.Rotate(0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := pl.Close(); err != nil {
		t.Fatal(err)
	}
	journals, _ := filepath.Glob(filepath.Join(wh, ".work", "landing", "push-*.journal"))
	t.Logf("%d pushes in %d receiver journals", len(all), len(journals))
	rng := rand.New(rand.NewPCG(31, 5))
	for kill := 0; kill < 4; kill++ {
		cmd := etalakeProcess(t, []string{"ETALAKE_WAREHOUSE=" + wh}, "replay")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		left, _ := filepath.Glob(filepath.Join(wh, ".work", "landing", "push-*.journal"))
		t.Logf("kill %d: %d of %d journals left", kill+1, len(left), len(journals))
	}
	landed := pushRows(t, wh)
	for _, push := range all {
		r, err := jobs.PushedResponse(webhook.Delivery{Body: push.Body, Received: time.Now()}, "x")
		if err != nil {
			t.Fatal(err)
		}
		if n := landed[load.ResponseID(r)]; n != 1 {
			t.Errorf("push %s: landed %d times, want once", push.ID, n)
		}
	}
	if len(landed) != len(all) {
		t.Fatalf("%d pushed responses landed, %d pushes", len(landed), len(all))
	}
}

// postSigned posts body to url as the vendor does: webhook-id id, the
// attempt's timestamp ts, signed with keys.
func postSigned(t *testing.T, url, id string, ts time.Time, body []byte, keys ...[]byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set("webhook-signature", sim.SignWebhook(keys, id, ts.Unix(), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The Standard Webhooks specification: "webhook-id: the unique message
// identifier for the webhook message. This identifier is unique across
// all messages, but will be the same when the same webhook is being
// resent (e.g. due to a previous failure)." and "The webhook-id header
// ... can be used as an idempotency key". A real body of the vendor's
// (no timestamp of its own) sent 3 times with one webhook-id — before
// the receiver is killed, after it is started again, and past its
// tolerance (a fresh timestamp, a fresh signature: a legitimate retry)
// — lands one row in the warehouse.
func TestAPushSentThreeTimesWithOneWebhookIDLandsOneRow(t *testing.T) {
	slowtest.Long(t)
	if testing.Short() {
		t.Skip("kills etalake processes")
	}
	body, err := os.ReadFile(filepath.Join("testdata", "transform", "shipment_vendor_shapes", "body.json"))
	if err != nil {
		t.Fatal(err)
	}
	wh, secret, addr := t.TempDir(), secretFile(t), freePort(t)
	url := "http://" + addr + "/"
	env := []string{"ETALAKE_WAREHOUSE=" + wh, "ETALAKE_WEBHOOK_SECRET_FILE=" + secret, "ETALAKE_WEBHOOK_TOLERANCE=1s"}
	const id = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"
	rcv, _ := serving(t, env, io.Discard, "webhook", "serve", "--addr", addr)
	if code := postSigned(t, url, id, time.Now(), body, webhookKey); code != http.StatusNoContent {
		t.Fatalf("first attempt: %d, want 204", code)
	}
	if err := rcv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = rcv.Wait()

	log := newSyncBuffer()
	rcv, first := serving(t, env, log, "webhook", "serve", "--addr", addr, "--log-format", "json")
	if code := postSigned(t, url, id, time.Now(), body, webhookKey); code != http.StatusOK {
		t.Fatalf("the retry after a restart: %d, want 200 (landed before)", code)
	}
	time.Sleep(2500 * time.Millisecond) // past the 1s tolerance: what the receiver held in memory is forgotten
	if code := postSigned(t, url, id, time.Now(), body, webhookKey); code != http.StatusOK {
		t.Fatalf("the retry past the tolerance: %d, want 200 (landed before)", code)
	}
	if code := postSigned(t, url, "msg_other", time.Now(), body, bytes.Repeat([]byte{7}, 32)); code != http.StatusForbidden {
		t.Fatalf("a push of another secret: %d, want 403", code)
	}
	if err := rcv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := rcv.Wait(); err != nil {
		t.Fatalf("the receiver after SIGTERM: %v\n%s", err, log)
	}
	landed := pushRows(t, wh)
	if len(landed) != 1 {
		t.Fatalf("%d pushed responses landed (%v), want 1", len(landed), landed)
	}
	for rid, n := range landed {
		if n != 1 {
			t.Fatalf("response %s landed %d times", rid, n)
		}
	}

	// Its log says durations as durations and its refusals as attributes.
	if !strings.Contains(first, `"tolerance":"1s"`) || !strings.Contains(first, `"id_retention":"72h0m0s"`) {
		t.Errorf("the first line says the tolerance and the retention otherwise: %s", first)
	}
	if !strings.Contains(log.String(), `"retries_landed_before":2,"refused":{"403":1}`) {
		t.Errorf("the last line does not count the refusals by status:\n%s", log)
	}
}
