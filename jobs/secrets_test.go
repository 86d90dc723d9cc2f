package jobs_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etalake/etalake/extract"
	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/jobs"
	"github.com/etalake/etalake/load"
	"github.com/etalake/etalake/response"
	"github.com/etalake/etalake/schema"
	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/sim/simtest"
	"github.com/etalake/etalake/wire"
)

// echoKey has the characters that escape: "/" (JSON's \/), "+" and "="
// (percent-encoding, base64's alphabets).
const echoKey = "Sk/LIVE+key=7q-ECHO-5d"

// keyForms are the forms of echoKey a server may echo: as sent,
// JSON-escaped, percent-encoded, base64 at each byte offset. Each is safe
// inside a JSON string as it stands.
func keyForms() map[string]string {
	var uAll strings.Builder
	for _, r := range echoKey {
		fmt.Fprintf(&uAll, `\u%04X`, r)
	}
	var pAll strings.Builder
	for _, c := range []byte(echoKey) {
		fmt.Fprintf(&pAll, "%%%02x", c)
	}
	basic := func(prefix string) string { return base64.StdEncoding.EncodeToString([]byte(prefix + echoKey)) }
	return map[string]string{
		"as sent":                  echoKey,
		`JSON "\/"`:                strings.ReplaceAll(echoKey, "/", `\/`),
		`JSON \u for one char`:     strings.Replace(echoKey, "+", `\u002b`, 1),
		`JSON \u for every char`:   uAll.String(),
		"percent-encoded":          url.QueryEscape(echoKey),
		"percent, every byte":      pAll.String(),
		"base64":                   base64.StdEncoding.EncodeToString([]byte(echoKey)),
		"base64 URL":               base64.URLEncoding.EncodeToString([]byte(echoKey)),
		"Basic, offset 0":          "Basic " + basic("ab:"),
		"Basic, offset 1":          "Basic " + basic("abc:"),
		"Basic, offset 2":          "Basic " + basic("user:"),
		`base64 with "\/" escaped`: strings.ReplaceAll(base64.StdEncoding.EncodeToString([]byte("??>"+echoKey)), "/", `\/`),
	}
}

// sentForms are the forms of what a server received with the key sent as
// a says — the header's value ("Bearer KEY" in the bearer scheme) and the
// whole header line — as it may echo them: as received, JSON-escaped,
// percent-encoded, base64 at each byte offset. Each is safe inside a JSON
// string as it stands.
func sentForms(a extract.Auth, value string) map[string]string {
	var uAll strings.Builder
	for _, r := range value {
		fmt.Fprintf(&uAll, `\u%04x`, r)
	}
	line := a.Header() + ": " + value
	b64 := func(prefix string) string { return base64.StdEncoding.EncodeToString([]byte(prefix + line)) }
	return map[string]string{
		"header value":                     value,
		`header value, JSON "\/"`:          strings.ReplaceAll(value, "/", `\/`),
		`header value, JSON \u every char`: uAll.String(),
		"header value, percent-encoded":    url.QueryEscape(value),
		"header value, path-escaped":       url.PathEscape(value),
		"header line, base64 offset 0":     b64(""),
		"header line, base64 offset 1":     b64("x"),
		"header line, base64 offset 2":     b64("xy"),
		"header line, base64 URL":          base64.RawURLEncoding.EncodeToString([]byte(line)),
	}
}

// sentValue is the header value that carries echoKey in scheme a.
func sentValue(a extract.Auth) string {
	if a.Bearer() {
		return "Bearer " + echoKey
	}
	return echoKey
}

// leaks lists the forms of the key, and of the header sent with it in
// scheme a, found in text, by name; decoded, the text must not hold the
// key either.
func leaks(text string, a extract.Auth) []string {
	var out []string
	for _, forms := range []map[string]string{keyForms(), sentForms(a, sentValue(a))} {
		for name, form := range forms {
			if strings.Contains(text, form) {
				out = append(out, name)
			}
		}
	}
	if strings.Contains(text, echoKey) {
		out = append(out, "the key itself")
	}
	sort.Strings(out)
	return out
}

// echoing is a server in front of the simulator that echoes the key in
// every form, and the header it received it in (a's: "Authorization:
// Bearer KEY" in the bearer scheme) in every form: into the names its 2xx
// answers carry (a shipment's sealine name, every place name of a
// schedule), into the message of the 500s it answers to every third
// request and to every one for ZZZU0000000, into the messages of its 404s,
// and into response headers.
func echoing(next http.Handler, a extract.Auth) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var all []string
		for _, forms := range []map[string]string{keyForms(), sentForms(a, r.Header.Get(a.Header()))} {
			for _, f := range forms {
				all = append(all, f)
			}
		}
		echo := strings.Join(all, " | ")
		w.Header().Set("X-Echo", echo)
		w.Header().Set("Warning", `199 - "`+echo+`"`)
		if strings.Contains(r.URL.Path, "/consumption/") {
			next.ServeHTTP(w, r)
			return
		}
		// Every third request, and every one for ZZZU0000000 (it fails
		// after its retries, and the run logs why): a 500 that echoes.
		if n.Add(1)%3 == 1 || strings.Contains(r.URL.RawQuery, "ZZZU0000000") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"errorCode":500,"message":"upstream said %s","details":[],"time":"2026-01-05T00:00:00Z"}`, echo)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.String()
		switch {
		case rec.Code == http.StatusOK:
			body = strings.ReplaceAll(body, `"sealineName":"`, `"sealineName":"`+echo+` `)
			body = strings.ReplaceAll(body, `"name":"`, `"name":"`+echo+` `)
		case rec.Code >= 400:
			body = strings.Replace(body, `"message":"`, `"message":"`+echo+` `, 1)
		}
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write([]byte(body))
	})
}

// A server that echoes the API key — as sent, JSON-escaped, percent-
// encoded, base64 — and the header it came in ("Authorization: Bearer
// KEY" included), in 2xx, 4xx and 5xx bodies and in headers, gets no form
// of it into anything etalake writes, whatever the scheme the key is sent
// in: not the logs, not a table, not the Parquet mirror, not the raw
// bodies once decoded, not an error. Where a field held the key, the
// warehouse holds [REDACTED].
func TestAnEchoedKeyLeavesNoTraceInAnyForm(t *testing.T) {
	slowtest.Long(t)
	for _, scheme := range []string{"api-key", "bearer", "header:X-API-Key"} {
		t.Run(scheme, func(t *testing.T) {
			auth, err := extract.ParseAuth(scheme)
			if err != nil {
				t.Fatal(err)
			}
			echoedKeyLeavesNoTrace(t, auth)
		})
	}
}

func echoedKeyLeavesNoTrace(t *testing.T, auth extract.Auth) {
	ctx := context.Background()
	env := simtest.Start(t, simtest.Options{
		Keys: []sim.KeySpec{{Key: echoKey, Schedule: simtest.Credits(100), Tracking: simtest.Credits(100)}},
		Rate: sim.Rate{N: 1000, Window: time.Second},
		Auth: simtest.Auth(t, auth.String()),
	})
	front := httptest.NewServer(echoing(env.Service, auth))
	t.Cleanup(front.Close)
	dir := t.TempDir()
	wh, err := load.Open(ctx, dir, load.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer wh.Close()
	cfg := env.Config(t, echoKey)
	if cfg.Auth != auth {
		t.Fatalf("the client sends the key as %s, the simulator wants %s", cfg.Auth, auth)
	}
	cfg.ScheduleURL, cfg.TrackingURL = front.URL+sim.SchedulePrefix, front.URL+sim.TrackingPrefix
	cfg.Limiter, _ = extract.NewLimiter(extract.LimiterConfig{Rate: extract.Rate{N: 1000, Window: time.Second}})
	cfg.Retry = extract.RetryPolicy{MaxAttempts: 3, MaxElapsed: time.Minute, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}
	client, err := extract.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	w := env.Service.World()
	sel := jobs.Selection{Ports: portsOf(t, w, 3), Shipments: append(visible(t, w, 6), wire.ShipmentRef{Number: "ZZZU0000000", Type: wire.ShipmentContainer})}
	res, err := jobs.RunJob(ctx, client, wh, jobs.RunOptions{Job: "run", Track: true, LogicalDate: w.Config().Start, Selection: sel,
		CapSchedule: extract.Unlimited, CapTracking: extract.Unlimited,
		Log: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Rows["shipments"] == 0 || res.Run.Rows["locations"] == 0 {
		t.Fatalf("nothing loaded: %v", res.Run.Rows)
	}

	var texts []string
	texts = append(texts, logs.String(), fmt.Sprint(res))
	// Every table, every column, as text.
	for _, tbl := range schema.Tables {
		texts = append(texts, tableText(t, wh.DB(), "SELECT * FROM "+tbl.Name)...)
	}
	// The raw bodies, decompressed.
	if err := wh.Raw(ctx, load.RawFilter{}, func(r *response.Landed) error {
		texts = append(texts, string(r.Body), r.Request, r.NextPage)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The Parquet mirror, read back, and every file's bytes.
	parquet := filepath.Join(dir, "parquet")
	for _, tbl := range schema.Tables {
		if files, _ := filepath.Glob(filepath.Join(parquet, tbl.Name, "*", "*.parquet")); len(files) > 0 {
			texts = append(texts, tableText(t, wh.DB(), fmt.Sprintf("SELECT * FROM read_parquet('%s/*/*.parquet', union_by_name = true)", filepath.Join(parquet, tbl.Name)))...)
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
			t.Errorf("text %d holds the key as %v:\n%.600s", i, found, text)
		}
	}
	// The names that held the key hold the marker instead.
	if n := queryCount(t, wh, "SELECT count(*) FROM shipments WHERE sealine_name LIKE '%[REDACTED]%'"); n == 0 {
		t.Errorf("no shipments.sealine_name holds [REDACTED]: the echo did not reach the tables, the test proves nothing")
	}
	if !strings.Contains(logs.String(), "[REDACTED]") {
		t.Errorf("no log line holds [REDACTED]: the echoed errors did not reach the log, the test proves nothing:\n%s", logs.String())
	}
	// What the front echoed of the header made it that far: the redaction
	// of the key, not luck, kept it out.
	if auth.Bearer() && queryCount(t, wh, "SELECT count(*) FROM shipments WHERE sealine_name LIKE '%Bearer [REDACTED]%'") == 0 {
		t.Errorf("no shipments.sealine_name holds the echoed Bearer header, redacted: the test proves nothing")
	}
}

// tableText renders every row of query q as text, a line per row.
func tableText(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				vals[i] = string(b)
			}
		}
		out = append(out, fmt.Sprint(vals...))
	}
	return out
}
