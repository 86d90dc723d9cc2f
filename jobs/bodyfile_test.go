package jobs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// oversizeEcho answers the first request for the shipment number that
// the next handler answers 200 with that answer grown past size by a
// string member of the echo (every form of the key, and of the header it
// came in, repeated), under a Content-Length or chunked as lengthKnown
// says; every other request as next does.
func oversizeEcho(number string, size int, a extract.Auth, lengthKnown bool) func(http.Handler) http.Handler {
	var served atomic.Bool
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("shipmentNumber") != number || served.Load() {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			if rec.Code == http.StatusOK {
				served.Store(true)
				var forms []string
				for _, fs := range []map[string]string{keyForms(), sentForms(a, r.Header.Get(a.Header()))} {
					for _, f := range fs {
						forms = append(forms, f)
					}
				}
				echo := strings.Join(forms, " | ") + " "
				pad := `{"debug":"` + strings.Repeat(echo, size/len(echo)+1) + `",`
				body = append([]byte(pad), bytes.TrimPrefix(body, []byte("{"))...)
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			if lengthKnown {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}
}

// storedBodies returns the bodies of the warehouse's body store,
// decompressed, by file.
func storedBodies(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(dir, "bodies", "*.zst"))
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if out[f], err = dec.DecodeAll(b, nil); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return out
}

// A server that echoes the key, in every form, through an answer larger
// than --max-body — with or without a Content-Length — gets no form of it
// into the body etalake streams to disk: not into the file the client
// writes, nor the journal's, nor the body store's (where [REDACTED] stands
// in its place), nor anywhere else under the warehouse, nor the logs. The
// answer is kept, once, and dead-lettered undecoded; nothing of it is left
// in the landing directory when the job ends.
func TestAnEchoedKeyInABodyLargerThanMaxBodyLeavesNoTrace(t *testing.T) {
	slowtest.Long(t)
	for _, scheme := range []string{"api-key", "bearer"} {
		for _, lengthKnown := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/length-known=%v", scheme, lengthKnown), func(t *testing.T) {
				auth, err := extract.ParseAuth(scheme)
				if err != nil {
					t.Fatal(err)
				}
				echoedKeyInABigBody(t, auth, lengthKnown)
			})
		}
	}
}

func echoedKeyInABigBody(t *testing.T, auth extract.Auth, lengthKnown bool) {
	ctx := context.Background()
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: echoKey, Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
		Auth: simtest.Auth(t, auth.String()),
	})
	w := env.Service.World()
	ships := visible(t, w, 3)
	front := httptest.NewServer(oversizeEcho(ships[1].Number, 3<<20, auth, lengthKnown)(env.Service))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	cfg := env.Config(t, echoKey)
	cfg.ScheduleURL, cfg.TrackingURL = front.URL+sim.SchedulePrefix, front.URL+sim.TrackingPrefix
	cfg.Limiter, _ = extract.NewLimiter(extract.LimiterConfig{Rate: extract.Rate{N: 1000, Window: time.Second}})
	cfg.MaxDecode = 1 << 20
	client, err := extract.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	res, err := jobs.RunJob(ctx, client, wh, jobs.RunOptions{Job: "run", Track: true, LogicalDate: w.Config().Start, Selection: jobs.Selection{Shipments: ships},
		CapSchedule: extract.Unlimited, CapTracking: extract.Unlimited, MaxBody: 1 << 20,
		Log: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	if res.Quarantined != 1 || res.Run.Status != load.StatusPartial {
		t.Fatalf("run: %s, %d quarantined; want partial, the big answer quarantined", res.Run.Status, res.Quarantined)
	}
	if n := queryCount(t, wh, "SELECT count(*) FROM raw_responses WHERE body IS NULL AND body_file LIKE 'bodies/%.zst' AND body_bytes > 1048576"); n != 1 {
		t.Fatalf("%d responses kept in the body store; want the big answer", n)
	}
	stored := storedBodies(t, dir)
	if len(stored) != 1 {
		t.Fatalf("%d files in the body store, want 1", len(stored))
	}
	texts := []string{logs.String()}
	for _, b := range stored {
		texts = append(texts, string(b))
		if !bytes.Contains(b, []byte("[REDACTED]")) {
			t.Errorf("the stored body holds no [REDACTED]: the echo did not reach it, the test proves nothing")
		}
	}
	if err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() { // a version's files are also reached through links
			return err
		}
		b, err := os.ReadFile(path)
		texts = append(texts, string(b))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if found := leaks(text, auth); len(found) > 0 {
			t.Errorf("text %d holds the key as %v", i, found)
		}
	}
	if left, _ := os.ReadDir(wh.SpillDir()); len(left) != 0 {
		t.Errorf("%d files left in the landing directory after the job", len(left))
	}
}

// Files of responses larger than --max-body import without being read
// into memory: a .json file landed from itself, a line of an NDJSON file
// streamed to a file first. Named by --endpoint and --request, such a
// body is the same response as the same bytes imported with a larger
// --max-body (one row); unnamed, it lands as unidentified. Both are
// dead-lettered as too large, and a replay with a larger --max-body
// derives the one named.
func TestImportedBodiesLargerThanMaxBodyLandFromFiles(t *testing.T) {
	slowtest.Long(t)
	world := simtest.World(sim.WorldConfig{})
	at := world.Config().Start.Add(2 * time.Hour)
	var big []byte
	var ref wire.ShipmentRef
	for _, r := range world.Shipments() {
		s, err := world.Shipment(r, at)
		if err != nil {
			continue
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		big, ref = append([]byte(`{"debug":"`+strings.Repeat("d", 2<<20)+`",`), b[1:]...), r
		break
	}
	in := t.TempDir()
	named := filepath.Join(in, "named.json")
	lines := filepath.Join(in, "lines.ndjson")
	if err := os.WriteFile(named, big, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lines, append(append([]byte("  "), big...), " \r\n{\"a\":\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	request := "/container-tracking/api/v2/shipment?" + fmt.Sprintf("sealine=%s&shipmentNumber=%s&shipmentType=%s", ref.Sealine, ref.Number, ref.Type)
	ctx := context.Background()
	dir := t.TempDir()
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()

	st, err := jobs.Import(ctx, wh, []string{named}, jobs.ImportOptions{ObservedAt: at, MaxBody: 1 << 20, Endpoint: "shipment", Request: request})
	if err != nil || st.Landed != 1 || st.Quarantined != 1 || st.Status != load.StatusPartial {
		t.Fatalf("import of the named file: %+v, %v; want it landed and quarantined", st, err)
	}
	st, err = jobs.Import(ctx, wh, []string{lines}, jobs.ImportOptions{ObservedAt: at, MaxBody: 1 << 20})
	if err != nil || st.Bodies != 2 || st.Landed != 2 || st.Unidentified != 2 || st.Quarantined != 2 {
		t.Fatalf("import of the lines: %+v, %v; want the big line and the cut one landed unidentified, quarantined", st, err)
	}
	if n := queryCount(t, wh, "SELECT count(*) FROM raw_responses WHERE body_file IS NOT NULL"); n != 2 {
		t.Fatalf("%d bodies in the body store; want the file and the line", n)
	}
	if stored := storedBodies(t, dir); len(stored) != 1 {
		t.Errorf("%d files in the body store, want 1: the line trimmed is the file's body", len(stored))
	}
	if left, _ := os.ReadDir(wh.SpillDir()); len(left) != 0 {
		t.Errorf("%d files left in the landing directory after the import", len(left))
	}

	st, err = jobs.Import(ctx, wh, []string{named}, jobs.ImportOptions{ObservedAt: at, MaxBody: 4 << 20, Endpoint: "shipment", Request: request})
	if err != nil || st.AlreadyThere != 1 || st.Landed != 0 {
		t.Fatalf("the named file again, with a larger --max-body: %+v, %v; want the same response, already there", st, err)
	}
	rs, err := jobs.Replay(ctx, wh, jobs.ReplayOptions{MaxBody: 4 << 20})
	if err != nil || rs.Quarantined != 2 || queryCount(t, wh, "SELECT count(*) FROM shipments WHERE shipment_number = '"+ref.Number+"'") != 1 {
		t.Fatalf("replay with a larger --max-body: %+v, %v; want the named body derived, the two unidentified dead-lettered", rs, err)
	}
	if n := queryCount(t, wh, "SELECT count(*) FROM dead_letters WHERE reason LIKE '%--max-body%'"); n != 0 {
		t.Errorf("%d dead letters still say a body is too large after the replay", n)
	}
}
